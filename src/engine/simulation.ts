/**
 * The cluster and the request lifecycle of SGLang's prefill/decode split (shared/design/
 * sglang-pd-mechanics.md), as a discrete-event simulation in simulated milliseconds.
 *
 * Nothing here knows what a leak is. A response is whatever the decode model computes from the
 * pages in its block table; the detectors look at it afterwards. The two defects and the
 * mitigations change only *control flow* (what is rejected, how much is computed and copied, what
 * decode checks), never what the model reads.
 */
import { buildDecodeModel, cleanContext, generate, generateOverPrompt, type CyclicPrompt, type DecodeModel, type GeneratedToken, type KvContext } from './attention.ts';
import { CLIP_MAX_NEW_TOKENS, DeploymentRefused, configProblems, decodeAdmissionLimit, decodeInputLimit, decodeStepCount, pagesFor, poolTokens, prefillInputLimit, tokenizerRefusal, type EngineConfig } from './config.ts';
import { toRanges, type EngineEvent } from './events.ts';
import { Fnv64 } from './hash.ts';
import { KvPool, NO_REQUEST } from './kvPool.ts';
import { Prng } from './core/prng.ts';
import { LEAK_SHARE_THRESHOLD, TransformerDecoder, describeCompressed, type AnswerKv, type ModelDescription, type TokenAttention, type TransformerToken } from './transformerDecoder.ts';
import type { TransformerWeights } from './model/transformer.ts';
import { poolRules, type PoolRules } from './switches.ts';
import type { Trace, TraceRequest } from './trace.ts';
import { MAX_VOCABULARY, SPECIAL_TOKEN_COUNT, TOKEN_BOS, TOKEN_PLACEHOLDER, TOPICS, Vocabulary, canaryWord, splitWords, tenantCorpus, traceTexts, vocabularyOverflow, type TenantProfile } from './core/vocab.ts';

/** 499: the client went away before an answer (a cancellation in the trace). */
export type Status = 200 | 400 | 499 | 500;

export interface ProvenanceEntry {
  node: string;
  page: number;
  /** Position in the request's context, block-table order: the slot is `slot % pageSize` of `page`. */
  slot: number;
  writerRequest: number;
  /** Tenant name, or null for zero-filled / cleared memory. */
  writerTenant: string | null;
  probability: number;
  foreignShare: number;
  /** Under the transformer: where the token's attention went, by writer tenant and page (transformerDecoder.ts). */
  attention?: TokenAttention;
}

export interface ResponseRecord {
  request: number;
  id: string;
  tenant: string;
  arrivedAt: number;
  finishedAt: number;
  promptTokens: number;
  /** Tokens prefill actually computed: N, 1 on the buggy reject path, 0 for a request refused before prefill. */
  computedTokens: number;
  status: Status;
  reason: string | null;
  /** Which check refused a 400, or null. */
  rejectedBy: RejectStage | null;
  text: string;
  tokens: number[];
  provenance: ProvenanceEntry[];
  /** What the model outputs over this prompt alone (null when the request was not served). */
  expectedText: string | null;
  correct: boolean | null;
  /** Provenance audit: other tenants whose KV an output token drew on most. */
  leakedFrom: string[];
  /** Canary scan: other tenants' canary markers in the response text. */
  canaryHits: string[];
  pagesReserved: number;
  pagesWritten: number;
  /** Pages decode read that hold an earlier request's KV (written, but not for this request in this handoff). */
  pagesReadStale: number;
  /** Pages decode read that were never written since start-up, or were cleared: zeros, nobody's data. */
  pagesReadZero: number;
  /**
   * Slots decode read (within the sequence length) that another request wrote, by that request's
   * tenant, in trace order of tenants; the requester's own tenant appears when it re-read its own
   * leftovers. Ground truth from the slot writers at read time; empty when decode read only its own KV.
   */
  staleSlotsByTenant: [tenant: string, slots: number][];
  /** Slots decode read that hold zeros (never written, or cleared). */
  zeroSlotsRead: number;
  /** Some of the block table's pages slot by slot (only with the `slotSamples` option; see SlotSample). */
  slots?: SlotSample;
}

/**
 * A few pages of a request's decode block table, slot by slot, for the views' microscope: the first
 * pages as the reservation found them (what earlier requests left there) and, at decode's read, those
 * pages again plus each page an output token drew on most. A record of memory as the engine holds it,
 * taken after the fact; nothing reads it back.
 */
export interface SlotSample {
  pageSize: number;
  /** Block-table positions sampled, ascending, and the page id at each. */
  positions: number[];
  pages: number[];
  /** Per sampled page, `pageSize` slots: the word's token id (V) and the request that wrote it (−1: zeros). */
  tokens: Uint16Array;
  writers: Int32Array;
  /** The first `before.count` sampled pages as the reservation left them, before any transfer. */
  before: { count: number; tokens: Uint16Array; writers: Int32Array };
}

/** Block-table pages a slot sample always holds from the start of the table. */
export const SLOT_SAMPLE_FIRST_PAGES = 4;
/** At most this many further pages: those output tokens drew on most, in block-table order (one an output token at most). */
export const SLOT_SAMPLE_DREW_ON_PAGES = 32;
/** Traces up to this many requests keep every request's sample; longer ones only those that read stale or zero pages. */
export const SLOT_SAMPLE_EVERY_REQUEST_UP_TO = 2000;

type RejectStage = 'tokenizer' | 'admission' | 'decode-admission';

interface RequestState {
  index: number;
  spec: TraceRequest;
  id: string;
  /** What the prompt is cut from (its own text, or its tenant's document) and where it starts. */
  source: Uint16Array;
  start: number;
  tenant: number;
  prompt: number;
  outputTokens: number;
  /** What prefill computes: the prompt, or the one placeholder token after an abort. */
  computeTokens: number;
  aborted: boolean;
  prefillNode: number;
  decodeNode: number;
  room: number;
  handoff: number;
  /** The pages decode holds for the request; null once it lets go of them. */
  decodePages: Int32Array | null;
  /** The destination page ids prefill was sent (`dst_kv_indices`): where its writes land, held or not. */
  dstPages: Int32Array | null;
  prefillPages: Int32Array | null;
  /** Pages of the prompt already sent to decode (chunked prefill sends them chunk by chunk). */
  pagesSent: number;
  /** When the request's last scheduled transfer lands (transfers of one request go one after another). */
  transferFreeAt: number;
  /** The client went away and decode aborted the request. */
  cancelled: boolean;
  /** Prefill heard of the abort: it computes and sends nothing more. */
  prefillStopped: boolean;
  /** Prefill is done with the request (sent everything, retired it, or stopped). */
  prefillFinished: boolean;
  /** Decode pre-allocated pages for it (a 400 or a cancellation in the queue never did). */
  reserved: boolean;
  /** The bootstrap handshake with prefill is done: decode may pre-allocate (SGLang's `waiting_for_input`). */
  waitingForInput: boolean;
  /** When decode read its block table and started generating (its running batch's steps count from it); -1 before. */
  decodeReadAt: number;
  /** The answer's tokens, whose KV decode steps write after the prompt; null until decode read. */
  generated: number[] | null;
  /** Decode steps the request runs (`decodeStepCount`): step j writes the j-th output token's KV at prompt + j − 1. */
  decodeSteps: number;
  /** Under the transformer: the K/V those steps computed, written into the slots as the steps reach them. */
  answerKv: AnswerKv | null;
  pagesWritten: number;
  pagesReadStale: number;
  pagesReadZero: number;
  /** The last token prefill computed: the prompt's last, or the placeholder. Decode's first query. */
  lastComputed: number;
  /**
   * With shortcuts, the whole answer as the model computes it over the prompt alone (slots not yet
   * mapped to pages): what decode outputs if it reads exactly the prompt.
   */
  promptOutput: GeneratedToken[] | null;
  /** Under the transformer: the first output token, as prefill computed it. */
  prefillFirst: { token: number; probability: number } | null;
  /** Slots decode read that this request did not write, by the writer's tenant index (last: zeros). */
  staleSlots: Int32Array | null;
  /** With the slotSamples option: the slot sample being taken (first pages at reservation, the rest at the read). */
  slots: SlotSample | null;
  finished: boolean;
}

type Scheduled =
  | { kind: 'arrive'; req: number }
  | { kind: 'prefill-admit'; req: number }
  | { kind: 'prefill-done'; req: number }
  | { kind: 'transfer-done'; req: number }
  | { kind: 'decode-done'; req: number; tokens: ProvenanceEntryWithToken[] }
  | { kind: 'decode-handshake'; req: number }
  | { kind: 'decode-grow'; req: number; step: number }
  | { kind: 'prefill-chunk'; req: number; chunk: number }
  | { kind: 'chunk-sent'; req: number; from: number; to: number }
  | { kind: 'decode-poll'; req: number; status: 'Success' | 'Failed' }
  | { kind: 'cancel'; req: number }
  | { kind: 'abort-notice'; req: number }
  | { kind: 'abort-ack'; req: number };

/** What a scheduled step is about to do, as `SimulationOptions.beforeStep` sees it. */
export type StepKind = Scheduled['kind'];
export interface UpcomingStep {
  t: number;
  kind: StepKind;
  req: number;
}

type ProvenanceEntryWithToken = ProvenanceEntry & { token: number };

interface QueueItem {
  t: number;
  seq: number;
  what: Scheduled;
}

/** Binary min-heap on (time, insertion order): equal times run in the order they were scheduled. */
class EventQueue {
  private heap: QueueItem[] = [];
  private seq = 0;

  get size(): number {
    return this.heap.length;
  }

  peekTime(): number {
    return this.heap[0]?.t ?? Infinity;
  }

  push(t: number, what: Scheduled): void {
    const item = { t, seq: this.seq++, what };
    const h = this.heap;
    h.push(item);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!less(h[i]!, h[parent]!)) break;
      [h[i], h[parent]] = [h[parent]!, h[i]!];
      i = parent;
    }
  }

  pop(): QueueItem | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && less(h[l]!, h[m]!)) m = l;
        if (r < h.length && less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}

/**
 * Thrown when a run ends (its event queue is empty) with requests that never got a response: an
 * engine invariant, never a silent end. Names each stranded request and where it waited.
 */
export class UnansweredRequests extends Error {
  constructor(readonly unanswered: { id: string; tenant: string; promptTokens: number; waiting: string }[], readonly total: number) {
    const shown = unanswered.slice(0, 10).map((u) => `${u.id} (tenant ${u.tenant}, ${u.promptTokens.toLocaleString('en-US')} tokens; ${u.waiting})`);
    const more = unanswered.length > shown.length ? `, and ${unanswered.length - shown.length} more` : '';
    super(`run ended with ${unanswered.length} of ${total} requests unanswered: ${shown.join(', ')}${more}`);
    this.name = 'UnansweredRequests';
  }
}

function less(a: QueueItem, b: QueueItem): boolean {
  return a.t < b.t || (a.t === b.t && a.seq < b.seq);
}


/** Pages per decode summary segment: 64 pages of 64 tokens group ~50 times fewer entries than slots in the incident replay. */
export const DEFAULT_SUMMARY_PAGES = 64;

export interface SimulationOptions {
  /** Keep every event object (the views need them); the hash is computed either way. */
  keepEvents?: boolean;
  /** Compute each served response's expected output over its own prompt (the integrity audit). */
  audit?: boolean;
  onEvent?: (event: EngineEvent) => void;
  /**
   * Where a context holds exactly the request's own prompt (prefill's pages; decode pages all written
   * for this request in this handoff), compute the output from the prompt's period instead of
   * re-scanning every slot, and skip the audit (it would decode the same context). Provably the same
   * result; tests run traces both ways and compare every response. Default true.
   */
  shortcuts?: boolean;
  /**
   * Decode counts what it reads from grouped summaries of aligned runs of this many pages
   * (kvPool.ts `PoolSummaries`) where its block table holds such a run whole; 0 visits every slot,
   * the reference path. The same responses and event log either way (property tests). Default 64.
   */
  summaryPages?: number;
  /** Keep every ResponseRecord in `responses` (default true); a long replay harvests them through onResponse. */
  keepResponses?: boolean;
  onResponse?: (response: ResponseRecord) => void;
  /** Keep a slot sample of each decoded request's block table in its response (`ResponseRecord.slots`). */
  slotSamples?: boolean;
  /**
   * Called between events: after the clock has moved to the next scheduled step and before that step
   * runs. Tests use it to change pool memory or metadata at an instant (zero the KV, scramble writer
   * tags, take pages away) and see what the engine then does; the engine never looks at what it did.
   */
  beforeStep?: (sim: Simulation, next: UpcomingStep) => void;
  /**
   * Decode with this trained transformer instead of the compressed model: its per-layer K and V
   * fill the pages (model/). Prefill costs O(prompt²), so for runs of thousands of tokens.
   */
  transformer?: TransformerWeights | null;
  /** Under the transformer, also report each output token's foreign share per layer and head. */
  attentionPerHead?: boolean;
}

/**
 * The integrity breach: a request answered 200 from memory it did not write, a page of its block
 * table holding another request's KV (its own tenant's included) or zeros, whatever the words turn
 * out to be. A wrong text is counted apart (`correct === false`): the two differ when stale memory
 * happens to give the right words, or an aborted request re-reads its own tenant's leftovers.
 */
export function answeredFromForeignMemory(r: Pick<ResponseRecord, 'status' | 'pagesReadStale' | 'pagesReadZero'>): boolean {
  return r.status === 200 && r.pagesReadStale + r.pagesReadZero > 0;
}

export interface Counters {
  requests: number;
  statusCounts: Record<string, number>;
  rejected: number;
  served: number;
  errors: number;
  leaked: number;
  canaryLeaks: number;
  /** Answered 200 from memory the request did not write (`answeredFromForeignMemory`): the integrity breach. */
  integrityBreaches: number;
  /** Answered 200 with a text other than the model's over the prompt alone (the audit): wrong texts. */
  wrongOutputs: number;
  pagesReserved: number;
  pagesWritten: number;
  pagesReadStale: number;
  pagesReadZero: number;
}

export class Simulation {
  readonly config: EngineConfig;
  readonly trace: Trace;
  readonly vocab: Vocabulary;
  readonly model: DecodeModel;
  readonly prefillPools: KvPool[];
  readonly decodePools: KvPool[];
  readonly tenantNames: string[];
  /** Tenant index of each request, by request index (what the writer classifier reads). */
  readonly requestTenant: Int32Array;
  readonly responses: ResponseRecord[] = [];
  readonly events: EngineEvent[] = [];
  now = 0;

  private readonly corpora: Uint16Array[];
  /** Token id of each tenant's canary marker, by tenant index. */
  private readonly canaryIds: number[];
  private readonly requests: RequestState[];
  private readonly queue = new EventQueue();
  private readonly decodeWaiting: number[][];
  /** Per decode node: requests holding its pages (running, in transfer, waiting: SGLang's `n_active`). */
  private readonly decodeHolding: number[];
  /** Per decode node: its running batch, the requests decoding (in the order they joined). */
  private readonly decodeRunning: Set<number>[];
  private readonly prefillWaiting: number[][];
  private readonly blockedLogged = new Set<string>();
  private readonly hash = new Fnv64();
  private readonly options: SimulationOptions;
  private readonly inputLimit: number;
  private readonly decodeInputLimit: number;
  private eventCount = 0;
  private answered = 0;
  private readonly tally = { statusCounts: {} as Record<string, number>, leaked: 0, canaryLeaks: 0, integrityBreaches: 0, wrongOutputs: 0, pagesReserved: 0, pagesWritten: 0, pagesReadStale: 0, pagesReadZero: 0 };
  private handoffSerial = 0;
  private routeCounter = 0;
  /** What the pools do to a page when it is handed out or freed (the mitigations' pool rules). */
  private readonly rules: PoolRules;
  /** The trained transformer's decoder, or null: the compressed model (attention.ts) decodes. */
  readonly decoder: TransformerDecoder | null;

  constructor(config: EngineConfig, trace: Trace, options: SimulationOptions = {}) {
    const problems = configProblems(config);
    if (problems.length > 0) throw new Error(`invalid engine config: ${problems.join('; ')}`);
    const prefillHolds = poolTokens(config.prefillCapacityTokens, config.pageSize);
    if (config.mitigations.deploymentCapacityCheck && config.advertisedContextTokens > prefillHolds) {
      throw new DeploymentRefused(config.advertisedContextTokens, prefillHolds);
    }
    this.config = config;
    this.trace = trace;
    this.options = { keepEvents: true, audit: true, shortcuts: true, summaryPages: DEFAULT_SUMMARY_PAGES, keepResponses: true, ...options };
    this.inputLimit = prefillInputLimit(config);
    this.decodeInputLimit = decodeInputLimit(config);
    this.rules = poolRules(config.mitigations);

    this.tenantNames = trace.tenants.map((t) => t.name);
    const tenantIndex = new Map(this.tenantNames.map((n, i) => [n, i]));
    if (tenantIndex.size !== this.tenantNames.length) {
      const twice = this.tenantNames.find((n, i) => this.tenantNames.indexOf(n) !== i)!;
      throw new Error(`trace: tenant ${JSON.stringify(twice)} is listed twice; tenant names must be unique`);
    }
    const texts = traceTexts(trace);
    const overflow = vocabularyOverflow(this.tenantNames, texts);
    if (overflow) throw new Error(`trace: ${overflow.field} takes the vocabulary past the decode model's ${MAX_VOCABULARY.toLocaleString('en-US')} words (the trace needs ${overflow.size.toLocaleString('en-US')})`);
    // Under the transformer, every word it knows is a word of the run (it may say any of them).
    const modelWords = this.options.transformer?.words.slice(SPECIAL_TOKEN_COUNT) ?? [];
    this.vocab = new Vocabulary(this.tenantNames, [...texts.flatMap((t) => splitWords(t.text)), ...modelWords]);
    this.model = buildDecodeModel(this.vocab.size, config.model);
    this.canaryIds = this.tenantNames.map((n) => this.vocab.id(canaryWord(n)));
    this.corpora = trace.tenants.map((t, i) => {
      const profile: TenantProfile = { name: t.name, topic: t.topic ?? TOPICS[i % TOPICS.length]!, canary: t.canary ?? true, canaryAtMentions: t.canaryAtMentions ?? false };
      return tenantCorpus(this.vocab, profile, config.seed, 2048, t.text);
    });

    this.prefillPools = Array.from({ length: config.prefillNodes }, (_, i) => new KvPool('prefill', i, config.prefillCapacityTokens, config.pageSize, 0, config.freeListPolicy));
    this.decodePools = Array.from({ length: config.decodeNodes }, (_, i) => new KvPool('decode', i, config.decodeCapacityTokens, config.pageSize, this.options.summaryPages, config.freeListPolicy));
    this.decoder = this.options.transformer ? new TransformerDecoder(this.options.transformer, this.vocab) : null;
    if (this.decoder) {
      this.decoder.perHead = this.options.attentionPerHead === true;
      for (const pool of [...this.prefillPools, ...this.decodePools]) this.decoder.attach(pool);
    }
    this.decodeWaiting = this.decodePools.map(() => []);
    this.decodeHolding = this.decodePools.map(() => 0);
    this.decodeRunning = this.decodePools.map(() => new Set<number>());
    this.prefillWaiting = this.prefillPools.map(() => []);

    const offsets = new Prng(`${config.seed}:offsets`);
    const rooms = new Prng(`${config.seed}:rooms`);
    this.requestTenant = new Int32Array(trace.requests.length);
    this.requests = trace.requests.map((spec, index) => {
      const tenant = tenantIndex.get(spec.tenant);
      if (tenant === undefined) throw new Error(`trace: request ${spec.id ?? index} names unknown tenant ${JSON.stringify(spec.tenant)}`);
      this.requestTenant[index] = tenant;
      const offset = offsets.int(1 << 30);
      const room = rooms.int(2 ** 31);
      const source = spec.text !== undefined ? this.vocab.encode(spec.text) : this.corpora[tenant]!;
      const resolved = spec.offset === undefined ? { ...spec, offset } : spec;
      return {
        index,
        spec: resolved,
        id: spec.id ?? `r${index}`,
        source,
        start: (resolved.offset ?? 0) % source.length,
        tenant,
        prompt: spec.promptTokens,
        outputTokens: spec.outputTokens ?? config.outputTokens,
        computeTokens: spec.promptTokens,
        aborted: false,
        prefillNode: 0,
        decodeNode: 0,
        room,
        handoff: -1,
        decodePages: null,
        dstPages: null,
        prefillPages: null,
        pagesSent: 0,
        transferFreeAt: 0,
        cancelled: false,
        prefillStopped: false,
        prefillFinished: false,
        reserved: false,
        waitingForInput: false,
        decodeReadAt: -1,
        generated: null,
        decodeSteps: 0,
        answerKv: null,
        pagesWritten: 0,
        pagesReadStale: 0,
        pagesReadZero: 0,
        lastComputed: TOKEN_BOS,
        promptOutput: null,
        prefillFirst: null,
        staleSlots: null,
        slots: null,
        finished: false,
      };
    });
    this.requests.forEach((r) => this.queue.push(r.spec.at, { kind: 'arrive', req: r.index }));
    // Only traces with cancellations schedule them, so other runs' logs are as they were.
    this.requests.forEach((r) => {
      if (r.spec.cancelAt !== undefined) this.queue.push(r.spec.cancelAt, { kind: 'cancel', req: r.index });
    });
  }

  /** The prompt's tokens: its own text, or a slice of its tenant's document, cycled to length. */
  promptTokens(req: number, length?: number): Uint16Array {
    const r = this.requests[req]!;
    const n = length ?? r.prompt;
    const source = r.source;
    const out = new Uint16Array(n);
    let filled = 0;
    let from = r.start;
    while (filled < n) {
      const chunk = Math.min(n - filled, source.length - from);
      out.set(source.subarray(from, from + chunk), filled);
      filled += chunk;
      from = 0;
    }
    return out;
  }

  /** The request's prompt as prefill writes it, without materialising it. */
  promptSource(req: number): CyclicPrompt {
    const r = this.requests[req]!;
    return { source: r.source, start: r.start, length: r.prompt, previous: TOKEN_BOS };
  }

  private lastPromptToken(r: RequestState): number {
    return r.source[(r.start + r.prompt - 1) % r.source.length]!;
  }

  get done(): boolean {
    return this.queue.size === 0;
  }

  get nextEventTime(): number {
    return this.queue.peekTime();
  }

  get eventLogHash(): string {
    return this.hash.hex();
  }

  get eventsEmitted(): number {
    return this.eventCount;
  }

  /** Runs every scheduled step up to and including simulated time `t`. */
  runUntil(t: number): void {
    while (this.queue.size > 0 && this.queue.peekTime() <= t) this.step();
  }

  run(): this {
    while (this.queue.size > 0) this.step();
    return this;
  }

  /**
   * Runs the next scheduled step; returns false when nothing is left. The step that empties the queue
   * checks that every request was answered, and throws UnansweredRequests if not.
   */
  step(): boolean {
    const item = this.queue.pop();
    if (!item) {
      this.checkAnswered();
      return false;
    }
    this.now = item.t;
    const what = item.what;
    if (this.options.beforeStep) {
      this.options.beforeStep(this, { t: item.t, kind: what.kind, req: what.req });
      // It may have written slots directly, in either node kind.
      for (const pool of this.prefillPools) pool.slotsWrittenOutside();
      for (const pool of this.decodePools) pool.slotsWrittenOutside();
    }
    switch (what.kind) {
      case 'arrive':
        this.arrive(what.req);
        break;
      case 'prefill-admit': {
        const r = this.requests[what.req]!;
        // Prefill already heard the request was aborted: it never queues it.
        if (r.prefillStopped) break;
        this.prefillWaiting[r.prefillNode]!.push(what.req);
        this.drainPrefill(r.prefillNode);
        break;
      }
      case 'prefill-done':
        this.prefillDone(what.req);
        break;
      case 'transfer-done':
        this.transferDone(what.req);
        break;
      case 'decode-done':
        this.decodeDone(what.req, what.tokens);
        break;
      case 'decode-handshake': {
        const r = this.requests[what.req]!;
        if (r.finished) break;
        r.waitingForInput = true;
        this.drainDecode(r.decodeNode);
        break;
      }
      case 'decode-grow':
        this.decodeGrow(what.req, what.step);
        break;
      case 'prefill-chunk':
        this.prefillChunk(what.req, what.chunk);
        break;
      case 'chunk-sent':
        this.chunkSent(what.req, what.from, what.to);
        break;
      case 'decode-poll':
        this.decodeNotices(this.requests[what.req]!, what.status);
        break;
      case 'cancel':
        this.cancel(what.req);
        break;
      case 'abort-notice':
        this.prefillHearsAbort(what.req);
        break;
      case 'abort-ack':
        this.abortAcknowledged(what.req);
        break;
    }
    if (this.queue.size === 0) this.checkAnswered();
    return true;
  }

  private checkAnswered(): void {
    if (this.answered === this.requests.length) return;
    const stranded = this.requests.filter((r) => !r.finished).map((r) => {
      const decodeAt = this.decodeWaiting.findIndex((q) => q.includes(r.index));
      const prefillAt = this.prefillWaiting.findIndex((q) => q.includes(r.index));
      const need = (tokens: number) => pagesFor(tokens, this.config.pageSize).toLocaleString('en-US');
      const waiting =
        decodeAt >= 0
          ? `queued for decode-${decodeAt} pages: needs ${need(r.prompt)} of ${this.decodePools[decodeAt]!.usablePages.toLocaleString('en-US')}, ${this.decodePools[decodeAt]!.freePages.toLocaleString('en-US')} free`
          : prefillAt >= 0
            ? `queued for prefill-${prefillAt} pages: needs ${need(r.computeTokens)} of ${this.prefillPools[prefillAt]!.usablePages.toLocaleString('en-US')}, ${this.prefillPools[prefillAt]!.freePages.toLocaleString('en-US')} free`
            : 'in flight with nothing scheduled';
      return { id: r.id, tenant: this.tenantNames[r.tenant]!, promptTokens: r.prompt, waiting };
    });
    throw new UnansweredRequests(stranded, this.requests.length);
  }

  private emit(event: EngineEvent): void {
    this.eventCount++;
    this.hash.update(JSON.stringify(event)).update('\n');
    if (this.options.keepEvents) this.events.push(event);
    this.options.onEvent?.(event);
  }

  private fmt(n: number): string {
    return n.toLocaleString('en-US');
  }

  private arrive(req: number): void {
    const r = this.requests[req]!;
    const c = this.config;
    this.emit({ t: this.now, type: 'arrive', req, tenant: this.tenantNames[r.tenant]!, tokens: r.prompt });

    // The tokenizer checks only the advertised context length (by the default rule or upstream's; the article never mentions a tokenizer).
    const maxNew = r.spec.maxNewTokens === undefined ? r.outputTokens : r.spec.maxNewTokens;
    const refusal = tokenizerRefusal(c, r.prompt, maxNew);
    if (refusal !== null) return this.reject(r, 'tokenizer', refusal);
    // The decode server checks the same request against its own context and limit (its own
    // tokenizer and scheduler); by the report's rule with one context this adds nothing.
    if (r.prompt > this.decodeInputLimit) {
      return this.reject(r, 'decode-admission', `prompt of ${this.fmt(r.prompt)} tokens is over the decode server's own input limit of ${this.fmt(this.decodeInputLimit)} tokens`);
    }
    r.prefillNode = this.routeCounter % c.prefillNodes;
    r.decodeNode = this.routeCounter % c.decodeNodes;
    this.routeCounter++;

    if (r.prompt > this.inputLimit) {
      if (c.rejectPath === 'fixed') {
        // Retired at admission on both sides: no handshake, reservation, compute or transfer.
        return this.reject(
          r,
          'admission',
          `prompt of ${this.fmt(r.prompt)} tokens exceeds the prefill KV cache limit of ${this.fmt(this.inputLimit)} tokens ` +
            `(advertised context ${this.fmt(c.advertisedContextTokens)} tokens)`,
        );
      }
      // Buggy: marked aborted, input replaced by one placeholder token "to skip the long prefill",
      // yet still queued. Decode is not told.
      r.aborted = true;
      r.computeTokens = 1;
      this.emit({ t: this.now, type: 'abort-marked', req, placeholderTokens: 1, pendingStatus: 400 });
    }
    this.emit({ t: this.now, type: 'route', req, prefill: r.prefillNode, decode: r.decodeNode, room: r.room });

    // Decode admission checks its own pool, with the full prompt length.
    const decodePool = this.decodePools[r.decodeNode]!;
    if (pagesFor(r.prompt, c.pageSize) > decodePool.usablePages) {
      return this.reject(r, 'decode-admission', `prompt of ${this.fmt(r.prompt)} tokens exceeds decode node ${r.decodeNode}'s KV pool of ${this.fmt(decodePool.usablePages * c.pageSize)} tokens`);
    }
    // SGLang's budget would never admit it (prompt + reserved decode tokens over the whole pool) and
    // leave it queued for ever; the engine refuses it instead (docs/MODEL.md, where the engine differs).
    if (r.prompt > decodeAdmissionLimit(c, r.outputTokens)) {
      return this.reject(
        r,
        'decode-admission',
        `prompt of ${this.fmt(r.prompt)} tokens plus ${this.fmt(c.reservedDecodeTokens)} reserved decode tokens exceeds decode node ${r.decodeNode}'s KV pool of ${this.fmt(decodePool.usablePages * c.pageSize)} tokens`,
      );
    }
    // Queued for pre-allocation; decode pre-allocates only once the bootstrap handshake is done.
    this.decodeWaiting[r.decodeNode]!.push(req);
    this.queue.push(this.now + c.timing.handshakeMs, { kind: 'decode-handshake', req });
  }

  private reject(r: RequestState, stage: RejectStage, reason: string): void {
    this.emit({ t: this.now, type: 'reject', req: r.index, status: 400, stage, reason });
    this.finish(r, 400, reason, [], stage);
  }

  /**
   * Decode pre-allocation (`DecodePreallocQueue.pop_preallocated`): in queue order, past requests
   * whose handshake is not done yet; it stops at the first request the request table or the
   * admission budget cannot take (`admissionBudget`), which then blocks those behind it.
   */
  private drainDecode(node: number): void {
    const queue = this.decodeWaiting[node]!;
    const pool = this.decodePools[node]!;
    const c = this.config;
    for (let i = 0; i < queue.length; ) {
      const r = this.requests[queue[i]!]!;
      if (!r.waitingForInput) {
        i++;
        continue;
      }
      const need = pagesFor(r.prompt, c.pageSize);
      const rowsFull = this.decodeHolding[node]! >= c.decodeRequestRows;
      const budget = this.admissionBudget(node);
      const required = Math.max(r.prompt + c.reservedDecodeTokens, r.prompt + Math.min(r.outputTokens, CLIP_MAX_NEW_TOKENS) - budget.retractable);
      const pages = rowsFull || required > budget.tokens ? null : pool.allocate(need, r.index, this.rules.zeroOnAllocate, r.prompt);
      if (!pages) {
        const key = `d${node}:${r.index}`;
        if (!this.blockedLogged.has(key)) {
          this.blockedLogged.add(key);
          this.emit({ t: this.now, type: 'decode-wait', req: r.index, node, needPages: need, freePages: pool.freePages });
        }
        return;
      }
      queue.splice(i, 1);
      this.decodeHolding[node]!++;
      r.decodePages = pages;
      r.dstPages = pages;
      r.reserved = true;
      r.handoff = this.handoffSerial++;
      this.emit({ t: this.now, type: 'decode-reserve', req: r.index, node, pages: toRanges(pages), pageCount: need, ...this.clearedOnAllocate() });
      if (this.options.slotSamples) r.slots = sampleAtReservation(pool, pages);
      // Destination page ids go to prefill over the control channel; then prefill admission.
      this.queue.push(this.now + this.config.timing.handshakeMs, { kind: 'prefill-admit', req: r.index });
    }
  }

  /**
   * SGLang's admission budget in tokens (`_allocatable_token_budgets`): the free pool less the larger
   * of `reservedDecodeTokens` for every request decode holds and the room the longest running
   * request may still need; and the running batch's tokens (`retractable_tokens`).
   */
  private admissionBudget(node: number): { tokens: number; retractable: number } {
    const c = this.config;
    let retractable = 0;
    let longest = 0;
    for (const req of this.decodeRunning[node]!) {
      const r = this.requests[req]!;
      retractable += r.prompt + this.outputSoFar(r);
      longest = Math.max(longest, r.prompt + Math.min(r.outputTokens, CLIP_MAX_NEW_TOKENS));
    }
    const single = this.decodeRunning[node]!.size > 0 ? longest - retractable : 0;
    const available = this.decodePools[node]!.freePages * c.pageSize;
    return { tokens: available - Math.max(c.reservedDecodeTokens * this.decodeHolding[node]!, single), retractable };
  }

  /** Output tokens a running request has so far: the first (prefill's) and one per decode step since its read. */
  private outputSoFar(r: RequestState): number {
    return Math.min(r.outputTokens, 1 + Math.floor((this.now - r.decodeReadAt) / this.config.timing.decodeMsPerToken));
  }

  private drainPrefill(node: number): void {
    const queue = this.prefillWaiting[node]!;
    const pool = this.prefillPools[node]!;
    while (queue.length > 0) {
      const r = this.requests[queue[0]!]!;
      const need = pagesFor(r.computeTokens, this.config.pageSize);
      const pages = pool.allocate(need, r.index, this.rules.zeroOnAllocate);
      if (!pages) {
        const key = `p${node}:${r.index}`;
        if (!this.blockedLogged.has(key)) {
          this.blockedLogged.add(key);
          this.emit({ t: this.now, type: 'prefill-wait', req: r.index, node, needPages: need, freePages: pool.freePages });
        }
        return;
      }
      queue.shift();
      r.prefillPages = pages;
      this.emit({ t: this.now, type: 'prefill-alloc', req: r.index, node, pages: toRanges(pages), computeTokens: r.computeTokens, ...this.clearedOnAllocate() });
      const chunk = this.config.prefillChunkTokens;
      if (chunk > 0 && r.computeTokens > chunk) {
        // Chunked prefill; the one-token placeholder never gets here (it is never chunked).
        this.queue.push(this.now + this.computeMs(chunk), { kind: 'prefill-chunk', req: r.index, chunk: 0 });
      } else {
        this.queue.push(this.now + this.computeMs(r.computeTokens), { kind: 'prefill-done', req: r.index });
      }
    }
  }

  private computeMs(tokens: number): number {
    return (tokens / this.config.timing.prefillTokensPerSecond) * 1000;
  }

  private transferMs(pages: number): number {
    return ((pages * this.config.pageSize) / this.config.timing.transferTokensPerSecond) * 1000;
  }

  /**
   * One chunk of chunked prefill: compute prompt tokens [from, to) into the prefill pages, then send
   * the chunk's whole pages (a non-final chunk's end is rounded down to a page boundary; the last
   * chunk sends the partial page). Transfers of one request land in order.
   */
  private prefillChunk(req: number, chunk: number): void {
    const r = this.requests[req]!;
    if (r.prefillStopped) return;
    const c = this.config;
    const size = c.prefillChunkTokens;
    const chunks = Math.ceil(r.prompt / size);
    const from = chunk * size;
    const to = Math.min(from + size, r.prompt);
    const pool = this.prefillPools[r.prefillNode]!;
    const pages = r.prefillPages!;
    // Write from the start of the page the chunk starts in: the slots before `from` get the same
    // KV again, so the page's slots are exactly the prompt's up to `to`.
    const firstPage = Math.floor(from / c.pageSize);
    const at = firstPage * c.pageSize;
    const previous = at === 0 ? TOKEN_BOS : r.source[(r.start + at - 1) % r.source.length]!;
    pool.writePrompt(pages.subarray(firstPage), r.source, (r.start + at) % r.source.length, to - at, previous, req, r.handoff, this.now);
    if (this.decoder) r.prefillFirst = this.decoder.prefill(pool, pages, this.promptTokens(req, to), at);
    this.emit({ t: this.now, type: 'prefill-chunk', req, node: r.prefillNode, chunk: chunk + 1, chunks, from, to });
    if (to === r.prompt) {
      this.prefillDone(req, true);
      return;
    }
    const sendTo = Math.floor(to / c.pageSize);
    if (sendTo > r.pagesSent) this.scheduleTransfer(r, { kind: 'chunk-sent', req, from: r.pagesSent, to: sendTo }, sendTo - r.pagesSent);
    r.pagesSent = sendTo;
    this.queue.push(this.now + this.computeMs(Math.min(size, r.prompt - to)), { kind: 'prefill-chunk', req, chunk: chunk + 1 });
  }

  /** Schedules a transfer of `pages` pages after the request's earlier transfers. */
  private scheduleTransfer(r: RequestState, what: Scheduled, pages: number): void {
    const at = Math.max(this.now, r.transferFreeAt) + this.transferMs(pages);
    r.transferFreeAt = at;
    this.queue.push(at, what);
  }

  /** A non-final chunk's pages land in decode (wherever decode's block table now is). */
  private chunkSent(req: number, from: number, to: number): void {
    const r = this.requests[req]!;
    // Prefill heard of the abort: it sends nothing more (it stopped its pending transfers too).
    if (r.prefillStopped) return;
    const src = r.prefillPages!.subarray(from, to);
    const dst = r.dstPages!.subarray(from, to);
    KvPool.copyPages(this.prefillPools[r.prefillNode]!, src, this.decodePools[r.decodeNode]!, dst, req, r.handoff, this.now);
    r.pagesWritten += to - from;
    this.emit({ t: this.now, type: 'kv-transfer', req, from: r.prefillNode, to: r.decodeNode, srcPages: toRanges(src), dstPages: toRanges(dst), pagesWritten: to - from, ...this.lateMark(r) });
  }

  /** The `late` mark of a KV write whose destination decode no longer holds for this request. */
  private lateMark(r: RequestState): { late?: true } {
    return r.decodePages === null ? { late: true } : {};
  }

  private prefillDone(req: number, chunked = false): void {
    const r = this.requests[req]!;
    if (r.prefillStopped) return;
    const pool = this.prefillPools[r.prefillNode]!;
    // Prefill computes the first output token from what it computed, and sends it in its metadata
    // (the event logs it). Decode re-decides it over its block table (see decodeStart, docs/MODEL.md).
    let first: GeneratedToken;
    if (this.decoder) {
      // The real model: prefill runs the forward pass over what it computes and writes each
      // layer's K and V into its pages; its first token is the answer's first (as in SGLang).
      const tokens = r.aborted ? Uint16Array.of(TOKEN_PLACEHOLDER) : this.promptTokens(req);
      if (r.aborted) pool.writeTokens(r.prefillPages!, tokens, TOKEN_BOS, req, r.handoff, this.now);
      else if (!chunked) pool.writePrompt(r.prefillPages!, r.source, r.start, r.prompt, TOKEN_BOS, req, r.handoff, this.now);
      if (!chunked || r.aborted) r.prefillFirst = this.decoder.prefill(pool, r.prefillPages!, tokens, 0);
      r.lastComputed = tokens[tokens.length - 1]!;
      first = { token: r.prefillFirst!.token, probability: r.prefillFirst!.probability, slot: -1, page: -1, writer: -1, foreignShare: 0 };
    } else if (r.aborted) {
      const tokens = Uint16Array.of(TOKEN_PLACEHOLDER);
      pool.writeTokens(r.prefillPages!, tokens, TOKEN_BOS, req, r.handoff, this.now);
      r.lastComputed = TOKEN_PLACEHOLDER;
      const prefillContext: KvContext = { ...poolSlots(pool), blockTable: r.prefillPages!, seqLen: tokens.length };
      first = generate(this.model, prefillContext, this.classifier(r), { query: r.lastComputed, steps: 1 })[0]!;
    } else {
      if (!chunked) pool.writePrompt(r.prefillPages!, r.source, r.start, r.prompt, TOKEN_BOS, req, r.handoff, this.now);
      r.lastComputed = this.lastPromptToken(r);
      const prefillContext: KvContext = { ...poolSlots(pool), blockTable: r.prefillPages!, seqLen: r.prompt };
      const opts = { query: r.lastComputed, steps: 1 };
      if (this.options.shortcuts) {
        // One count of the prompt serves prefill's first token and, if decode reads exactly the
        // prompt, the whole answer: the steps depend only on the counts, the query and the history.
        const all = generateOverPrompt(this.model, this.promptSource(req), null, { ...opts, steps: r.outputTokens });
        first = redescribe(all[0]!, prefillContext);
        r.promptOutput = all;
      } else {
        first = generate(this.model, prefillContext, this.classifier(r), opts)[0]!;
      }
    }
    this.emit({ t: this.now, type: 'prefill-compute', req, node: r.prefillNode, tokens: r.computeTokens, firstToken: first.token, ...(chunked ? { chunked: true as const } : {}) });
    if (r.aborted && this.config.mitigations.retireWithoutSend) return this.retire(r);
    const pagesToSend = r.prefillPages!.length - r.pagesSent;
    if (chunked) return this.scheduleTransfer(r, { kind: 'transfer-done', req }, pagesToSend);
    const ms = this.transferMs(pagesToSend);
    r.transferFreeAt = this.now + ms;
    this.queue.push(this.now + ms, { kind: 'transfer-done', req });
  }

  /**
   * PR #36988: the aborted request's placeholder was computed; prefill retires the result without any
   * KV send, frees its pages and reports Failed. Decode, on the Failed poll, frees what it reserved and
   * answers 500 (the mechanics note; A14 says what we chose where it is silent).
   */
  private retire(r: RequestState): void {
    const src = this.prefillPools[r.prefillNode]!;
    this.emit({ t: this.now, type: 'prefill-retire', req: r.index, node: r.prefillNode });
    const clear = this.rules.zeroOnFree;
    const pages = r.prefillPages!;
    src.free(pages, clear);
    this.emit({ t: this.now, type: 'prefill-free', req: r.index, node: r.prefillNode, pages: toRanges(pages), cleared: clear });
    r.prefillPages = null;
    r.prefillFinished = true;
    this.drainPrefill(r.prefillNode);
    this.emit({ t: this.now, type: 'transfer-done', req: r.index, room: r.room, status: 'Failed' });
    this.afterDone(r, 'Failed');
  }

  /** Decode notices the done message at once, or at its next poll. */
  private afterDone(r: RequestState, status: 'Success' | 'Failed'): void {
    const poll = this.config.timing.decodePollMs ?? 0;
    if (poll > 0) this.queue.push(this.now + poll, { kind: 'decode-poll', req: r.index, status });
    else this.decodeNotices(r, status);
  }

  /** What decode does with a done message: start decoding, fail, or let an aborted request's pages go. */
  private decodeNotices(r: RequestState, status: 'Success' | 'Failed'): void {
    if (r.cancelled) {
      // Aborted: nobody waits for the answer. Fenced, decode held the pages until now.
      if (r.decodePages) this.releaseDecode(r);
      return;
    }
    if (status === 'Failed') {
      this.releaseDecode(r);
      return this.finish(r, 500, 'prefill reported Failed: the request was retired without a KV send', []);
    }
    this.decodeStart(r);
  }

  private transferDone(req: number): void {
    const r = this.requests[req]!;
    if (r.prefillStopped) return;
    const src = this.prefillPools[r.prefillNode]!;
    const dst = this.decodePools[r.decodeNode]!;
    const allPages = r.prefillPages!;
    // Whole pages, one-sided, into the destinations decode named (held or not). Prefill sends what it
    // computed and has not sent yet.
    const srcPages = allPages.subarray(r.pagesSent);
    const dstPages = r.dstPages!.subarray(r.pagesSent, allPages.length);
    KvPool.copyPages(src, srcPages, dst, dstPages, req, r.handoff, this.now);
    r.pagesWritten += srcPages.length;
    r.pagesSent = allPages.length;
    this.emit({ t: this.now, type: 'kv-transfer', req, from: r.prefillNode, to: r.decodeNode, srcPages: toRanges(srcPages), dstPages: toRanges(dstPages), pagesWritten: srcPages.length, ...this.lateMark(r) });
    const clear = this.rules.zeroOnFree;
    src.free(allPages, clear);
    this.emit({ t: this.now, type: 'prefill-free', req, node: r.prefillNode, pages: toRanges(allPages), cleared: clear });
    r.prefillPages = null;
    r.prefillFinished = true;
    this.drainPrefill(r.prefillNode);
    // "Done" carries only (room, status). Every page of the computed input was sent, so: Success.
    this.emit({ t: this.now, type: 'transfer-done', req, room: r.room, status: 'Success' });
    this.afterDone(r, 'Success');
  }

  /**
   * The client went away. Decode aborts the request and answers 499 wherever it is; pages it holds
   * are freed at once, or (fence) kept until prefill confirms it writes no more. Prefill hears of it
   * `abortNoticeMs` later.
   */
  private cancel(req: number): void {
    const r = this.requests[req]!;
    if (r.finished) return;
    const fenced = this.config.mitigations.fenceLateWrites === true;
    const queued = this.decodeWaiting[r.decodeNode]!.indexOf(req);
    r.cancelled = true;
    if (queued >= 0) {
      this.emit({ t: this.now, type: 'client-cancel', req, node: r.decodeNode, stage: 'queued', fenced });
      this.decodeWaiting[r.decodeNode]!.splice(queued, 1);
      this.finish(r, 499, 'the client went away', []);
      this.drainDecode(r.decodeNode);
      return;
    }
    const decoding = r.prefillFinished;
    this.emit({ t: this.now, type: 'client-cancel', req, node: r.decodeNode, stage: decoding ? 'decoding' : 'in-flight', fenced });
    this.finish(r, 499, 'the client went away', []);
    // Once prefill has sent everything, no write can come late: decode lets the pages go at once.
    if (decoding || !fenced) this.releaseDecode(r);
    if (!decoding) this.queue.push(this.now + (this.config.timing.abortNoticeMs ?? 0), { kind: 'abort-notice', req });
  }

  /** Prefill hears of a decode-side abort: it drops the request, or stops computing and sending. */
  private prefillHearsAbort(req: number): void {
    const r = this.requests[req]!;
    const node = r.prefillNode;
    const waiting = this.prefillWaiting[node]!.indexOf(req);
    if (r.prefillFinished) {
      this.emit({ t: this.now, type: 'prefill-sees-abort', req, node, what: 'finished' });
      return;
    }
    r.prefillStopped = true;
    r.prefillFinished = true;
    if (waiting >= 0) this.prefillWaiting[node]!.splice(waiting, 1);
    if (r.prefillPages) {
      this.emit({ t: this.now, type: 'prefill-sees-abort', req, node, what: 'stopped' });
      const clear = this.rules.zeroOnFree;
      const pages = r.prefillPages;
      // It stops computing and cancels the transfers it has not completed.
      this.prefillPools[node]!.free(pages, clear);
      this.emit({ t: this.now, type: 'prefill-free', req, node, pages: toRanges(pages), cleared: clear });
      r.prefillPages = null;
    } else {
      this.emit({ t: this.now, type: 'prefill-sees-abort', req, node, what: 'dropped' });
    }
    this.drainPrefill(node);
    // Fenced: prefill confirms it writes no more; decode lets the pages go when the confirmation arrives.
    if (r.decodePages) this.queue.push(this.now + (this.config.timing.abortNoticeMs ?? 0), { kind: 'abort-ack', req });
  }

  private abortAcknowledged(req: number): void {
    const r = this.requests[req]!;
    if (r.decodePages) this.releaseDecode(r);
  }

  private decodeStart(r: RequestState): void {
    const c = this.config;
    const pool = this.decodePools[r.decodeNode]!;
    const pages = r.decodePages!;
    let stale = 0;
    let zero = 0;
    let firstUnwritten = -1;
    for (let i = 0; i < pages.length; i++) {
      const p = pages[i]!;
      if (pool.pageWrittenFor[p] !== r.index || pool.pageWriteHandoff[p] !== r.handoff) {
        if (pool.pageWrittenFor[p] === NO_REQUEST) zero++;
        else stale++;
        if (firstUnwritten < 0) firstUnwritten = p;
      }
    }
    const unwritten = stale + zero;
    if (c.mitigations.transferredLengthCheck && r.pagesWritten !== pages.length) {
      return this.failClosed(r, 'transferred-length', `decode reserved ${this.fmt(pages.length)} pages but ${this.fmt(r.pagesWritten)} were written`);
    }
    if (c.mitigations.perReadIntegrityCheck && unwritten > 0) {
      return this.failClosed(r, 'per-read-integrity', `page ${firstUnwritten} of decode node ${r.decodeNode} was not written for this request in this handoff (${this.fmt(unwritten)} such pages)`);
    }
    // Decode trusts its block table: sequence length is the full prompt, over every reserved page.
    r.pagesReadStale = stale;
    r.pagesReadZero = zero;
    // Every output token, the first included, is a decode step over the whole block table; the first
    // step's query is the last token prefill computed (docs/MODEL.md says why the first is not prefill's).
    const ctx: KvContext = { ...poolSlots(pool), blockTable: pages, seqLen: r.prompt, summaries: pool.summaries };
    let out: GeneratedToken[];
    if (this.decoder) {
      if (unwritten > 0) r.staleSlots = this.slotsReadBy(r, pool, pages);
      const read = this.decoder.decode(pool, pages, r.prompt, r.prefillFirst!, r.outputTokens, { requestTenant: this.requestTenant, tenant: r.tenant, tenantNames: this.tenantNames }, decodeStepCount(c, r.outputTokens));
      r.answerKv = read.kv;
      return this.decodeRead(r, pool, pages, stale, zero, read.tokens.map((t) => this.transformerProvenance(r, t, pool)));
    } else if (unwritten === 0 && r.promptOutput) {
      out = r.promptOutput.map((t) => redescribe(t, ctx));
    } else {
      // Ground truth of what decode read besides this request's own KV: the slots another request
      // wrote, by that request's tenant (the requester's own included), zeros last, from the slot
      // writers as the read finds them (told by the model's counting pass, so no second pass).
      const zeroAt = this.tenantNames.length;
      const counts = new Int32Array(zeroAt + 1);
      const requestTenant = this.requestTenant;
      const onSlots = (writer: number, slots: number) => {
        if (writer !== r.index) counts[writer < 0 ? zeroAt : requestTenant[writer]!]! += slots;
      };
      out = generate(this.model, ctx, { ...this.classifier(r), onSlots }, { query: r.lastComputed, steps: r.outputTokens });
      if (unwritten > 0) r.staleSlots = counts;
    }
    r.promptOutput = null;
    this.decodeRead(r, pool, pages, stale, zero, out.map((t) => this.provenance(t, pool)));
  }

  /** Decode read its block table and computed `tokens`: the read's event, then the answer after its steps. */
  private decodeRead(r: RequestState, pool: KvPool, pages: Int32Array, stale: number, zero: number, tokens: ProvenanceEntryWithToken[]): void {
    const c = this.config;
    const pageCount = pages.length;
    if (r.slots) sampleAtRead(r.slots, pool, pages, tokens);
    const foreign = new Set<string>();
    for (const t of tokens) if (t.writerTenant !== null && t.writerTenant !== this.tenantNames[r.tenant]) foreign.add(t.writerTenant);
    const ps = c.pageSize;
    r.decodeSteps = decodeStepCount(c, r.outputTokens);
    const inLastPage = Math.max(0, Math.min(r.decodeSteps, pageCount * ps - r.prompt));
    this.emit({ t: this.now, type: 'decode-read', req: r.index, node: r.decodeNode, seqLen: r.prompt, pageCount, stalePages: stale, zeroPages: zero, foreignTenants: [...foreign].sort(), answerSlots: inLastPage });
    this.decodeRunning[r.decodeNode]!.add(r.index);
    r.decodeReadAt = this.now;
    r.generated = tokens.map((t) => t.token);
    // Each decode step writes the KV of the token before it after the prompt: step j the j-th
    // output token's, at position prompt + j − 1, in the slot `alloc_decode` gives it: the next slot
    // of the last page (`last_loc + 1`) while that page has one, else the first of a new page.
    // Under SGLang's default overlap scheduler a request of T tokens runs T steps, so its last
    // token's KV is written too; T − 1 with `disableOverlapSchedule`. Those in the last prompt
    // page's free slots land now (the page is the request's until it frees it); a step whose
    // position starts a page takes one then.
    if (inLastPage > 0) this.writeAnswer(r, pool, pages[pageCount - 1]!, r.prompt - (pageCount - 1) * ps, 0, inLastPage);
    for (let j = 1; j <= r.decodeSteps; j++) {
      if ((r.prompt + j - 1) % ps === 0) this.queue.push(this.now + j * c.timing.decodeMsPerToken, { kind: 'decode-grow', req: r.index, step: j });
    }
    const ms = r.outputTokens * c.timing.decodeMsPerToken;
    this.queue.push(this.now + ms, { kind: 'decode-done', req: r.index, tokens });
  }

  /**
   * Decode step `step` of a running request starts a page: it takes one (SGLang's `alloc_decode`,
   * the running batch's size deciding the merge) and writes there the KV of the output tokens that
   * fall in it. The page is the request's until it is freed with the rest, and holds its words after.
   */
  private decodeGrow(req: number, step: number): void {
    const r = this.requests[req]!;
    if (r.cancelled || r.decodePages === null) return;
    const node = r.decodeNode;
    const pool = this.decodePools[node]!;
    const got = pool.allocateDecode(this.decodeRunning[node]!.size, [req], this.rules.zeroOnAllocate);
    if (!got) throw new Error(`decode node ${node} has no free page for a decode step of ${r.id} (its admission budget keeps ${this.config.reservedDecodeTokens} tokens a request for this)`);
    const page = got[0]!;
    const grown = new Int32Array(r.decodePages.length + 1);
    grown.set(r.decodePages);
    grown[r.decodePages.length] = page;
    r.decodePages = grown;
    const count = Math.min(this.config.pageSize, r.decodeSteps - (step - 1));
    if (count > 0) {
      this.writeAnswer(r, pool, page, 0, step - 1, count);
      pool.markWritten(page, req, r.handoff, this.now);
    }
    this.emit({ t: this.now, type: 'decode-grow', req, node, page, tokens: count, ...this.clearedOnAllocate() });
  }

  /**
   * Decode steps' writes: the KV of output tokens [from, from + count) at slots offset… of `page`
   * (SGLang's `set_kv_buffer` at `out_cache_loc`), as the request: the token ids (the compressed
   * model's KV) and, under the transformer, each layer's key and value the steps computed. A later
   * request given the page reads them as it reads a prompt's.
   */
  private writeAnswer(r: RequestState, pool: KvPool, page: number, offset: number, from: number, count: number): void {
    const generated = r.generated!;
    pool.writeSlots(page, offset, generated.slice(from, from + count), from === 0 ? r.lastComputed : generated[from - 1]!, r.index);
    const kv = r.answerKv;
    if (kv && pool.tensors) {
      const d = pool.tensors.dim;
      const base = page * pool.pageSize + offset;
      for (let u = 0; u < count && from + u < kv.count; u++) {
        const t = from + u;
        for (let l = 0; l < pool.tensors.layers; l++) pool.tensors.writeSlot(l, base + u, kv.keys[l]!.subarray(t * d, t * d + d), kv.values[l]!.subarray(t * d, t * d + d));
      }
    }
  }

  /** Slots of the block table another request wrote, by its tenant (zeros last): ground truth of what decode read. */
  private slotsReadBy(r: RequestState, pool: KvPool, pages: Int32Array): Int32Array {
    const zeroAt = this.tenantNames.length;
    const counts = new Int32Array(zeroAt + 1);
    const ps = pool.pageSize;
    for (let i = 0; i < r.prompt; i++) {
      const writer = pool.slotWriter[pages[Math.floor(i / ps)]! * ps + (i % ps)]!;
      if (writer !== r.index) counts[writer < 0 ? zeroAt : this.requestTenant[writer]!]!++;
    }
    return counts;
  }

  /**
   * A transformer token's provenance: when other tenants' pages together carried at least
   * LEAK_SHARE_THRESHOLD of its attention, the writer named is the other tenant that carried the
   * most (as the compressed model names the writer its token drew on most); else the requester's own
   * (or zero memory's, when it carried the most). Memory mixed from several tenants leaks even when
   * none of them alone carries half. The page and slot are the single slot that carried most.
   */
  private transformerProvenance(r: RequestState, t: TransformerToken, pool: KvPool): ProvenanceEntryWithToken {
    const own = this.tenantNames[r.tenant]!;
    const [top] = t.attention.tenants[0] ?? [own, 1];
    const foreignTop = t.attention.tenants.find(([name]) => name !== null && name !== own);
    const writerTenant = foreignTop && t.foreignShare >= LEAK_SHARE_THRESHOLD ? foreignTop[0] : top === null ? null : own;
    return {
      token: t.token,
      node: pool.name,
      page: t.page,
      slot: t.slot,
      writerRequest: t.writer,
      writerTenant,
      probability: t.probability,
      foreignShare: t.foreignShare,
      attention: t.attention,
    };
  }

  private provenance(t: GeneratedToken, pool: KvPool): ProvenanceEntryWithToken {
    return {
      token: t.token,
      node: pool.name,
      page: t.page,
      slot: t.slot,
      writerRequest: t.writer,
      writerTenant: t.writer >= 0 ? this.tenantNames[this.requestTenant[t.writer]!]! : null,
      probability: t.probability,
      foreignShare: t.foreignShare,
    };
  }

  private failClosed(r: RequestState, check: 'transferred-length' | 'per-read-integrity', reason: string): void {
    if (r.slots) sampleAtRead(r.slots, this.decodePools[r.decodeNode]!, r.decodePages!, []);
    this.emit({ t: this.now, type: 'decode-check-failed', req: r.index, node: r.decodeNode, check, reason });
    this.releaseDecode(r);
    this.finish(r, 500, `${check} check failed: ${reason}`, []);
  }

  private decodeDone(req: number, tokens: ProvenanceEntryWithToken[]): void {
    const r = this.requests[req]!;
    // The client went away while decode ran: it was answered 499 and its pages freed then.
    if (r.cancelled) return;
    this.releaseDecode(r);
    // The pending 400 of an aborted request was overwritten by a normal finish (F17): 200.
    this.finish(r, 200, null, tokens);
  }

  private releaseDecode(r: RequestState): void {
    const pool = this.decodePools[r.decodeNode]!;
    this.decodeHolding[r.decodeNode]!--;
    this.decodeRunning[r.decodeNode]!.delete(r.index);
    const clear = this.rules.zeroOnFree;
    pool.free(r.decodePages!, clear);
    r.answerKv = null;
    this.emit({ t: this.now, type: 'decode-free', req: r.index, node: r.decodeNode, pages: toRanges(r.decodePages!), cleared: clear });
    r.decodePages = null;
    this.drainDecode(r.decodeNode);
  }

  /** The `cleared` mark of a reservation, present only under the zero-on-allocate rule. */
  private clearedOnAllocate(): { cleared?: true } {
    return this.rules.zeroOnAllocate ? { cleared: true } : {};
  }

  private classifier(r: RequestState) {
    return { requestTenant: this.requestTenant, tenant: r.tenant };
  }

  private finish(r: RequestState, status: Status, reason: string | null, tokens: ProvenanceEntryWithToken[], rejectedBy: RejectStage | null = null): void {
    if (r.finished) throw new Error(`request ${r.id} answered twice`);
    r.finished = true;
    this.answered++;
    const tenant = this.tenantNames[r.tenant]!;
    const provenance: ProvenanceEntry[] = tokens.map(({ token: _token, ...p }) => p);
    const ids = tokens.map((t) => t.token);
    const text = this.vocab.decode(ids);
    const leakedFrom = [...new Set(provenance.map((p) => p.writerTenant).filter((n): n is string => n !== null && n !== tenant))].sort();
    const canaryHits = this.tenantNames.filter((name, k) => k !== r.tenant && ids.includes(this.canaryIds[k]!));
    let expectedText: string | null = null;
    let correct: boolean | null = null;
    if (status === 200 && this.options.audit) {
      let expectedIds: number[];
      if (this.decoder) {
        const clean = this.options.shortcuts && r.pagesReadStale === 0 && r.pagesReadZero === 0 && !r.aborted;
        expectedIds = clean ? ids : this.decoder.expected(this.promptTokens(r.index), r.outputTokens);
      } else if (this.options.shortcuts && r.pagesReadStale === 0 && r.pagesReadZero === 0 && !r.aborted) {
        // Decode read exactly this prompt, freshly written: the audit would decode the same context.
        expectedIds = ids;
      } else if (this.options.shortcuts) {
        expectedIds = generateOverPrompt(this.model, this.promptSource(r.index), null, { query: this.lastPromptToken(r), steps: r.outputTokens }).map((t) => t.token);
      } else {
        const prompt = this.promptTokens(r.index);
        expectedIds = generate(this.model, cleanContext(prompt, TOKEN_BOS, r.index), this.classifier(r), { query: prompt[prompt.length - 1]!, steps: r.outputTokens }).map((t) => t.token);
      }
      expectedText = this.vocab.decode(expectedIds);
      correct = expectedIds.length === ids.length && expectedIds.every((t, i) => t === ids[i]);
    }
    const record: ResponseRecord = {
      request: r.index,
      id: r.id,
      tenant,
      arrivedAt: r.spec.at,
      finishedAt: this.now,
      promptTokens: r.prompt,
      // A refused request never reached prefill, whatever its input was set to.
      computedTokens: rejectedBy !== null ? 0 : r.computeTokens,
      status,
      reason,
      rejectedBy,
      text,
      tokens: ids,
      provenance,
      expectedText,
      correct,
      leakedFrom,
      canaryHits,
      pagesReserved: r.reserved ? pagesFor(r.prompt, this.config.pageSize) : 0,
      pagesWritten: r.pagesWritten,
      pagesReadStale: r.pagesReadStale,
      pagesReadZero: r.pagesReadZero,
      staleSlotsByTenant: [],
      zeroSlotsRead: 0,
    };
    // A long replay keeps the samples of requests that read memory they did not write (the ones a
    // viewer looks at slot by slot), a short one every request's.
    if (r.slots && (this.requests.length <= SLOT_SAMPLE_EVERY_REQUEST_UP_TO || r.pagesReadStale + r.pagesReadZero > 0 || r.aborted)) record.slots = r.slots;
    r.slots = null;
    if (r.staleSlots) {
      const counts = r.staleSlots;
      for (let k = 0; k < this.tenantNames.length; k++) if (counts[k]! > 0) record.staleSlotsByTenant.push([this.tenantNames[k]!, counts[k]!]);
      record.zeroSlotsRead = counts[this.tenantNames.length]!;
      r.staleSlots = null;
    }
    if (this.options.keepResponses) this.responses.push(record);
    const tally = this.tally;
    tally.statusCounts[status] = (tally.statusCounts[status] ?? 0) + 1;
    if (leakedFrom.length > 0) tally.leaked++;
    if (canaryHits.length > 0) tally.canaryLeaks++;
    if (answeredFromForeignMemory(record)) tally.integrityBreaches++;
    if (status === 200 && correct === false) tally.wrongOutputs++;
    tally.pagesReserved += record.pagesReserved;
    tally.pagesWritten += record.pagesWritten;
    tally.pagesReadStale += record.pagesReadStale;
    tally.pagesReadZero += record.pagesReadZero;
    this.options.onResponse?.(record);
    this.emit({ t: this.now, type: 'response', req: r.index, status, leaked: leakedFrom.length > 0, correct });
  }

  counters(): Counters {
    const t = this.tally;
    const statusCounts = { ...t.statusCounts };
    return {
      requests: this.requests.length,
      statusCounts,
      rejected: statusCounts['400'] ?? 0,
      served: statusCounts['200'] ?? 0,
      errors: statusCounts['500'] ?? 0,
      leaked: t.leaked,
      canaryLeaks: t.canaryLeaks,
      integrityBreaches: t.integrityBreaches,
      wrongOutputs: t.wrongOutputs,
      pagesReserved: t.pagesReserved,
      pagesWritten: t.pagesWritten,
      pagesReadStale: t.pagesReadStale,
      pagesReadZero: t.pagesReadZero,
    };
  }

  /** The model that turned pages into text in this run. */
  get modelDescription(): ModelDescription {
    return this.decoder ? this.decoder.description : describeCompressed(this.model);
  }

  /** Bytes of KV memory (typed arrays) held by every node. */
  memoryByNode(): { node: string; bytes: number; pages: number }[] {
    return [...this.prefillPools, ...this.decodePools].map((p) => ({ node: p.name, bytes: p.byteSize, pages: p.pageCount }));
  }
}

/** Maps a token's logical slot to its page and writer in `ctx` (as generate does when it runs over ctx). */
function redescribe(t: GeneratedToken, ctx: KvContext): GeneratedToken {
  if (t.slot < 0) return { ...t, page: -1, writer: -1 };
  const page = ctx.blockTable[Math.floor(t.slot / ctx.pageSize)]!;
  return { ...t, page, writer: ctx.slotWriter[page * ctx.pageSize + (t.slot % ctx.pageSize)]! };
}

function poolSlots(pool: KvPool) {
  return { keyTokens: pool.keyTokens, valueTokens: pool.valueTokens, slotWriter: pool.slotWriter, pageSize: pool.pageSize };
}

export { NO_REQUEST };

/** Runs a trace to the end and returns the simulation (its responses, counters and hash). */
/** The words and writers of `pages`' slots, one page after another. */
function copySlots(pool: KvPool, pages: readonly number[]): { tokens: Uint16Array; writers: Int32Array } {
  const ps = pool.pageSize;
  const tokens = new Uint16Array(pages.length * ps);
  const writers = new Int32Array(pages.length * ps);
  pages.forEach((page, k) => {
    tokens.set(pool.valueTokens.subarray(page * ps, (page + 1) * ps), k * ps);
    writers.set(pool.slotWriter.subarray(page * ps, (page + 1) * ps), k * ps);
  });
  return { tokens, writers };
}

/** The first pages of a block table as its reservation left them (cleared, under zero-on-allocate). */
function sampleAtReservation(pool: KvPool, blockTable: Int32Array): SlotSample {
  const count = Math.min(SLOT_SAMPLE_FIRST_PAGES, blockTable.length);
  const positions = Array.from({ length: count }, (_, i) => i);
  const pages = positions.map((i) => blockTable[i]!);
  const before = copySlots(pool, pages);
  return { pageSize: pool.pageSize, positions, pages, tokens: before.tokens.slice(), writers: before.writers.slice(), before: { count, ...before } };
}

/** At decode's read: the first pages again (a transfer may have written them), and the pages output tokens drew on most. */
function sampleAtRead(sample: SlotSample, pool: KvPool, blockTable: Int32Array, drewOn: readonly { page: number }[]): void {
  const wanted = new Set(drewOn.map((t) => t.page));
  const extra: number[] = [];
  for (let i = sample.before.count; i < blockTable.length && extra.length < SLOT_SAMPLE_DREW_ON_PAGES && wanted.size > 0; i++) {
    if (wanted.delete(blockTable[i]!)) extra.push(i);
  }
  sample.positions = [...sample.positions.slice(0, sample.before.count), ...extra];
  sample.pages = sample.positions.map((i) => blockTable[i]!);
  const now = copySlots(pool, sample.pages);
  sample.tokens = now.tokens;
  sample.writers = now.writers;
}

export function simulate(config: EngineConfig, trace: Trace, options?: SimulationOptions): Simulation {
  return new Simulation(config, trace, options).run();
}
