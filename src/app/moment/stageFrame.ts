/**
 * The stage's mechanism for one request as a pure function of the scrubber's time and that
 * request's engine events: which stage step is on, how far into it, what travels on the RDMA link,
 * what the "done" message carries, how many reserved pages are lit, how many response tokens are out.
 * No React, no DOM, no clock: the same (events, t) always gives the same frame, so playing, scrubbing
 * backward, stepping and a rendered video agree.
 *
 * Steps come from the events (one per event, through the handoff's page counts in engineText.ts),
 * plus two the events imply: the tokenizer's check passing (an arrival not refused there) and the
 * stream of response tokens after decode's first read. Every step starts at its event's time; where
 * several events share one instant (the engine does many things "at once"), their steps share the
 * gap to the next instant in event order, so a person can still watch them one after the other.
 */
import type { EngineEvent } from '../../engine/index.ts';
import { pagesOf } from '../../engine/events.ts';

export type StageStepId =
  | 'arrive'
  | 'tokenizer'
  | 'reject'
  | 'abort'
  | 'route'
  | 'decode-wait'
  | 'reserve'
  | 'prefill-wait'
  | 'prefill-alloc'
  | 'compute'
  | 'transfer'
  | 'prefill-free'
  | 'done'
  | 'check-failed'
  | 'scan'
  | 'stream'
  | 'response'
  | 'free'
  | 'reuse';

export interface StageStep {
  id: StageStepId;
  /** Index of the event the step comes from in the request's events. */
  event: number;
  /** Simulated ms: the step is on for start ≤ t < end (the last step never ends). */
  start: number;
  end: number;
}

/** The step each event starts; null: none (the pools show it, the steps do not). */
const STEP_OF: Record<EngineEvent['type'], StageStepId | null> = {
  arrive: 'arrive',
  reject: 'reject',
  'abort-marked': 'abort',
  route: 'route',
  'decode-wait': 'decode-wait',
  'decode-reserve': 'reserve',
  'prefill-wait': 'prefill-wait',
  'prefill-alloc': 'prefill-alloc',
  'prefill-compute': 'compute',
  // Chunked prefill computes in pieces; the stage shows the computation as one step.
  'prefill-chunk': 'compute',
  // Retiring an aborted request and prefill noticing a cancellation both end prefill's part.
  'prefill-retire': 'prefill-free',
  'prefill-sees-abort': 'prefill-free',
  // A client that cancels ends the exchange with the client.
  'client-cancel': 'response',
  'kv-transfer': 'transfer',
  'prefill-free': 'prefill-free',
  'transfer-done': 'done',
  'decode-check-failed': 'check-failed',
  'decode-read': 'scan',
  // A decode step's new page is part of the token stream: the pools draw it, no step of its own.
  'decode-grow': null,
  response: 'response',
  'decode-free': 'free',
};

/**
 * How long the steps of the request's last instant last, as a share of the whole handoff: they have
 * no next event to end them. The reuse step (later requests claiming the freed pages) follows, open-ended.
 */
const LAST_INSTANT_SHARE = 0.1;

/** The request's stage steps, in order, with the simulated interval each one is on. */
export function stageSteps(events: readonly EngineEvent[]): StageStep[] {
  if (events.length === 0) return [];
  // Steps per event, in event order (an arrival the tokenizer let through shows that check too).
  const tokenizerRefused = events.some((e) => e.type === 'reject' && e.stage === 'tokenizer');
  const raw: { id: StageStepId; event: number; weight: number; t: number }[] = [];
  events.forEach((e, i) => {
    const id = STEP_OF[e.type];
    if (id !== null) raw.push({ id, event: i, weight: 1, t: e.t });
    if (e.type === 'arrive' && !tokenizerRefused) raw.push({ id: 'tokenizer', event: i, weight: 1, t: e.t });
    if (e.type === 'decode-read') raw.push({ id: 'stream', event: i, weight: 0, t: e.t }); // weight set below
  });
  const first = events[0]!.t;
  const last = events[events.length - 1]!.t;
  const tail = Math.max(1, (last - first) * LAST_INSTANT_SHARE);
  const steps: StageStep[] = [];
  for (let i = 0; i < raw.length; ) {
    let j = i;
    while (j < raw.length && raw[j]!.t === raw[i]!.t) j++;
    const group = raw.slice(i, j);
    const from = group[0]!.t;
    const to = j < raw.length ? raw[j]!.t : from + tail;
    // The token stream is the one long activity of its instant (one decode step per token): it gets half of it.
    for (const s of group) if (s.id === 'stream') s.weight = Math.max(1, group.length - 1);
    const total = group.reduce((a, s) => a + s.weight, 0);
    let acc = 0;
    for (const s of group) {
      const start = from + ((to - from) * acc) / total;
      acc += s.weight;
      steps.push({ id: s.id, event: s.event, start, end: from + ((to - from) * acc) / total });
    }
    i = j;
  }
  // Once the block table is freed, later reservations claim its pages: open-ended.
  if (events.some((e) => e.type === 'decode-free')) steps.push({ id: 'reuse', event: events.length - 1, start: steps[steps.length - 1]!.end, end: Infinity });
  // Starts on a microsecond grid, at or after their event (the URL keeps time to the microsecond, so a
  // link to a step lands on that step); each step ends exactly where the next begins.
  for (let k = 0; k < steps.length; k++) {
    const s = steps[k]!;
    s.start = Math.ceil(s.start * 1000 - 1e-6) / 1000 + 0; // + 0: never −0
    if (k > 0 && s.start <= steps[k - 1]!.start) s.start = (Math.round(steps[k - 1]!.start * 1000) + 1) / 1000;
  }
  for (let k = 0; k + 1 < steps.length; k++) steps[k]!.end = steps[k + 1]!.start;
  steps[steps.length - 1]!.end = Infinity;
  return steps;
}

/** Index of the step on at t (−1 before the request arrives). */
export function stepIndexAt(steps: readonly StageStep[], t: number): number {
  let lo = 0;
  let hi = steps.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (steps[mid]!.start <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

export interface StageFrame {
  t: number;
  /** The step on, or 'idle' before the request arrives (or when there is no request). */
  step: StageStepId | 'idle';
  stepIndex: number;
  stepCount: number;
  /** 0…1 through the step (1 throughout with reduced motion: each step's end state). */
  progress: number;
  /** Tokens the client sent, and the tokens the request carries now (N, or 1 once replaced). */
  promptTokens: number;
  inputTokens: number;
  /** Where the prompt is: at the client, through the router, at prefill, nowhere (refused). */
  promptAt: 'client' | 'router' | 'prefill' | 'gone';
  decodeNode: number | null;
  prefillNode: number | null;
  /** The block table: every page decode reserved, in block-table order, and how many are lit so far. */
  reserved: number[];
  reservedLit: number;
  /** Pages prefill computed into, and tokens computed (0 until prefill has run). */
  computedTokens: number;
  /** Pages on the RDMA link (0 when nothing travels) and how far along it (0…1). */
  beamPages: number;
  beamProgress: number;
  /** Pages the transfer wrote into the block table so far (the engine's count). */
  pagesWritten: number;
  /** The "done" message on its way (room, status) and how far along, or null. */
  message: { room: number; status: string; progress: number } | null;
  /** Decode's scan of the block table: pages scanned so far (all once the scan is over). */
  scanned: number;
  /** Response tokens out so far, and the one just out (joined to its page), or null. */
  tokensShown: number;
  activeToken: number | null;
  /** HTTP status once it reached the client, else null. */
  status: 200 | 400 | 499 | 500 | null;
  /** Where the status is travelling (decode → client) during the response step. */
  statusProgress: number;
  /** The block table is freed (pages keep their KV: stale for the next tenant). */
  freed: boolean;
  cleared: boolean;
  /** The integrity check failed closed (decode refused to read). */
  checkFailed: EngineEvent & { type: 'decode-check-failed' } | null;
  refusedAt: 'tokenizer' | 'admission' | 'decode-admission' | null;
}

export interface StageFrameOptions {
  /** Response tokens the request produced (the detail's tokens), streamed during the stream step. */
  tokenCount: number;
  /** prefers-reduced-motion: every step shows its end state. */
  reducedMotion?: boolean;
  /** Steps precomputed with stageSteps(events) (a view computes them once per request). */
  steps?: readonly StageStep[];
}

/**
 * A handoff's page counts from its events: the pages decode reserved (in block-table order), how
 * many the transfer wrote, and the reserved pages no transfer of this handoff wrote.
 */
export function handoffCounts(events: readonly EngineEvent[]): { reserved: number[]; written: number; unwritten: number[] } {
  const reserve = events.find((e) => e.type === 'decode-reserve');
  const reserved = reserve && reserve.type === 'decode-reserve' ? [...pagesOf(reserve.pages)] : [];
  const dst = new Set<number>();
  let written = 0;
  for (const e of events) {
    if (e.type !== 'kv-transfer') continue;
    written += e.pagesWritten;
    for (const p of pagesOf(e.dstPages)) dst.add(p);
  }
  return { reserved, written, unwritten: reserved.filter((p) => !dst.has(p)) };
}

const clamp01 = (x: number) => (x < 0 ? 0 : x > 1 ? 1 : x);

// A request's page counts are the same on every frame: computed once per event list (a frame is
// drawn 60 times a second while playing, and the block table can hold tens of thousands of pages).
const countsCache = new WeakMap<readonly EngineEvent[], ReturnType<typeof handoffCounts>>();
function countsOf(events: readonly EngineEvent[]): ReturnType<typeof handoffCounts> {
  let c = countsCache.get(events);
  if (!c) {
    c = handoffCounts(events);
    countsCache.set(events, c);
  }
  return c;
}

/** Each reserved page's index in the block table (−1 where not in it), for a pool of `pageCount` pages. */
const indexCache = new WeakMap<readonly number[], Int32Array>();
export function blockIndexOf(reserved: readonly number[], pageCount: number): Int32Array {
  let index = indexCache.get(reserved);
  if (!index || index.length !== pageCount) {
    index = new Int32Array(pageCount).fill(-1);
    reserved.forEach((p, i) => {
      if (p < pageCount) index![p] = i;
    });
    indexCache.set(reserved, index);
  }
  return index;
}

/** The stage's picture of one request at simulated time t (the incident's clock). */
export function stageFrame(events: readonly EngineEvent[], t: number, o: StageFrameOptions): StageFrame {
  const steps = o.steps ?? stageSteps(events);
  const index = stepIndexAt(steps, t);
  const step = steps[index];
  const progress = step ? (o.reducedMotion || step.end === Infinity ? 1 : step.end > step.start ? clamp01((t - step.start) / (step.end - step.start)) : 1) : 0;
  return stageFrameAt(events, steps, index, progress, t, o);
}

/**
 * The stage's picture of one request with step `index` on, `progress` (0…1) into it: what the
 * handoff clock and the incident's clock both come down to. `t` is the simulated ms shown.
 */
export function stageFrameAt(events: readonly EngineEvent[], steps: readonly StageStep[], index: number, progressIn: number, t: number, o: StageFrameOptions): StageFrame {
  const step = steps[index];
  const progress = step ? (o.reducedMotion ? 1 : clamp01(progressIn)) : 0;
  const arrive = events.find((e) => e.type === 'arrive');
  const N = arrive && arrive.type === 'arrive' ? arrive.tokens : 0;
  const frame: StageFrame = {
    t,
    step: step ? step.id : 'idle',
    stepIndex: step ? index : -1,
    stepCount: steps.length,
    progress,
    promptTokens: N,
    inputTokens: N,
    promptAt: 'client',
    decodeNode: null,
    prefillNode: null,
    reserved: [],
    reservedLit: 0,
    computedTokens: 0,
    beamPages: 0,
    beamProgress: 0,
    pagesWritten: 0,
    message: null,
    scanned: 0,
    tokensShown: 0,
    activeToken: null,
    status: null,
    statusProgress: 0,
    freed: false,
    cleared: false,
    checkFailed: null,
    refusedAt: null,
  };
  if (!step) return frame;
  const { reserved } = countsOf(events);
  // Fold every step up to the current one: each leaves its end state, the current one its progress.
  for (let k = 0; k <= index; k++) {
    const s = steps[k]!;
    const p = k === index ? progress : 1;
    const e = events[s.event]!;
    switch (s.id) {
      case 'arrive':
        frame.promptAt = p < 1 ? 'client' : 'router';
        break;
      case 'tokenizer':
        frame.promptAt = 'router';
        break;
      case 'reject':
        if (e.type === 'reject') frame.refusedAt = e.stage;
        frame.promptAt = 'gone';
        frame.status = 400;
        frame.statusProgress = p;
        break;
      case 'abort':
        // N collapses to 1 over the step: the scheduler replaces the input with one placeholder token.
        if (e.type === 'abort-marked') frame.inputTokens = Math.max(e.placeholderTokens, Math.round(N - (N - e.placeholderTokens) * p));
        break;
      case 'route':
        if (e.type === 'route') {
          frame.decodeNode = e.decode;
          frame.prefillNode = e.prefill;
        }
        frame.promptAt = p < 1 ? 'router' : 'prefill';
        break;
      case 'reserve':
        frame.reserved = reserved;
        frame.reservedLit = Math.round(reserved.length * p);
        if (e.type === 'decode-reserve' && e.cleared) frame.cleared = true;
        break;
      case 'prefill-alloc':
        // Prefill computes over this step (the compute event marks its end).
        if (e.type === 'prefill-alloc') frame.computedTokens = Math.round(e.computeTokens * p);
        break;
      case 'compute': {
        if (e.type === 'prefill-compute') frame.computedTokens = e.tokens;
        // The KV travels between the end of prefill and the transfer event.
        const tr = events.slice(s.event).find((x) => x.type === 'kv-transfer');
        frame.beamPages = tr && tr.type === 'kv-transfer' ? tr.pagesWritten : 0;
        frame.beamProgress = p;
        break;
      }
      case 'transfer':
        if (e.type === 'kv-transfer') {
          frame.pagesWritten += e.pagesWritten;
          frame.beamPages = e.pagesWritten;
        }
        frame.beamProgress = 1;
        break;
      case 'prefill-free':
        frame.beamPages = 0;
        break;
      case 'done':
        frame.beamPages = 0;
        if (e.type === 'transfer-done') frame.message = { room: e.room, status: e.status, progress: p };
        break;
      case 'check-failed':
        frame.message = null;
        if (e.type === 'decode-check-failed') frame.checkFailed = e;
        break;
      case 'scan':
        frame.message = null;
        frame.beamPages = 0;
        frame.scanned = Math.round(reserved.length * p);
        break;
      case 'stream': {
        frame.scanned = reserved.length;
        // One token after another, each a decode step over the whole block table.
        const shown = o.tokenCount === 0 ? 0 : Math.min(o.tokenCount, Math.floor(p * o.tokenCount) + (p > 0 ? 1 : 0));
        frame.tokensShown = p >= 1 ? o.tokenCount : shown;
        frame.activeToken = p < 1 && shown > 0 ? shown - 1 : null;
        break;
      }
      case 'response':
        if (e.type === 'response') frame.status = e.status;
        frame.statusProgress = p;
        frame.activeToken = null;
        break;
      case 'free':
        frame.freed = true;
        if (e.type === 'decode-free' && e.cleared) frame.cleared = true;
        frame.activeToken = null;
        break;
      case 'reuse':
      case 'decode-wait':
      case 'prefill-wait':
        break;
    }
  }
  // The status is known to the client only once it has arrived.
  if (frame.step === 'response' && frame.statusProgress < 1) frame.status = null;
  if (frame.step === 'reject' && frame.statusProgress < 1) frame.status = null;
  return frame;
}
