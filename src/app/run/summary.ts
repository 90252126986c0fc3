/**
 * A finished run as the views see it: request columns with ids, cross-tenant reads, counters, and a
 * seek that runs on the page (RunTimeline over the transferred arrays; no worker round trip while
 * scrubbing). Every scenario — demo, matrix, incident, custom — comes through here the same way.
 */
import { RunTimeline, countRequests } from '../../engine/run.ts';
import type {
  EngineEvent,
  GatewayWindow,
  LeakRecord,
  NodeKind,
  PhaseResult,
  ReadTable,
  RequestTable,
  ResponseRecord,
  DecoderKind,
  ModelDescription,
  Counters,
} from '../../engine/index.ts';
import type { RequestDetailReply, RunTransfer } from './runProtocol.ts';

export interface NodeSnapshot {
  name: string;
  kind: NodeKind;
  pageCount: number;
  state: Uint8Array;
  /** Request holding the page, or −1. */
  owner: Int32Array;
  /** Request that last wrote the page, or −1. */
  writtenFor: Int32Array;
  /** Tenant of that request, or −1 (like the other arrays, valid until the next seek). */
  writerTenant: Int16Array;
  /** Simulated ms of the last write (−1 where never written). */
  writeTime: Float64Array;
  /**
   * Which pages can differ from an earlier snapshot of the same run: a view that last drew the
   * snapshot numbered `since` need visit only `pages` (node-local; null: every page may differ).
   * Absent on snapshots made elsewhere (tests): visit every page.
   */
  changes?: { seq: number; since: number; pages: Int32Array | null };
}

export interface Snapshot {
  runKey: string;
  t: number;
  /** Index of the deployment whose nodes are shown. */
  phase: number;
  pageSize: number;
  nodes: NodeSnapshot[];
  /** Requests arrived and not yet answered at t. */
  inFlight: number[];
}

export interface RequestDetail {
  runKey: string;
  response: ResponseRecord;
  events: EngineEvent[];
  words: string[];
}

export type PhaseInfo = Omit<PhaseResult, 'timeline'>;

export interface RunSummary {
  runKey: string;
  traceName: string;
  /** Epoch ms of simulated time 0 (UTC). */
  startEpochMs: number;
  endMs: number;
  tenants: string[];
  requests: RequestTable & { ids: string[] };
  reads: ReadTable;
  leaks: LeakRecord[];
  phases: PhaseInfo[];
  gateway: GatewayWindow[];
  /** Decode reads of another tenant's pages: the invariant "decode reads only its own request's pages". */
  violations: { t: number; req: number; node: number }[];
  counters: Counters;
  eventLogHash: string;
  events: number;
  elapsedMs: number;
  refused: string | null;
  /** The decoder that turned pages into text: the views label its output with it. */
  decoder: DecoderKind;
  /** Its shape (layers, heads, parameters); null for a refused run or one stored without it. */
  model: ModelDescription | null;
  seek(t: number): Snapshot;
  /**
   * What `read` takes from the pools at t, leaving the pools of the last seek as they were (seeked
   * again): for a value of another instant (a block table as reserved, as read) computed while a
   * view holds the arrays of its own seek. `read` must copy what it keeps.
   */
  seekAside<T>(t: number, read: (s: Snapshot) => T): T;
  detail(req: number): Promise<RequestDetail>;
}

export function summaryOf(result: RunTransfer, runKey: string, detail: (req: number) => Promise<RequestDetailReply>): RunSummary {
  const r = result.requests;
  const reads = result.reads;
  const violations: RunSummary['violations'] = [];
  for (let k = 0; k < reads.count; k++) if (reads.foreignPages[k]! > 0) violations.push({ t: reads.t[k]!, req: reads.req[k]!, node: reads.node[k]! });
  const timeline = new RunTimeline(result);
  const tenantOf = r.tenant;
  // Several views seek the same instant in one frame: the last snapshot serves them all.
  let last: Snapshot | null = null;
  // Snapshots are numbered; per phase, the number of the last one (its seeker's previous seek).
  let seq = 0;
  const lastSeqOf = new Map<number, number>();
  // Per phase, each page's writer's tenant, kept up to date page by page from the change lists.
  const tenantsOf = new Map<number, Int16Array>();
  return {
    runKey,
    traceName: result.name,
    startEpochMs: result.startEpochMs,
    endMs: result.endMs,
    tenants: result.tenantNames,
    requests: { ...r, ids: result.requestIds },
    reads,
    leaks: result.leaks,
    phases: result.phases.map(({ timeline: _t, ...p }) => p),
    gateway: result.gateway,
    violations,
    counters: countRequests(r, reads),
    eventLogHash: result.phases.map((p) => p.eventLogHash).join('+'),
    events: result.phases.reduce((n, p) => n + p.events, 0),
    elapsedMs: result.elapsedMs,
    refused: result.refused,
    // Runs stored before the transformer joined the page have no decoder field: the compressed model.
    decoder: result.decoder ?? 'compressed',
    model: result.model ?? null,
    seek(t: number): Snapshot {
      if (last?.t === t) return last;
      const state = timeline.stateAt(t);
      const pages = state.pages;
      seq++;
      const since = lastSeqOf.get(state.phase) ?? -1;
      lastSeqOf.set(state.phase, seq);
      const changed = since >= 0 ? timeline.changedPages(state.phase) : null;
      let tenants = tenantsOf.get(state.phase);
      if (!tenants || !changed) {
        tenants ??= new Int16Array(pages.writer.length);
        tenantsOf.set(state.phase, tenants);
        writerTenants(pages.writer, tenantOf, tenants, null);
      } else writerTenants(pages.writer, tenantOf, tenants, changed);
      const nodes: NodeSnapshot[] = state.nodes.map((node) => {
        const from = node.pageOffset;
        const to = from + node.pageCount;
        const local = changed ? localPages(changed, from, to) : null;
        return {
          name: node.name,
          kind: node.kind,
          pageCount: node.pageCount,
          state: pages.state.subarray(from, to),
          owner: pages.owner.subarray(from, to),
          writtenFor: pages.writer.subarray(from, to),
          writerTenant: tenants.subarray(from, to),
          writeTime: pages.writeTime.subarray(from, to),
          changes: { seq, since, pages: local },
        };
      });
      last = { runKey, t, phase: state.phase, pageSize: result.phases[state.phase]?.pageSize ?? 0, nodes, inFlight: Array.from(state.inFlight) };
      return last;
    },
    seekAside<T>(t: number, read: (s: Snapshot) => T): T {
      const back = last?.t;
      const value = read(this.seek(t));
      if (back !== undefined && back !== t) this.seek(back);
      return value;
    },
    async detail(req: number) {
      const d = await detail(req);
      if (!d.response) {
        const status = r.status[req];
        throw new Error(`request ${result.requestIds[req] ?? req} was answered ${status} at the gateway; it has no handoff`);
      }
      return { runKey, response: d.response, events: d.events, words: d.words };
    },
  };
}

// The page loops of a seek, each a small function of its own: V8 optimises a small hot function
// quickly, where the same loop inside seek() ran several times slower (measured in Chromium).

/** Each listed page's (or, with no list, every page's) writer's tenant, into `out`. */
function writerTenants(writer: Int32Array, tenantOf: ArrayLike<number>, out: Int16Array, list: Int32Array | null): void {
  const n = list ? list.length : out.length;
  for (let k = 0; k < n; k++) {
    const p = list ? list[k]! : k;
    const w = writer[p]!;
    out[p] = w >= 0 ? tenantOf[w]! : -1;
  }
}

/** The pages of `changed` inside [from, to), node-local. */
function localPages(changed: Int32Array, from: number, to: number): Int32Array {
  let n = 0;
  for (let k = 0; k < changed.length; k++) if (changed[k]! >= from && changed[k]! < to) n++;
  const local = new Int32Array(n);
  n = 0;
  for (let k = 0; k < changed.length; k++) if (changed[k]! >= from && changed[k]! < to) local[n++] = changed[k]! - from;
  return local;
}
