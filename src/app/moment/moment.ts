/**
 * One moment: everything any view shows of one request at one instant, computed once.
 *
 * A moment is (run, request, the incident's instant, the handoff clock, reduced motion). From it come
 * the handoff's position (step, progress, the engine's time the pools are shown at), the stage's
 * frame, the pools at that engine time, the request's block table as of that time (each block's page
 * id, and who last wrote it), the counters as of that time, the step, the outcome and the run's
 * tenant roster. The stage, the Transfer view, the counters and the story read it; none of them
 * recomputes a handoff position (`check:deps`: no view imports `handoff.ts` or `stageFrame.ts`).
 *
 * The handoff's position depends on one more thing the views used to compute apart: when a later
 * reservation claims the freed block table (the reuse step plays up to it). It is found here, once per
 * (run, request), so the stage's controls, its picture and the Transfer view's list agree.
 */
import type { Counters, EngineEvent } from '../../engine/index.ts';
import { countOutcome, noCounters } from '../../engine/run.ts';
import type { RequestDetail, RunSummary, Snapshot } from '../run/summary.ts';
import { handoffScript, positionAtHandoff, positionAtInstant, type HandoffPosition, type HandoffScript, type HandoffStep } from './handoff.ts';
import { blockIndexOf, handoffCounts, stageFrameAt, type StageFrame, type StageStep } from './stageFrame.ts';

// What views may use of the clock's model without computing a position.
export { ease, stepEnd, HANDOFF_SPEEDS, type HandoffPosition, type HandoffScript, type HandoffStep } from './handoff.ts';
export { blockIndexOf, handoffCounts, type StageFrame, type StageStep, type StageStepId } from './stageFrame.ts';

export interface MomentInput {
  run: RunSummary;
  req: number;
  detail: RequestDetail;
  /** The incident's clock (simulated ms). */
  time: number;
  /** The handoff clock (seconds), or null: the handoff follows the incident's clock. */
  handoff: number | null;
  reducedMotion: boolean;
}

/** One block of the request's block table: its position in the table and the pool's page id. */
export interface BlockTable {
  /** The decode node whose pool holds the table, e.g. "decode-0" ("" when no page was reserved). */
  node: string;
  /** Page id of each block, in block-table order: block i → page pages[i]. */
  pages: readonly number[];
  /** Of those pages, as of the moment's engine time: written for this request, another request's (stale), never written. */
  written: number;
  stale: number;
  empty: number;
  /** Stale pages per tenant (index into the roster), largest first: the whole list, never cut. */
  staleByTenant: readonly { tenant: number; pages: number }[];
  /** Block index of the first page written for this request (the placeholder's page in the incident), or −1. */
  firstWrittenBlock: number;
}

export interface Moment {
  run: RunSummary;
  req: number;
  detail: RequestDetail;
  /** The run's one list of tenants: every view and sentence names tenants from it. */
  roster: readonly string[];
  tenant: string;
  reducedMotion: boolean;
  script: HandoffScript;
  position: HandoffPosition;
  /** The step on (undefined before the request arrives). */
  step: HandoffStep | undefined;
  frame: StageFrame;
  /** Simulated ms whose pools, block table and counters the moment shows. */
  engineT: number;
  /** The pools at engineT (null for a refused run). Arrays valid until the run's next seek. */
  snapshot: Snapshot | null;
  blockTable: BlockTable;
  /**
   * The block table as decode read it (at its decode-read event), or null when decode never read it:
   * what the scan step's sentence names (every owner, and the pages never written), whatever the step shown.
   */
  readTable: BlockTable | null;
  /** Leaked responses whose answer went out by engineT, of the run's leaked responses. */
  leaksSent: number;
  leaksTotal: number;
  /** The request's outcome as the client knows it at engineT: its status once it reached the client, else pending. */
  outcome: { status: number | null; final: number };
  /**
   * The run's outcomes as of engineT (the outcome tiles): requests arrived by then, and the outcomes
   * of those answered by then (the leak counter's rule: an answer counts once it went out); `total`,
   * the whole run's.
   */
  outcomes: { now: Counters; total: Counters };
  /** Where each token of the answer came from (`tokenSourcesOf`): its hover, the microscope and the grids name the same. */
  tokenSources: readonly TokenSource[];
}

/** The slot a token of the answer drew on most, and whose KV it held when decode read it. */
export interface TokenSource {
  /** The node and page decode read it from, and the slot's position in the request's context; page −1: zeros on no page. */
  node: string;
  page: number;
  slot: number;
  /** The page's block in the request's block table (block i → page #p), or −1 (a page of its own decode steps). */
  block: number;
  /** The request whose KV the slot held, or −1 (zeros); that request's tenant, or null. */
  writerRequest: number;
  writerTenant: string | null;
}

// Per request detail (immutable once fetched): its script and block table's page ids. Caches of
// pure functions keyed by the objects they are computed from, not state: a detail that is dropped
// drops its entry.
const scripts = new WeakMap<RequestDetail, HandoffScript>();
const reservedPages = new WeakMap<readonly EngineEvent[], number[]>();
const reuseUntils = new WeakMap<RunSummary, Map<number, number | null>>();
const readTables = new WeakMap<RunSummary, Map<number, BlockTable | null>>();
const tokenSourceLists = new WeakMap<RunSummary, Map<number, readonly TokenSource[]>>();
const outcomeIndexes = new WeakMap<RunSummary, OutcomeIndex>();

/** The request's handoff timed for a viewer (one per detail). */
export function scriptOf(detail: RequestDetail): HandoffScript {
  let s = scripts.get(detail);
  if (!s) {
    s = handoffScript(detail.events, detail.response.tokens.length);
    scripts.set(detail, s);
  }
  return s;
}

/** Page ids of the request's block table, in block order. */
export function blockPagesOf(events: readonly EngineEvent[]): number[] {
  let p = reservedPages.get(events);
  if (!p) {
    p = handoffCounts(events).reserved;
    reservedPages.set(events, p);
  }
  return p;
}

/**
 * The simulated ms by which a later reservation holds pages of the request's freed block table (the
 * reuse step plays up to it), or null when none does before the run ends. Found by seeking the run at
 * the arrivals of the next requests routed to the same decode node.
 */
function reuseInstant(run: RunSummary, req: number, steps: readonly StageStep[], reserved: readonly number[]): number | null {
  const free = steps.find((s) => s.id === 'free');
  const node = run.requests.decodeNode[req]!;
  if (!free || node < 0 || reserved.length === 0) return null;
  const name = `decode-${node}`;
  const r = run.requests;
  const later: number[] = [];
  for (let i = 0; i < r.count && later.length < 400; i++) if (i !== req && r.decodeNode[i] === node && r.arrivedAt[i]! >= free.start && r.pagesReserved[i]! > 0) later.push(i);
  later.sort((a, b) => r.arrivedAt[a]! - r.arrivedAt[b]!);
  for (const i of later.slice(0, 40)) {
    // A reservation follows its arrival within the handshake's few ms; look a little after it.
    const t = r.arrivedAt[i]! + 5;
    const n = run.seek(t).nodes.find((x) => x.name === name);
    if (n && reserved.some((p) => n.owner[p]! >= 0 && n.owner[p] !== req)) return t;
  }
  // None claims them (yet): the reuse step plays on to the next arrival there, or the run's end.
  const next = later[0];
  return next !== undefined ? r.arrivedAt[next]! + 5 : Math.max(free.start + 1, run.endMs);
}

function reuseUntilOf(run: RunSummary, req: number, detail: RequestDetail): number | null {
  if (run.refused) return null;
  let m = reuseUntils.get(run);
  if (!m) reuseUntils.set(run, (m = new Map()));
  if (!m.has(req)) m.set(req, reuseInstant(run, req, scriptOf(detail).steps, blockPagesOf(detail.events)));
  return m.get(req)!;
}

/** The block table at decode's read (seeked once per run and request, before the moment's own seek). */
function readTableOf(run: RunSummary, req: number, detail: RequestDetail): BlockTable | null {
  if (run.refused) return null;
  let m = readTables.get(run);
  if (!m) readTables.set(run, (m = new Map()));
  if (!m.has(req)) {
    const read = detail.events.find((e) => e.type === 'decode-read');
    m.set(req, read && read.type === 'decode-read' ? run.seekAside(read.t, (s) => blockTableAt(s, `decode-${read.node}`, blockPagesOf(detail.events), req)) : null);
  }
  return m.get(req)!;
}

/**
 * The handoff's position at the moment: from the handoff clock when it runs, else from the incident's
 * instant. The one place a position is computed.
 */
export function positionOf(input: MomentInput): HandoffPosition {
  const script = scriptOf(input.detail);
  const { reducedMotion } = input;
  return input.handoff === null
    ? positionAtInstant(script, input.time, { reducedMotion })
    : positionAtHandoff(script, input.handoff, { reducedMotion, reuseUntil: reuseUntilOf(input.run, input.req, input.detail) });
}

/**
 * Where each token of the answer came from, from the pools: the slot decode drew on most (the
 * engine's provenance names the page and the slot's position), its block in the request's table,
 * and whose KV that slot held when decode read it. A position prefill computed is the request's
 * own; any other slot of the block table holds what the page held when decode reserved it (nothing
 * but the request writes a reserved page: the placeholder's page keeps the earlier owner's other
 * slots); a page of its own decode steps is its own. Seeked once per run and request.
 */
export function tokenSourcesOf(run: RunSummary, req: number, detail: RequestDetail): readonly TokenSource[] {
  let m = tokenSourceLists.get(run);
  if (!m) tokenSourceLists.set(run, (m = new Map()));
  let list = m.get(req);
  if (list) return list;
  const r = detail.response;
  const pages = blockPagesOf(detail.events);
  const reserve = detail.events.find((e) => e.type === 'decode-reserve');
  const node = reserve && reserve.type === 'decode-reserve' ? `decode-${reserve.node}` : '';
  // Each block's page's writer as reserved (copied: the arrays serve only until the next seek).
  const asReserved = reserve && !run.refused ? run.seekAside(reserve.t, (s) => {
    const n = s.nodes.find((x) => x.name === node);
    return Int32Array.from(pages, (p) => (n ? n.writtenFor[p]! : -1));
  }) : new Int32Array(pages.length).fill(-1);
  const ownSteps = new Set<number>();
  for (const e of detail.events) if (e.type === 'decode-grow') ownSteps.add(e.page);
  const tenantOf = (w: number) => (w >= 0 && w < run.requests.count ? run.tenants[run.requests.tenant[w]!] ?? null : null);
  list = r.provenance.map((p) => {
    const block = p.node === node ? pages.indexOf(p.page) : -1;
    const writer = p.page < 0 ? -1 : p.slot >= 0 && p.slot < r.computedTokens ? req : block >= 0 ? asReserved[block]! : ownSteps.has(p.page) ? req : p.writerRequest;
    return { node: p.node, page: p.page, slot: p.slot, block, writerRequest: writer, writerTenant: tenantOf(writer) };
  });
  m.set(req, list);
  return list;
}

/**
 * The run's answered requests in the order their answers went out, with the counts at every
 * CHECKPOINT-th: the counts by an instant are a checkpoint plus at most CHECKPOINT − 1 answers.
 */
interface OutcomeIndex {
  arrived: Float64Array;
  finished: Float64Array;
  order: Int32Array;
  checkpoints: Counters[];
  readT: Float64Array;
  readZeroBefore: Float64Array;
}
const CHECKPOINT = 64;

function outcomeIndexOf(run: RunSummary): OutcomeIndex {
  let x = outcomeIndexes.get(run);
  if (x) return x;
  const r = run.requests;
  const answered: number[] = [];
  for (let i = 0; i < r.count; i++) if (r.status[i] !== 0) answered.push(i);
  answered.sort((a, b) => r.finishedAt[a]! - r.finishedAt[b]! || a - b);
  const order = Int32Array.from(answered);
  const finished = Float64Array.from(answered, (i) => r.finishedAt[i]!);
  const arrived = Float64Array.from(r.arrivedAt.subarray(0, r.count)).sort();
  const checkpoints: Counters[] = [];
  const c = noCounters();
  for (let k = 0; k <= order.length; k++) {
    if (k % CHECKPOINT === 0) checkpoints.push({ ...c, statusCounts: { ...c.statusCounts } });
    if (k < order.length) countOutcome(c, r, order[k]!);
  }
  const reads = Array.from({ length: run.reads.count }, (_, k) => k).sort((a, b) => run.reads.t[a]! - run.reads.t[b]!);
  const readT = Float64Array.from(reads, (k) => run.reads.t[k]!);
  const readZeroBefore = new Float64Array(reads.length + 1);
  reads.forEach((k, j) => (readZeroBefore[j + 1] = readZeroBefore[j]! + run.reads.zeroPages[k]!));
  x = { arrived, finished, order, checkpoints, readT, readZeroBefore };
  outcomeIndexes.set(run, x);
  return x;
}

/** How many of the sorted values are ≤ t. */
function countAtOrBefore(sorted: Float64Array, t: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The run's outcomes as of t: requests arrived by t, and the outcomes of those whose answer went out by t. */
export function outcomesBy(run: RunSummary, t: number): Counters {
  const x = outcomeIndexOf(run);
  const k = countAtOrBefore(x.finished, t);
  const from = Math.floor(k / CHECKPOINT);
  const base = x.checkpoints[from]!;
  const c: Counters = { ...base, statusCounts: { ...base.statusCounts } };
  for (let j = from * CHECKPOINT; j < k; j++) countOutcome(c, run.requests, x.order[j]!);
  c.requests = countAtOrBefore(x.arrived, t);
  c.pagesReadZero = x.readZeroBefore[countAtOrBefore(x.readT, t)]!;
  return c;
}

/** The tenants whose KV the pools of a snapshot hold (roster indices, in roster order): what a legend of them names. */
export function tenantsHeldBy(snapshot: Snapshot | null, nodes?: readonly string[]): number[] {
  const seen = new Set<number>();
  for (const n of snapshot?.nodes ?? []) {
    if (nodes && !nodes.includes(n.name)) continue;
    for (let p = 0; p < n.pageCount; p++) if (n.writerTenant[p]! >= 0) seen.add(n.writerTenant[p]!);
  }
  return [...seen].sort((a, b) => a - b);
}

/** Leaked responses sent by an instant: those whose answer went out at or before it (the counter's and the story's rule). */
export function leaksSentBy(leaks: readonly { finishedAt: number }[], t: number): number {
  let k = 0;
  for (const l of leaks) if (l.finishedAt <= t) k++;
  return k;
}

/** The block table as of a snapshot: each block's page and who last wrote it. */
export function blockTableAt(snapshot: Snapshot | null, node: string, pages: readonly number[], req: number): BlockTable {
  const n = snapshot?.nodes.find((x) => x.name === node);
  let written = 0;
  let stale = 0;
  let empty = 0;
  let firstWrittenBlock = -1;
  // Per tenant, in a typed array (a frame walks the whole table: 12,500 pages in the demo, a Map's
  // lookups per page cost 0.5 ms a frame, this loop a tenth of that).
  let byTenant: Int32Array = new Int32Array(16);
  if (n) {
    const writtenFor = n.writtenFor;
    const writerTenant = n.writerTenant;
    for (let i = 0; i < pages.length; i++) {
      const p = pages[i]!;
      if (writtenFor[p] === req) {
        written++;
        if (firstWrittenBlock < 0) firstWrittenBlock = i;
        continue;
      }
      const w = writerTenant[p]!;
      if (w < 0) {
        empty++;
        continue;
      }
      stale++;
      if (w >= byTenant.length) byTenant = growTo(byTenant, w);
      byTenant[w]!++;
    }
  }
  return { node: pages.length > 0 ? node : '', pages, written, stale, empty, staleByTenant: staleByTenantOf(byTenant), firstWrittenBlock };
}

/**
 * The request's block table at the moment's engine time, counted incrementally per (run, request):
 * a seek lists the pages that changed since the seeker's previous seek (`changes`), so when the
 * last count was of that previous seek only the table's changed pages are counted again (a frame of
 * the handoff: a handful of pages, where the whole table is 12,500); any other seek between, or a
 * seek that cannot list its changes, counts the whole table. One seek (several views of one frame,
 * a paused clock) is counted once.
 */
interface TableCount {
  seq: number;
  pages: readonly number[];
  node: string;
  /** Per block: −2 written for the request, −1 never written, else the writer's tenant. */
  cls: Int16Array;
  byTenant: Int32Array;
  written: number;
  empty: number;
  firstWritten: number;
  table: BlockTable;
}
const tableCounts = new WeakMap<RunSummary, Map<number, TableCount>>();
const WRITTEN = -2;

/** Each tenant with stale pages in a per-tenant count, the most pages first. */
function staleByTenantOf(byTenant: Int32Array): { tenant: number; pages: number }[] {
  const out: { tenant: number; pages: number }[] = [];
  for (let tenant = 0; tenant < byTenant.length; tenant++) if (byTenant[tenant]! > 0) out.push({ tenant, pages: byTenant[tenant]! });
  return out.sort((a, b) => b.pages - a.pages || a.tenant - b.tenant);
}

function tableOfCount(c: TableCount): BlockTable {
  const staleByTenant = staleByTenantOf(c.byTenant);
  let stale = 0;
  for (const x of staleByTenant) stale += x.pages;
  return { node: c.pages.length > 0 ? c.node : '', pages: c.pages, written: c.written, stale, empty: c.empty, staleByTenant, firstWrittenBlock: c.firstWritten };
}

/** Counts a block's class in (+1) or out (−1). */
function countClass(c: TableCount, k: number, by: 1 | -1): void {
  if (k === WRITTEN) c.written += by;
  else if (k < 0) c.empty += by;
  else {
    if (k >= c.byTenant.length) c.byTenant = growTo(c.byTenant, k);
    c.byTenant[k]! += by;
  }
}

function blockTableOf(run: RunSummary, req: number, snapshot: Snapshot | null, node: string, pages: readonly number[]): BlockTable {
  const n = snapshot?.nodes.find((x) => x.name === node);
  if (!n) return blockTableAt(snapshot, node, pages, req);
  let m = tableCounts.get(run);
  if (!m) tableCounts.set(run, (m = new Map()));
  const last = m.get(req);
  const changes = n.changes;
  const same = last && last.pages === pages && last.node === node && changes;
  if (same && changes.seq === last.seq) return last.table;
  const classOf = (p: number) => (n.writtenFor[p] === req ? WRITTEN : n.writerTenant[p]!);
  if (same && changes.since === last.seq && changes.pages) {
    const index = blockIndexOf(pages, n.pageCount);
    let changed = false;
    for (const p of changes.pages) {
      const b = index[p]!;
      if (b < 0) continue;
      const was = last.cls[b]!;
      const now = classOf(p);
      if (was === now) continue;
      countClass(last, was, -1);
      countClass(last, now, 1);
      last.cls[b] = now;
      if (now === WRITTEN && (last.firstWritten < 0 || b < last.firstWritten)) last.firstWritten = b;
      else if (was === WRITTEN && b === last.firstWritten) last.firstWritten = last.cls.indexOf(WRITTEN);
      changed = true;
    }
    last.seq = changes.seq;
    if (changed) last.table = tableOfCount(last);
    return last.table;
  }
  const count: TableCount = { seq: changes?.seq ?? -1, pages, node, cls: new Int16Array(pages.length), byTenant: new Int32Array(16), written: 0, empty: 0, firstWritten: -1, table: null as unknown as BlockTable };
  for (let i = 0; i < pages.length; i++) {
    const k = classOf(pages[i]!);
    count.cls[i] = k;
    countClass(count, k, 1);
    if (k === WRITTEN && count.firstWritten < 0) count.firstWritten = i;
  }
  count.table = tableOfCount(count);
  m.set(req, count);
  return count.table;
}

function growTo(a: Int32Array, index: number): Int32Array {
  const grown = new Int32Array(Math.max(index + 1, a.length * 2));
  grown.set(a);
  return grown;
}

/** Everything the views show of the request at the moment. */
export function momentOf(input: MomentInput): Moment {
  const { run, req, detail, reducedMotion } = input;
  const script = scriptOf(detail);
  const position = positionOf(input);
  const engineT = position.engineT;
  const readTable = readTableOf(run, req, detail);
  const tokenSources = tokenSourcesOf(run, req, detail);
  const tokenCount = detail.response.tokens.length;
  const frame = stageFrameAt(detail.events, script.steps, position.index, position.progress, engineT, { tokenCount, reducedMotion, steps: script.steps });
  const snapshot = run.refused ? null : run.seek(engineT);
  const reserve = detail.events.find((e) => e.type === 'decode-reserve');
  const node = reserve && reserve.type === 'decode-reserve' ? `decode-${reserve.node}` : '';
  const blockTable = blockTableOf(run, req, snapshot, node, blockPagesOf(detail.events));
  return {
    run,
    req,
    detail,
    roster: run.tenants,
    tenant: detail.response.tenant,
    reducedMotion,
    script,
    position,
    step: script.steps[position.index],
    frame,
    engineT,
    snapshot,
    blockTable,
    readTable,
    leaksSent: leaksSentBy(run.leaks, engineT),
    leaksTotal: run.leaks.length,
    outcome: { status: frame.status, final: detail.response.status },
    outcomes: { now: outcomesBy(run, engineT), total: run.counters },
    tokenSources,
  };
}
