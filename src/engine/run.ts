/**
 * The one run path: a scenario (a trace, the deployments that serve it one after another, and the
 * windows in which a gateway refuses requests before they reach SGLang) run through the engine,
 * with every request's outcome in typed columns, every decode read, the leaks the detectors found,
 * and one page timeline per deployment for seeking. The demo, the outcome matrix's trace, a custom
 * trace and the 27 Aug – 9 Sep incident window all run here, in Node, a Worker or a page alike.
 *
 * Nothing here decides whether a response leaks: each deployment is an ordinary Simulation, and
 * leaks are what its provenance audit and canary scan find.
 */
import { DeploymentRefused, prefillInputLimit, type EngineConfig } from './config.ts';
import type { EngineEvent } from './events.ts';
import { NO_REQUEST } from './kvPool.ts';
import { PageOpMapper, PageRecorder, PageSeeker, newPageArrays, nodeLayouts, pageTimelineBuffers, type NodeLayout, type PageArrays, type PageTimelineData } from './pages.ts';
import type { DecoderKind, ModelDescription } from './transformerDecoder.ts';
import type { TransformerWeights } from './model/transformer.ts';
import { DEFAULT_SUMMARY_PAGES, Simulation, answeredFromForeignMemory, type Counters, type ResponseRecord } from './simulation.ts';
import type { Trace } from './trace.ts';

/** Request flags: one vocabulary for the engine, the worker and the views. */
export const FLAG_LEAK_PROVENANCE = 1;
export const FLAG_LEAK_CANARY = 2;
/** Prefill computed one placeholder token instead of the prompt (the buggy reject path). */
export const FLAG_ABORTED = 4;
/** Answered 200, but not what the model answers over the prompt alone (the integrity audit). */
export const FLAG_WRONG_OUTPUT = 8;
/** Longer than the serving deployment's prefill input limit. */
export const FLAG_OVER_LIMIT = 16;
/** Answered 200 from memory the request did not write (`answeredFromForeignMemory`): the integrity breach. */
export const FLAG_INTEGRITY_BREACH = 32;

/** Phase of a request refused at a gateway window (it never reached a deployment). */
export const GATEWAY_PHASE = 255;

/** One deployment of a run: it serves the requests that arrive in [from, to). */
export interface RunPhase {
  name: string;
  config: EngineConfig;
  from: number;
  to: number;
}

/** Requests arriving in [from, to) are answered `status` at the gateway, at once. */
export interface GatewayWindow {
  name: string;
  from: number;
  to: number;
  status: number;
}

export interface RunSpec {
  name: string;
  trace: Trace;
  /** Epoch ms of simulated time 0 (UTC), for display. */
  startEpochMs: number;
  phases: RunPhase[];
  gateway?: GatewayWindow[];
  /** Who sent each request (the incident's sender kinds); all 0 when absent. */
  kinds?: Uint8Array;
  /** End of the window the views show; default: the last thing that happens. */
  endMs?: number;
  /** The decoder that turns pages into text (transformerDecoder.ts); default the compressed model. */
  decoder?: DecoderKind;
}

/** One row per request of the trace, in trace order. */
export interface RequestTable {
  count: number;
  arrivedAt: Float64Array;
  /** When the response went out (= arrival for gateway refusals). */
  finishedAt: Float64Array;
  status: Uint16Array;
  tenant: Uint16Array;
  promptTokens: Int32Array;
  /** Tokens prefill computed: the prompt, 1 on the buggy reject path, 0 when never computed. */
  computedTokens: Int32Array;
  kind: Uint8Array;
  /** Index of the serving phase, GATEWAY_PHASE for gateway refusals. */
  phase: Uint8Array;
  flags: Uint8Array;
  /** Decode node (index among the phase's decode nodes), −1 when never routed. */
  decodeNode: Int8Array;
  pagesReserved: Int32Array;
  pagesWritten: Int32Array;
  pagesReadStale: Int32Array;
}

/** One row per decode read (every served request reads its block table once). */
export interface ReadTable {
  count: number;
  t: Float64Array;
  req: Int32Array;
  phase: Uint8Array;
  node: Int8Array;
  pages: Int32Array;
  /** Pages not written for this request: another request's leftovers, or zero-filled. */
  stalePages: Int32Array;
  /** Of those, pages last written by another tenant's request. */
  foreignPages: Int32Array;
  zeroPages: Int32Array;
  /** 1 when the output drew on another tenant's KV (the decode-read event's foreignTenants). */
  outputCrossed: Uint8Array;
}

export interface LeakRecord {
  request: number;
  id: string;
  tenant: string;
  kind: number;
  arrivedAt: number;
  finishedAt: number;
  promptTokens: number;
  status: number;
  /** Provenance audit: tenants whose KV output tokens drew on most. */
  dataOf: string[];
  /** Canary scan: other tenants' markers in the text. */
  canaries: string[];
  text: string;
  stalePages: number;
  foreignPages: number;
  zeroPages: number;
  pagesReserved: number;
  /** Slots decode read that another request wrote, by that request's tenant (ResponseRecord's). */
  staleSlotsByTenant: [tenant: string, slots: number][];
  zeroSlotsRead: number;
  /** Per output token, the tenant whose KV it drew on most (null: zero memory). */
  tokenWriters: (string | null)[];
}

/** One request's handoff as the engine logged it, and its response; request ids are global. */
export interface RequestDetails {
  events: EngineEvent[][];
  responses: (ResponseRecord | undefined)[];
  /** Vocabulary of the deployment that served each request's phase (token id → word). */
  words: string[];
}

export interface PhaseResult {
  name: string;
  from: number;
  to: number;
  nodes: NodeLayout[];
  pageSize: number;
  prefillLimit: number;
  /** The deployment capacity check's refusal, when it refused this deployment. */
  refused: string | null;
  eventLogHash: string;
  events: number;
  /** Page history for seeking (null when not recorded or refused). */
  timeline: PageTimelineData | null;
}

export interface RunResult {
  name: string;
  startEpochMs: number;
  endMs: number;
  tenantNames: string[];
  requestIds: string[];
  requests: RequestTable;
  reads: ReadTable;
  /** Leaked responses, by finish time. */
  leaks: LeakRecord[];
  phases: PhaseResult[];
  gateway: GatewayWindow[];
  /** The first refusal: a refused deployment serves nothing, and the run stops there. */
  refused: string | null;
  details: RequestDetails | null;
  /** The decoder that turned pages into text (the views label its output with it). */
  decoder: DecoderKind;
  /** Its description (null when no deployment served: a refused run). */
  model: ModelDescription | null;
}

export interface RunProgress {
  fraction: number;
  simulatedT: number;
  phase: string;
}

export interface RunOptions {
  /** Record page timelines for seeking (default true). */
  record?: boolean;
  /** The integrity audit (default true). */
  audit?: boolean;
  /** Engine shortcuts (default true); tests turn them off to check they change nothing. */
  shortcuts?: boolean;
  /** Pages per decode summary segment (default 64; 0: decode visits every slot, the reference path). */
  summaryPages?: number;
  /** Keep every request's events and response (default false). */
  keepDetails?: boolean;
  onProgress?: (p: RunProgress) => void;
  /** Simulated ms between progress reports (default 1 hour). */
  progressEveryMs?: number;
  /** The trained transformer's weights, for a spec whose decoder is `transformer` (required there). */
  transformer?: TransformerWeights;
}

class ReadRows {
  count = 0;
  t: number[] = [];
  req: number[] = [];
  phase: number[] = [];
  node: number[] = [];
  pages: number[] = [];
  stale: number[] = [];
  foreign: number[] = [];
  zero: number[] = [];
  crossed: number[] = [];

  table(): ReadTable {
    return {
      count: this.count,
      t: Float64Array.from(this.t),
      req: Int32Array.from(this.req),
      phase: Uint8Array.from(this.phase),
      node: Int8Array.from(this.node),
      pages: Int32Array.from(this.pages),
      stalePages: Int32Array.from(this.stale),
      foreignPages: Int32Array.from(this.foreign),
      zeroPages: Int32Array.from(this.zero),
      outputCrossed: Uint8Array.from(this.crossed),
    };
  }
}

interface Harvest {
  table: RequestTable;
  reads: ReadRows;
  leaks: LeakRecord[];
  requestIds: string[];
  details: RequestDetails | null;
}

function newRequestTable(trace: Trace, kinds: Uint8Array | undefined): RequestTable {
  const n = trace.requests.length;
  const tenantIndex = new Map(trace.tenants.map((t, i) => [t.name, i]));
  return {
    count: n,
    arrivedAt: Float64Array.from(trace.requests, (r) => r.at),
    finishedAt: new Float64Array(n).fill(NaN),
    status: new Uint16Array(n),
    tenant: Uint16Array.from(trace.requests, (r) => tenantIndex.get(r.tenant) ?? 0),
    promptTokens: Int32Array.from(trace.requests, (r) => r.promptTokens),
    computedTokens: new Int32Array(n),
    kind: kinds ? kinds.slice() : new Uint8Array(n),
    phase: new Uint8Array(n),
    flags: new Uint8Array(n),
    decodeNode: new Int8Array(n).fill(-1),
    pagesReserved: new Int32Array(n),
    pagesWritten: new Int32Array(n),
    pagesReadStale: new Int32Array(n),
  };
}

/**
 * Runs one deployment over its share of the trace, mapping the engine's events onto the page model
 * (global request ids) and harvesting responses as they come.
 */
function runPhase(index: number, phase: RunPhase, base: Trace, globalIndex: number[], out: Harvest, o: RunOptions, endEstimate: number, transformer: TransformerWeights | null, model: { description: ModelDescription | null }): PhaseResult {
  const { config } = phase;
  const trace: Trace = { ...base, requests: globalIndex.map((g) => base.requests[g]!) };
  const nodes = nodeLayouts(config);
  const result: PhaseResult = {
    name: phase.name,
    from: phase.from,
    to: phase.to,
    nodes,
    pageSize: config.pageSize,
    prefillLimit: prefillInputLimit(config),
    refused: null,
    eventLogHash: '',
    events: 0,
    timeline: null,
  };
  let sim: Simulation;
  const record = o.record ?? true;
  const recorder = new PageRecorder(nodes, phase.from, record);
  const prefillCount = config.prefillNodes;
  const mapper = new PageOpMapper(prefillCount, config.pageSize, recorder.record, (req) => globalIndex[req]!);
  const tenantOf = out.table.tenant;
  const blockTable = new Map<number, [number, number][]>();
  const readRow = new Map<number, number>();
  const live: PageArrays = recorder.live;

  const onEvent = (e: EngineEvent) => {
    const g = globalIndex[e.req]!;
    out.details?.events[g]!.push({ ...e, req: g });
    mapper.onEvent(e);
    switch (e.type) {
      case 'route':
        out.table.decodeNode[g] = e.decode;
        break;
      case 'abort-marked':
        out.table.flags[g]! |= FLAG_ABORTED;
        break;
      case 'decode-reserve':
        blockTable.set(e.req, e.pages);
        break;
      case 'decode-free':
        blockTable.delete(e.req);
        break;
      case 'decode-read': {
        const offset = nodes[prefillCount + e.node]!.pageOffset;
        let stale = 0;
        let foreign = 0;
        let zero = 0;
        const reader = tenantOf[g]!;
        for (const [first, count] of blockTable.get(e.req)!) {
          for (let p = offset + first; p < offset + first + count; p++) {
            const by = live.writer[p]!;
            if (by === g) continue;
            stale++;
            if (by === NO_REQUEST) zero++;
            else if (tenantOf[by] !== reader) foreign++;
          }
        }
        const r = out.reads;
        readRow.set(e.req, r.count++);
        r.t.push(e.t);
        r.req.push(g);
        r.phase.push(index);
        r.node.push(e.node);
        r.pages.push(e.pageCount);
        r.stale.push(stale);
        r.foreign.push(foreign);
        r.zero.push(zero);
        r.crossed.push(e.foreignTenants.length > 0 ? 1 : 0);
        break;
      }
      default:
        break;
    }
  };

  const onResponse = (resp: ResponseRecord) => {
    const g = globalIndex[resp.request]!;
    if (out.details) {
      const toGlobal = (w: number) => (w >= 0 ? globalIndex[w]! : -1);
      const slots = resp.slots ? { ...resp.slots, writers: resp.slots.writers.map(toGlobal), before: { ...resp.slots.before, writers: resp.slots.before.writers.map(toGlobal) } } : undefined;
      out.details.responses[g] = { ...resp, request: g, provenance: resp.provenance.map((p) => ({ ...p, writerRequest: toGlobal(p.writerRequest) })), ...(slots ? { slots } : {}) };
    }
    const t = out.table;
    t.finishedAt[g] = resp.finishedAt;
    t.status[g] = resp.status;
    t.computedTokens[g] = resp.computedTokens;
    t.pagesReserved[g] = resp.pagesReserved;
    t.pagesWritten[g] = resp.pagesWritten;
    t.pagesReadStale[g] = resp.pagesReadStale;
    if (resp.leakedFrom.length > 0) t.flags[g]! |= FLAG_LEAK_PROVENANCE;
    if (resp.canaryHits.length > 0) t.flags[g]! |= FLAG_LEAK_CANARY;
    if (resp.status === 200 && resp.correct === false) t.flags[g]! |= FLAG_WRONG_OUTPUT;
    if (answeredFromForeignMemory(resp)) t.flags[g]! |= FLAG_INTEGRITY_BREACH;
    if (resp.leakedFrom.length > 0 || resp.canaryHits.length > 0) {
      const row = readRow.get(resp.request);
      out.leaks.push({
        request: g,
        id: out.requestIds[g]!,
        tenant: resp.tenant,
        kind: t.kind[g]!,
        arrivedAt: resp.arrivedAt,
        finishedAt: resp.finishedAt,
        promptTokens: resp.promptTokens,
        status: resp.status,
        dataOf: resp.leakedFrom,
        canaries: resp.canaryHits,
        text: resp.text,
        stalePages: row === undefined ? 0 : out.reads.stale[row]!,
        foreignPages: row === undefined ? 0 : out.reads.foreign[row]!,
        zeroPages: row === undefined ? 0 : out.reads.zero[row]!,
        pagesReserved: resp.pagesReserved,
        staleSlotsByTenant: resp.staleSlotsByTenant,
        zeroSlotsRead: resp.zeroSlotsRead,
        tokenWriters: resp.provenance.map((p) => p.writerTenant),
      });
    }
    readRow.delete(resp.request);
  };

  for (const g of globalIndex) {
    out.table.phase[g] = index;
    if (out.table.promptTokens[g]! > result.prefillLimit) out.table.flags[g]! |= FLAG_OVER_LIMIT;
  }
  try {
    sim = new Simulation(config, trace, { keepEvents: false, keepResponses: false, audit: o.audit ?? true, shortcuts: o.shortcuts ?? true, summaryPages: o.summaryPages ?? DEFAULT_SUMMARY_PAGES, slotSamples: o.keepDetails ?? false, transformer, onEvent, onResponse });
  } catch (e) {
    if (!(e instanceof DeploymentRefused)) throw e;
    result.refused = e.message;
    return result;
  }
  if (out.details && out.details.words.length === 0) out.details.words = sim.vocab.words;
  model.description ??= sim.modelDescription;
  const every = o.progressEveryMs ?? 3_600_000;
  for (let t = phase.from; !sim.done; t += every) {
    sim.runUntil(t);
    o.onProgress?.({ fraction: Math.min(1, Math.max(0, t) / endEstimate), simulatedT: t, phase: phase.name });
  }
  result.eventLogHash = sim.eventLogHash;
  result.events = sim.eventsEmitted;
  if (record) result.timeline = recorder.finish();
  return result;
}

export function runScenario(spec: RunSpec, o: RunOptions = {}): RunResult {
  const { trace } = spec;
  const n = trace.requests.length;
  const table = newRequestTable(trace, spec.kinds);
  const requestIds = trace.requests.map((r, i) => r.id ?? `r${i}`);
  const details: RequestDetails | null = o.keepDetails ? { events: Array.from({ length: n }, () => []), responses: new Array(n), words: [] } : null;
  const out: Harvest = { table, reads: new ReadRows(), leaks: [], requestIds, details };
  const gateway = spec.gateway ?? [];
  const transformer = spec.decoder === 'transformer' ? (o.transformer ?? null) : null;
  if (spec.decoder === 'transformer' && !transformer) throw new Error(`run ${spec.name}: its decoder is the trained transformer, and no weights were given`);
  const model: { description: ModelDescription | null } = { description: null };

  const served: number[][] = spec.phases.map(() => []);
  for (let i = 0; i < n; i++) {
    const at = trace.requests[i]!.at;
    const window = gateway.find((w) => at >= w.from && at < w.to);
    if (window) {
      // Refused before SGLang ever sees it.
      table.status[i] = window.status;
      table.finishedAt[i] = at;
      table.phase[i] = GATEWAY_PHASE;
      continue;
    }
    const p = spec.phases.findIndex((ph) => at >= ph.from && at < ph.to);
    if (p < 0) throw new Error(`run ${spec.name}: request ${requestIds[i]} arrives at ${at} ms, when no deployment serves`);
    served[p]!.push(i);
  }
  const lastArrival = n > 0 ? Math.max(...trace.requests.map((r) => r.at)) : 0;
  const endEstimate = Math.max(1, spec.endMs ?? lastArrival);
  const phases: PhaseResult[] = [];
  let refused: string | null = null;
  for (let p = 0; p < spec.phases.length && refused === null; p++) {
    const result = runPhase(p, spec.phases[p]!, trace, served[p]!, out, o, endEstimate, transformer, model);
    phases.push(result);
    refused = result.refused;
  }
  o.onProgress?.({ fraction: 1, simulatedT: endEstimate, phase: phases[phases.length - 1]?.name ?? '' });
  out.leaks.sort((x, y) => x.finishedAt - y.finishedAt || x.request - y.request);

  let end = spec.endMs ?? 0;
  if (spec.endMs === undefined) {
    for (let i = 0; i < n; i++) if (table.finishedAt[i]! > end) end = table.finishedAt[i]!;
    for (const ph of phases) if (ph.timeline && ph.timeline.opCount > 0) end = Math.max(end, ph.timeline.t[ph.timeline.opCount - 1]!);
  }
  return {
    name: spec.name,
    startEpochMs: spec.startEpochMs,
    endMs: end,
    tenantNames: trace.tenants.map((t) => t.name),
    requestIds,
    requests: table,
    reads: out.reads.table(),
    leaks: out.leaks,
    phases,
    gateway,
    refused,
    details,
    decoder: spec.decoder ?? 'compressed',
    model: model.description,
  };
}

/** A run with one deployment serving the whole trace. */
export function singlePhaseSpec(name: string, trace: Trace, config: EngineConfig, startEpochMs: number): RunSpec {
  return { name, trace, startEpochMs, phases: [{ name: 'deployment', config, from: 0, to: Infinity }] };
}

/**
 * The outcome of a run, counted from its request columns and its reads (the zero pages each read
 * found): the same counters a Simulation keeps (`Simulation.counters`), one type for both.
 */
export function countRequests(t: RequestTable, reads: Pick<ReadTable, 'count' | 'zeroPages'>): Counters {
  const c: Counters = { ...noCounters(), requests: t.count };
  for (let i = 0; i < reads.count; i++) c.pagesReadZero += reads.zeroPages[i]!;
  for (let i = 0; i < t.count; i++) countOutcome(c, t, i);
  return c;
}

/** Counters with nothing counted. */
export function noCounters(): Counters {
  return { requests: 0, statusCounts: {}, served: 0, rejected: 0, errors: 0, leaked: 0, canaryLeaks: 0, integrityBreaches: 0, wrongOutputs: 0, pagesReserved: 0, pagesWritten: 0, pagesReadStale: 0, pagesReadZero: 0 };
}

/**
 * Adds request i's outcome to `c` (nothing for a request not answered: status 0): the one rule the
 * whole run's counters and the counts as of an instant (moment.ts) share. `requests` is left to the caller.
 */
export function countOutcome(c: Counters, t: RequestTable, i: number): void {
  const s = t.status[i]!;
  if (s === 0) return;
  c.statusCounts[s] = (c.statusCounts[s] ?? 0) + 1;
  if (s === 200) c.served++;
  else if (s === 400) c.rejected++;
  else if (s === 500) c.errors++;
  const f = t.flags[i]!;
  if (f & FLAG_LEAK_PROVENANCE) c.leaked++;
  if (f & FLAG_LEAK_CANARY) c.canaryLeaks++;
  if (f & FLAG_INTEGRITY_BREACH) c.integrityBreaches++;
  if (f & FLAG_WRONG_OUTPUT) c.wrongOutputs++;
  c.pagesReserved += t.pagesReserved[i]!;
  c.pagesWritten += t.pagesWritten[i]!;
  c.pagesReadStale += t.pagesReadStale[i]!;
}

/** What a run looks like at one instant. */
export interface RunState {
  t: number;
  /** Phase whose nodes are shown: the latest one that has started (its pools exist from then). */
  phase: number;
  /** The gateway window t falls in, or null. */
  gateway: GatewayWindow | null;
  nodes: NodeLayout[];
  /** Page arrays of those nodes; working arrays of the seeker, valid until the next stateAt. */
  pages: PageArrays;
  /** Requests arrived and not yet answered at t. */
  inFlight: Int32Array;
  readsSoFar: number;
  foreignPageReadsSoFar: number;
  outputCrossedSoFar: number;
  /** Reads (indices into ReadTable) whose request is still in flight at t and read another tenant's pages. */
  crossingNow: Int32Array;
}

export interface RunTimelineSource {
  requests: RequestTable;
  reads: ReadTable;
  phases: Pick<PhaseResult, 'from' | 'nodes' | 'timeline'>[];
  gateway: GatewayWindow[];
}

function countUntil(times: Float64Array, order: Int32Array | null, n: number, t: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[order ? order[mid]! : mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** stateAt(t) over a whole run: the deployment shown, its page state, requests in flight, reads so far. */
export class RunTimeline {
  private readonly seekers: (PageSeeker | null)[];
  private readonly empty: PageArrays[];
  /** Requests by arrival (traces need not be sorted). */
  private readonly byArrival: Int32Array;
  private readonly maxInFlightMs: number;
  private readonly foreignPrefix: Int32Array;
  private readonly crossedPrefix: Int32Array;

  constructor(readonly source: RunTimelineSource) {
    this.seekers = source.phases.map((p) => (p.timeline ? new PageSeeker(p.timeline) : null));
    this.empty = source.phases.map((p) => newPageArrays(p.nodes.reduce((k, x) => k + x.pageCount, 0)));
    const r = source.requests;
    this.byArrival = Int32Array.from({ length: r.count }, (_, i) => i).sort((a, b) => r.arrivedAt[a]! - r.arrivedAt[b]! || a - b);
    let maxMs = 0;
    for (let i = 0; i < r.count; i++) {
      const d = r.finishedAt[i]! - r.arrivedAt[i]!;
      if (d > maxMs) maxMs = d;
    }
    this.maxInFlightMs = maxMs;
    const reads = source.reads;
    this.foreignPrefix = new Int32Array(reads.count + 1);
    this.crossedPrefix = new Int32Array(reads.count + 1);
    for (let i = 0; i < reads.count; i++) {
      if (i > 0 && reads.t[i]! < reads.t[i - 1]!) throw new Error('timeline: reads must be in time order');
      this.foreignPrefix[i + 1] = this.foreignPrefix[i]! + (reads.foreignPages[i]! > 0 ? 1 : 0);
      this.crossedPrefix[i + 1] = this.crossedPrefix[i]! + reads.outputCrossed[i]!;
    }
  }

  /** Index of the phase whose nodes are shown at t. */
  phaseAt(t: number): number {
    let shown = 0;
    this.source.phases.forEach((p, i) => {
      if (p.from <= t) shown = i;
    });
    return shown;
  }

  /**
   * The pages (global indices) of `phase` that can differ between that phase's last two stateAt
   * seeks, or null: unknown, or too many to list (PageSeeker.changedPages).
   */
  changedPages(phase: number): Int32Array | null {
    return this.seekers[phase]?.changedPages() ?? null;
  }

  stateAt(t: number, fromStart = false): RunState {
    const phase = this.phaseAt(t);
    const seeker = this.seekers[phase];
    const pages = seeker ? (fromStart ? seeker.atFromStart(t) : seeker.at(t)) : this.empty[phase]!;
    const gateway = this.source.gateway.find((w) => t >= w.from && t < w.to) ?? null;

    const r = this.source.requests;
    const order = this.byArrival;
    const arrived = countUntil(r.arrivedAt, order, r.count, t);
    const inFlight: number[] = [];
    for (let k = arrived - 1; k >= 0; k--) {
      const i = order[k]!;
      if (r.arrivedAt[i]! < t - this.maxInFlightMs) break;
      if (r.phase[i] === GATEWAY_PHASE) continue;
      if (!(r.finishedAt[i]! <= t)) inFlight.push(i);
    }
    inFlight.sort((a, b) => a - b);

    const reads = this.source.reads;
    const readsSoFar = countUntil(reads.t, null, reads.count, t);
    const crossingNow: number[] = [];
    for (let k = readsSoFar - 1; k >= 0 && reads.t[k]! >= t - this.maxInFlightMs; k--) {
      if (reads.foreignPages[k]! > 0 && !(r.finishedAt[reads.req[k]!]! <= t)) crossingNow.push(k);
    }
    crossingNow.reverse();
    return {
      t,
      phase,
      gateway,
      nodes: this.source.phases[phase]!.nodes,
      pages,
      inFlight: Int32Array.from(inFlight),
      readsSoFar,
      foreignPageReadsSoFar: this.foreignPrefix[readsSoFar]!,
      outputCrossedSoFar: this.crossedPrefix[readsSoFar]!,
      crossingNow: Int32Array.from(crossingNow),
    };
  }
}

function columns(t: RequestTable | ReadTable): ArrayBuffer[] {
  return Object.values(t)
    .filter((v): v is ArrayBufferView => ArrayBuffer.isView(v))
    .map((v) => v.buffer as ArrayBuffer);
}

/** Every typed-array buffer of a run's tables and timelines, for a transfer list. */
export function runBuffers(r: Pick<RunResult, 'requests' | 'reads' | 'phases'>): ArrayBuffer[] {
  const out = [...columns(r.requests), ...columns(r.reads)];
  for (const p of r.phases) if (p.timeline) out.push(...pageTimelineBuffers(p.timeline));
  return [...new Set(out)];
}
