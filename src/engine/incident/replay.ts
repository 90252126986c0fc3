/**
 * Replays the incident window through the engine: the incident deployment until the model went
 * private (14:00, F11), failures at the gateway while it was private (A8), and a fresh fixed
 * deployment from 19:40 (F13, F23, F24; A9). Nothing here decides whether a response leaks: each
 * phase is an ordinary Simulation, and leaks are what its canary scan and provenance audit find.
 */
import { FIXED_CONFIG, INCIDENT_CONFIG, type EngineConfig } from '../config.ts';
import type { EngineEvent, PageRanges } from '../events.ts';
import { Simulation, type ResponseRecord } from '../simulation.ts';
import type { Trace } from '../trace.ts';
import { OP_FREE, OP_FREE_CLEAR, OP_RESERVE, OP_WRITE, PhaseRecorder, type NodeLayout, type PhaseTimelineData } from './pageTimeline.ts';
import { T_PRIVATE, T_PUBLIC, T_WINDOW_END } from './timeline.ts';
import { incidentTraffic, type IncidentTraffic, type TrafficOptions } from './traffic.ts';

/** A8: status of requests sent while the model was private. */
export const PRIVATE_WINDOW_STATUS = 403;

export const DEPLOYMENT_INCIDENT = 0;
export const DEPLOYMENT_PRIVATE = 1;
export const DEPLOYMENT_FIXED = 2;

export const FLAG_LEAK_PROVENANCE = 1;
export const FLAG_LEAK_CANARY = 2;
/** Prefill computed one placeholder token instead of the prompt (the buggy reject path). */
export const FLAG_ABORTED = 4;

/** One row per request of the trace, in trace order (sorted by arrival). */
export interface RequestTable {
  count: number;
  arrivedAt: Float64Array;
  /** When the response went out (= arrival for gateway failures). */
  finishedAt: Float64Array;
  status: Uint16Array;
  tenant: Uint16Array;
  promptTokens: Int32Array;
  kind: Uint8Array;
  deployment: Uint8Array;
  flags: Uint8Array;
  /** Decode node (index in its phase's node list), −1 when never routed. */
  decodeNode: Int8Array;
}

/** One row per decode read (every served request reads its block table once). */
export interface ReadTable {
  count: number;
  t: Float64Array;
  req: Int32Array;
  deployment: Uint8Array;
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
}

export interface ReplayCounts {
  requests: number;
  served: number;
  rejected400: number;
  failed500: number;
  privateWindowRequests: number;
  privateWindowFailed: number;
  overThresholdBeforePrivate: number;
  overThresholdInPrivateWindow: number;
  overThresholdAfterPublic: number;
  leakedByProvenance: number;
  leakedByCanary: number;
  leakedByBoth: number;
  provenanceOnly: number;
  canaryOnly: number;
  leakedAtOrUnderThreshold: number;
  leakedAfterPublic: number;
  /** Served requests whose output differs from the model's output over their prompt alone. */
  wrongOutput: number;
}

export interface IncidentReplayResult {
  traffic: TrafficOptions;
  tenantNames: string[];
  requestIds: string[];
  requests: RequestTable;
  reads: ReadTable;
  leaks: LeakRecord[];
  counts: ReplayCounts;
  /** Page timelines per deployment (incident, fixed); null when not recorded. */
  timelines: { incident: PhaseTimelineData; fixed: PhaseTimelineData } | null;
  eventLogHashes: { incident: string; fixed: string };
  events: number;
  threshold: number;
}

export interface ReplayProgress {
  fraction: number;
  simulatedT: number;
  phase: 'incident' | 'fixed';
}

export interface ReplayOptions {
  /** A prebuilt trace, or options for the traffic model. */
  traffic?: IncidentTraffic | Partial<TrafficOptions>;
  incidentConfig?: EngineConfig;
  fixedConfig?: EngineConfig;
  /** Record page timelines for seeking (default true). */
  record?: boolean;
  /** Compute each served response's expected output (the integrity audit; default true). */
  audit?: boolean;
  /** Engine shortcuts (default true); tests turn them off to check they change nothing. */
  shortcuts?: boolean;
  onProgress?: (p: ReplayProgress) => void;
  /** Simulated ms between progress reports and between chances to yield (default 1 hour). */
  progressEveryMs?: number;
}

function nodeLayouts(config: EngineConfig): NodeLayout[] {
  const nodes: NodeLayout[] = [];
  let offset = 0;
  for (let i = 0; i < config.prefillNodes; i++) {
    const pageCount = Math.floor(config.prefillCapacityTokens / config.pageSize);
    nodes.push({ name: `prefill-${i}`, kind: 'prefill', pageCount, pageOffset: offset });
    offset += pageCount;
  }
  for (let i = 0; i < config.decodeNodes; i++) {
    const pageCount = Math.floor(config.decodeCapacityTokens / config.pageSize);
    nodes.push({ name: `decode-${i}`, kind: 'decode', pageCount, pageOffset: offset });
    offset += pageCount;
  }
  return nodes;
}

function isTraffic(x: ReplayOptions['traffic']): x is IncidentTraffic {
  return x !== undefined && 'trace' in x && 'kinds' in x;
}

class ReadRows {
  count = 0;
  t: number[] = [];
  req: number[] = [];
  deployment: number[] = [];
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
      deployment: Uint8Array.from(this.deployment),
      node: Int8Array.from(this.node),
      pages: Int32Array.from(this.pages),
      stalePages: Int32Array.from(this.stale),
      foreignPages: Int32Array.from(this.foreign),
      zeroPages: Int32Array.from(this.zero),
      outputCrossed: Uint8Array.from(this.crossed),
    };
  }
}

/**
 * Runs one deployment over its share of the trace, translating the engine's events into page
 * operations (global request ids) and harvesting responses as they come.
 */
function runPhase(
  deployment: typeof DEPLOYMENT_INCIDENT | typeof DEPLOYMENT_FIXED,
  config: EngineConfig,
  base: Trace,
  globalIndex: number[],
  from: number,
  out: { table: RequestTable; reads: ReadRows; leaks: LeakRecord[]; requestIds: string[]; tenantNames: string[]; wrongOutput: { n: number } },
  o: ReplayOptions,
  record: boolean,
): { recorder: PhaseRecorder | null; hash: string; events: number } {
  const trace: Trace = { ...base, requests: globalIndex.map((g) => base.requests[g]!) };
  const nodes = nodeLayouts(config);
  const recorder = record ? new PhaseRecorder(nodes, from) : null;
  const prefillCount = config.prefillNodes;
  const tenantOf = out.table.tenant;
  const decodePagesOf = new Map<number, PageRanges>();
  const prefillPagesOf = new Map<number, PageRanges>();
  // Page-level view of who wrote what, kept even without a recorder (reads need it).
  const writer = nodes.map((n) => new Int32Array(n.pageCount).fill(-1));
  const readRow = new Map<number, number>();

  const recordRanges = (op: number, node: number, ranges: PageRanges, req: number, t: number) => {
    for (const [first, count] of ranges) {
      if (op === OP_WRITE) writer[node]!.fill(req, first, first + count);
      else if (op === OP_FREE_CLEAR) writer[node]!.fill(-1, first, first + count);
      recorder?.record(op, node, first, count, req, t);
    }
  };
  const firstPages = (ranges: PageRanges, n: number): PageRanges => {
    const outRanges: PageRanges = [];
    let left = n;
    for (const [first, count] of ranges) {
      if (left <= 0) break;
      const take = Math.min(count, left);
      outRanges.push([first, take]);
      left -= take;
    }
    return outRanges;
  };

  const onEvent = (e: EngineEvent) => {
    const g = globalIndex[e.req]!;
    switch (e.type) {
      case 'route':
        out.table.decodeNode[g] = e.decode;
        break;
      case 'abort-marked':
        out.table.flags[g]! |= FLAG_ABORTED;
        break;
      case 'decode-reserve':
        decodePagesOf.set(e.req, e.pages);
        recordRanges(OP_RESERVE, prefillCount + e.node, e.pages, g, e.t);
        break;
      case 'prefill-alloc':
        prefillPagesOf.set(e.req, e.pages);
        recordRanges(OP_RESERVE, e.node, e.pages, g, e.t);
        break;
      case 'prefill-compute':
        recordRanges(OP_WRITE, e.node, firstPages(prefillPagesOf.get(e.req)!, Math.ceil(e.tokens / config.pageSize)), g, e.t);
        break;
      case 'kv-transfer':
        recordRanges(OP_WRITE, prefillCount + e.to, e.dstPages, g, e.t);
        break;
      case 'prefill-free':
        recordRanges(e.cleared ? OP_FREE_CLEAR : OP_FREE, e.node, e.pages, g, e.t);
        prefillPagesOf.delete(e.req);
        break;
      case 'decode-free':
        recordRanges(e.cleared ? OP_FREE_CLEAR : OP_FREE, prefillCount + e.node, e.pages, g, e.t);
        decodePagesOf.delete(e.req);
        break;
      case 'decode-read': {
        const w = writer[prefillCount + e.node]!;
        let stale = 0;
        let foreign = 0;
        let zero = 0;
        const reader = tenantOf[g]!;
        for (const [first, count] of decodePagesOf.get(e.req)!) {
          for (let p = first; p < first + count; p++) {
            const by = w[p]!;
            if (by === g) continue;
            stale++;
            if (by < 0) zero++;
            else if (tenantOf[by] !== reader) foreign++;
          }
        }
        const r = out.reads;
        readRow.set(e.req, r.count++);
        r.t.push(e.t);
        r.req.push(g);
        r.deployment.push(deployment);
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
    const t = out.table;
    t.finishedAt[g] = resp.finishedAt;
    t.status[g] = resp.status;
    t.deployment[g] = deployment;
    if (resp.leakedFrom.length > 0) t.flags[g]! |= FLAG_LEAK_PROVENANCE;
    if (resp.canaryHits.length > 0) t.flags[g]! |= FLAG_LEAK_CANARY;
    if (resp.status === 200 && resp.correct === false) out.wrongOutput.n++;
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
      });
    }
    readRow.delete(resp.request);
  };

  const sim = new Simulation(config, trace, {
    keepEvents: false,
    keepResponses: false,
    audit: o.audit ?? true,
    shortcuts: o.shortcuts ?? true,
    onEvent,
    onResponse,
  });
  const every = o.progressEveryMs ?? 3_600_000;
  const phase = deployment === DEPLOYMENT_INCIDENT ? 'incident' : 'fixed';
  for (let t = from; !sim.done; t += every) {
    sim.runUntil(t);
    o.onProgress?.({ fraction: Math.min(1, Math.min(t, T_WINDOW_END) / T_WINDOW_END), simulatedT: t, phase });
  }
  return { recorder, hash: sim.eventLogHash, events: sim.eventsEmitted };
}

export function replayIncident(o: ReplayOptions = {}): IncidentReplayResult {
  const traffic = isTraffic(o.traffic) ? o.traffic : incidentTraffic(o.traffic ?? {});
  const trace = traffic.trace;
  const n = trace.requests.length;
  const tenantNames = trace.tenants.map((t) => t.name);
  const tenantIndex = new Map(tenantNames.map((name, i) => [name, i]));
  const table: RequestTable = {
    count: n,
    arrivedAt: Float64Array.from(trace.requests, (r) => r.at),
    finishedAt: new Float64Array(n).fill(NaN),
    status: new Uint16Array(n),
    tenant: Uint16Array.from(trace.requests, (r) => tenantIndex.get(r.tenant)!),
    promptTokens: Int32Array.from(trace.requests, (r) => r.promptTokens),
    kind: traffic.kinds.slice(),
    deployment: new Uint8Array(n),
    flags: new Uint8Array(n),
    decodeNode: new Int8Array(n).fill(-1),
  };
  const requestIds = trace.requests.map((r, i) => r.id ?? `r${i}`);
  const out = { table, reads: new ReadRows(), leaks: [] as LeakRecord[], requestIds, tenantNames, wrongOutput: { n: 0 } };
  const record = o.record ?? true;

  const incidentIdx: number[] = [];
  const fixedIdx: number[] = [];
  for (let i = 0; i < n; i++) {
    const at = trace.requests[i]!.at;
    if (at < T_PRIVATE) incidentIdx.push(i);
    else if (at >= T_PUBLIC) fixedIdx.push(i);
    else {
      // A8: the gateway refuses it; SGLang never sees it.
      table.status[i] = PRIVATE_WINDOW_STATUS;
      table.finishedAt[i] = at;
      table.deployment[i] = DEPLOYMENT_PRIVATE;
    }
  }
  const a = runPhase(DEPLOYMENT_INCIDENT, o.incidentConfig ?? INCIDENT_CONFIG, trace, incidentIdx, 0, out, o, record);
  const b = runPhase(DEPLOYMENT_FIXED, o.fixedConfig ?? FIXED_CONFIG, trace, fixedIdx, T_PUBLIC, out, o, record);
  o.onProgress?.({ fraction: 1, simulatedT: T_WINDOW_END, phase: 'fixed' });
  out.leaks.sort((x, y) => x.finishedAt - y.finishedAt || x.request - y.request);

  const threshold = (o.incidentConfig ?? INCIDENT_CONFIG).prefillCapacityTokens;
  const counts = countOutcomes(table, threshold, out.wrongOutput.n);
  return {
    traffic: traffic.options,
    tenantNames,
    requestIds,
    requests: table,
    reads: out.reads.table(),
    leaks: out.leaks,
    counts,
    timelines: a.recorder && b.recorder ? { incident: a.recorder.finish(), fixed: b.recorder.finish() } : null,
    eventLogHashes: { incident: a.hash, fixed: b.hash },
    events: a.events + b.events,
    threshold,
  };
}

function countOutcomes(t: RequestTable, threshold: number, wrongOutput: number): ReplayCounts {
  const c: ReplayCounts = {
    requests: t.count, served: 0, rejected400: 0, failed500: 0, privateWindowRequests: 0, privateWindowFailed: 0,
    overThresholdBeforePrivate: 0, overThresholdInPrivateWindow: 0, overThresholdAfterPublic: 0,
    leakedByProvenance: 0, leakedByCanary: 0, leakedByBoth: 0, provenanceOnly: 0, canaryOnly: 0,
    leakedAtOrUnderThreshold: 0, leakedAfterPublic: 0, wrongOutput,
  };
  for (let i = 0; i < t.count; i++) {
    const at = t.arrivedAt[i]!;
    const status = t.status[i]!;
    const over = t.promptTokens[i]! > threshold;
    if (status === 200) c.served++;
    else if (status === 400) c.rejected400++;
    else if (status === 500) c.failed500++;
    if (at >= T_PRIVATE && at < T_PUBLIC) {
      c.privateWindowRequests++;
      if (status === PRIVATE_WINDOW_STATUS) c.privateWindowFailed++;
      if (over) c.overThresholdInPrivateWindow++;
    } else if (over) {
      if (at < T_PRIVATE) c.overThresholdBeforePrivate++;
      else c.overThresholdAfterPublic++;
    }
    const f = t.flags[i]!;
    const prov = (f & FLAG_LEAK_PROVENANCE) !== 0;
    const can = (f & FLAG_LEAK_CANARY) !== 0;
    if (prov) c.leakedByProvenance++;
    if (can) c.leakedByCanary++;
    if (prov && can) c.leakedByBoth++;
    if (prov && !can) c.provenanceOnly++;
    if (can && !prov) c.canaryOnly++;
    if ((prov || can) && !over) c.leakedAtOrUnderThreshold++;
    if ((prov || can) && at >= T_PUBLIC) c.leakedAfterPublic++;
  }
  return c;
}

