/**
 * The one page model the views draw from: per page, its state (zero / live / stale / cleared), the
 * request that last wrote it and when, and the request holding it now. It is the page-level shadow
 * of KvPool (which holds the slots themselves, the ground truth): one mapping from engine events to
 * page operations, one rule per operation, one recorder that keeps a tape of operations with
 * checkpoints, and one seeker that rebuilds the state at any instant — the way RaftScope's state.js
 * rewinds to the nearest checkpoint and replays forward.
 *
 * Everything is typed arrays, so a whole timeline moves between a Worker and the page by transfer,
 * not by structured clone. A property test holds the seeker against KvPool at random instants.
 */
import type { EngineConfig } from './config.ts';
import type { EngineEvent, PageRanges } from './events.ts';
import { NO_REQUEST, PAGE_CLEARED, PAGE_LIVE, PAGE_STALE, PAGE_ZERO, poolPageCount, type NodeKind } from './kvPool.ts';

export const OP_RESERVE = 0;
export const OP_WRITE = 1;
export const OP_FREE = 2;
/** Free and zero (the zero-on-free rule). */
export const OP_FREE_CLEAR = 3;
/** Reserve and zero (the zero-on-allocate rule). */
export const OP_RESERVE_CLEAR = 4;

/** writeTime of a page never written since start-up, or zeroed since. */
export const NO_TIME = -1;

export interface NodeLayout {
  name: string;
  kind: NodeKind;
  /** Index among the nodes of its kind (prefill-0, decode-1, …). */
  index: number;
  pageCount: number;
  /** Index of the node's page 0 in the deployment's concatenated page arrays. */
  pageOffset: number;
}

/** The nodes of a deployment, prefill first: exactly the pools a Simulation of `config` builds. */
export function nodeLayouts(config: Pick<EngineConfig, 'prefillNodes' | 'decodeNodes' | 'prefillCapacityTokens' | 'decodeCapacityTokens' | 'pageSize'>): NodeLayout[] {
  const nodes: NodeLayout[] = [];
  let offset = 0;
  const add = (kind: NodeKind, index: number, capacity: number) => {
    const pageCount = poolPageCount(capacity, config.pageSize);
    nodes.push({ name: `${kind}-${index}`, kind, index, pageCount, pageOffset: offset });
    offset += pageCount;
  };
  for (let i = 0; i < config.prefillNodes; i++) add('prefill', i, config.prefillCapacityTokens);
  for (let i = 0; i < config.decodeNodes; i++) add('decode', i, config.decodeCapacityTokens);
  return nodes;
}

/** The page arrays of every node of a deployment, concatenated (see NodeLayout.pageOffset). */
export interface PageArrays {
  state: Uint8Array;
  /** Request that last wrote the page (NO_REQUEST: zero-filled or cleared). */
  writer: Int32Array;
  /** Simulated ms of that write (NO_TIME when none). */
  writeTime: Float64Array;
  /** Request holding the page now (NO_REQUEST: free). */
  owner: Int32Array;
}

export function newPageArrays(n: number): PageArrays {
  return {
    state: new Uint8Array(n).fill(PAGE_ZERO),
    writer: new Int32Array(n).fill(NO_REQUEST),
    writeTime: new Float64Array(n).fill(NO_TIME),
    owner: new Int32Array(n).fill(NO_REQUEST),
  };
}

/** The page rules, once: what each operation does to pages [first, first + count). */
export function applyPageOp(a: PageArrays, op: number, first: number, count: number, req: number, t: number): void {
  const end = first + count;
  switch (op) {
    case OP_RESERVE:
      a.state.fill(PAGE_LIVE, first, end);
      a.owner.fill(req, first, end);
      return;
    case OP_RESERVE_CLEAR:
      a.state.fill(PAGE_LIVE, first, end);
      a.owner.fill(req, first, end);
      a.writer.fill(NO_REQUEST, first, end);
      a.writeTime.fill(NO_TIME, first, end);
      return;
    case OP_WRITE:
      a.writer.fill(req, first, end);
      a.writeTime.fill(t, first, end);
      return;
    case OP_FREE:
      a.owner.fill(NO_REQUEST, first, end);
      for (let p = first; p < end; p++) a.state[p] = a.writer[p] === NO_REQUEST ? PAGE_ZERO : PAGE_STALE;
      return;
    case OP_FREE_CLEAR:
      a.owner.fill(NO_REQUEST, first, end);
      a.writer.fill(NO_REQUEST, first, end);
      a.writeTime.fill(NO_TIME, first, end);
      a.state.fill(PAGE_CLEARED, first, end);
      return;
    default:
      throw new Error(`unknown page operation ${op}`);
  }
}

/** Receives page operations on node-local page ranges. */
export type PageOpSink = (op: number, node: number, first: number, count: number, req: number, t: number) => void;

function firstPages(ranges: PageRanges, n: number): PageRanges {
  const out: PageRanges = [];
  let left = n;
  for (const [first, count] of ranges) {
    if (left <= 0) break;
    const take = Math.min(count, left);
    out.push([first, take]);
    left -= take;
  }
  return out;
}

/**
 * The one mapping from engine events to page operations. Node numbers are indices into the
 * deployment's node layout (prefill nodes first); `request` maps an event's request to the id the
 * operations carry (a replay's global ids).
 */
export class PageOpMapper {
  private readonly prefillPages = new Map<number, PageRanges>();

  constructor(
    private readonly prefillNodes: number,
    private readonly pageSize: number,
    private readonly sink: PageOpSink,
    private readonly request: (req: number) => number = (req) => req,
  ) {}

  private each(op: number, node: number, ranges: PageRanges, req: number, t: number): void {
    const id = this.request(req);
    for (const [first, count] of ranges) this.sink(op, node, first, count, id, t);
  }

  onEvent(e: EngineEvent): void {
    switch (e.type) {
      case 'decode-reserve':
        this.each(e.cleared ? OP_RESERVE_CLEAR : OP_RESERVE, this.prefillNodes + e.node, e.pages, e.req, e.t);
        return;
      case 'prefill-alloc':
        this.prefillPages.set(e.req, e.pages);
        this.each(e.cleared ? OP_RESERVE_CLEAR : OP_RESERVE, e.node, e.pages, e.req, e.t);
        return;
      case 'prefill-compute':
        // Prefill writes the pages its computed tokens fill, from the first of its allocation.
        this.each(OP_WRITE, e.node, firstPages(this.prefillPages.get(e.req) ?? [], Math.ceil(e.tokens / this.pageSize)), e.req, e.t);
        return;
      case 'kv-transfer':
        this.each(OP_WRITE, this.prefillNodes + e.to, e.dstPages, e.req, e.t);
        return;
      case 'prefill-free':
        this.prefillPages.delete(e.req);
        this.each(e.cleared ? OP_FREE_CLEAR : OP_FREE, e.node, e.pages, e.req, e.t);
        return;
      case 'decode-grow':
        this.each(e.cleared ? OP_RESERVE_CLEAR : OP_RESERVE, this.prefillNodes + e.node, [[e.page, 1]], e.req, e.t);
        if (e.tokens > 0) this.each(OP_WRITE, this.prefillNodes + e.node, [[e.page, 1]], e.req, e.t);
        return;
      case 'decode-free':
        this.each(e.cleared ? OP_FREE_CLEAR : OP_FREE, this.prefillNodes + e.node, e.pages, e.req, e.t);
        return;
      default:
        return;
    }
  }
}

/** A recorded page history of one deployment, ready to transfer and to seek. */
export interface PageTimelineData {
  nodes: NodeLayout[];
  totalPages: number;
  /** Simulated ms from which this deployment serves. */
  from: number;
  opCount: number;
  op: Uint8Array;
  /** First page of each operation, as a global index (NodeLayout.pageOffset + node-local page). */
  first: Int32Array;
  count: Int32Array;
  req: Int32Array;
  t: Float64Array;
  checkpointCount: number;
  /** Op index each checkpoint was taken before (state after ops [0, opIndex)). */
  checkpointOp: Int32Array;
  checkpointState: Uint8Array;
  checkpointWriter: Int32Array;
  checkpointWriteTime: Float64Array;
  checkpointOwner: Int32Array;
}

/**
 * Applies page operations to live page arrays and, when `tape` is on, records them with
 * checkpoints for seeking. Without a tape it is the live page state alone (what a replay reads its
 * statistics from when nobody will seek).
 */
export class PageRecorder {
  readonly live: PageArrays;
  private op = new Uint8Array(1 << 14);
  private first = new Int32Array(1 << 14);
  private count = new Int32Array(1 << 14);
  private req = new Int32Array(1 << 14);
  private t = new Float64Array(1 << 14);
  private opCount = 0;
  private pageOpsSinceCheckpoint = 0;
  private opsSinceCheckpoint = 0;
  private readonly checkpoints: { op: number; arrays: PageArrays }[] = [];

  constructor(
    readonly nodes: NodeLayout[],
    readonly from: number,
    private readonly tape = true,
    /** Take a checkpoint after this many page updates (bounds seek work) ... */
    private readonly checkpointPageOps = 1_500_000,
    /** ... or this many operations. */
    private readonly checkpointOps = 8_000,
  ) {
    this.live = newPageArrays(nodes.reduce((n, x) => n + x.pageCount, 0));
    if (tape) this.checkpoint();
  }

  get totalPages(): number {
    return this.live.state.length;
  }

  /** Records one operation on node-local pages [first, first + count) of node `node`, and applies it. */
  readonly record: PageOpSink = (op, node, first, count, req, t) => {
    const global = this.nodes[node]!.pageOffset + first;
    applyPageOp(this.live, op, global, count, req, t);
    if (!this.tape) return;
    if (this.opCount > 0 && t < this.t[this.opCount - 1]!) throw new Error('page timeline: operations out of time order');
    if (this.opCount === this.op.length) this.grow();
    const i = this.opCount++;
    this.op[i] = op;
    this.first[i] = global;
    this.count[i] = count;
    this.req[i] = req;
    this.t[i] = t;
    this.pageOpsSinceCheckpoint += count;
    this.opsSinceCheckpoint++;
    if (this.pageOpsSinceCheckpoint >= this.checkpointPageOps || this.opsSinceCheckpoint >= this.checkpointOps) this.checkpoint();
  };

  private checkpoint(): void {
    const a = this.live;
    this.checkpoints.push({ op: this.opCount, arrays: { state: a.state.slice(), writer: a.writer.slice(), writeTime: a.writeTime.slice(), owner: a.owner.slice() } });
    this.pageOpsSinceCheckpoint = 0;
    this.opsSinceCheckpoint = 0;
  }

  private grow(): void {
    const n = this.op.length * 2;
    const grow = <T extends Uint8Array | Int32Array | Float64Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a as never);
      return b;
    };
    this.op = grow(this.op, (k) => new Uint8Array(k));
    this.first = grow(this.first, (k) => new Int32Array(k));
    this.count = grow(this.count, (k) => new Int32Array(k));
    this.req = grow(this.req, (k) => new Int32Array(k));
    this.t = grow(this.t, (k) => new Float64Array(k));
  }

  finish(): PageTimelineData {
    if (!this.tape) throw new Error('page recorder: no tape was recorded');
    const P = this.totalPages;
    const K = this.checkpoints.length;
    const data: PageTimelineData = {
      nodes: this.nodes,
      totalPages: P,
      from: this.from,
      opCount: this.opCount,
      op: this.op.slice(0, this.opCount),
      first: this.first.slice(0, this.opCount),
      count: this.count.slice(0, this.opCount),
      req: this.req.slice(0, this.opCount),
      t: this.t.slice(0, this.opCount),
      checkpointCount: K,
      checkpointOp: Int32Array.from(this.checkpoints.map((c) => c.op)),
      checkpointState: new Uint8Array(K * P),
      checkpointWriter: new Int32Array(K * P),
      checkpointWriteTime: new Float64Array(K * P),
      checkpointOwner: new Int32Array(K * P),
    };
    this.checkpoints.forEach((c, k) => {
      data.checkpointState.set(c.arrays.state, k * P);
      data.checkpointWriter.set(c.arrays.writer, k * P);
      data.checkpointWriteTime.set(c.arrays.writeTime, k * P);
      data.checkpointOwner.set(c.arrays.owner, k * P);
    });
    this.checkpoints.length = 0;
    return data;
  }
}

function timelineArrays(d: PageTimelineData) {
  return [d.op, d.first, d.count, d.req, d.t, d.checkpointOp, d.checkpointState, d.checkpointWriter, d.checkpointWriteTime, d.checkpointOwner];
}

/** The buffers of a page timeline, for a transfer list. */
export function pageTimelineBuffers(d: PageTimelineData): ArrayBuffer[] {
  return timelineArrays(d).map((a) => a.buffer as ArrayBuffer);
}

export function pageTimelineBytes(d: PageTimelineData): number {
  return timelineArrays(d).reduce((n, a) => n + a.byteLength, 0);
}

/**
 * Seeks a page timeline. `at(t)` returns the page arrays after every operation at or before t;
 * they are this seeker's working arrays, valid until the next call (copy them to keep them).
 * Moving forward within a checkpoint interval continues from the current state instead of
 * restarting from the checkpoint.
 */
export class PageSeeker {
  readonly current: PageArrays;
  private applied = -1;
  /** Operations applied before the last seek (−1: there was none), for changedPages. */
  private previous = -1;
  /** Per page, the changedPages call that last listed it (so each page is listed once). */
  private listedIn: Uint32Array | null = null;
  private listing = 0;
  private changed = new Int32Array(0);

  constructor(readonly data: PageTimelineData) {
    this.current = newPageArrays(data.totalPages);
  }

  /**
   * The pages whose arrays may differ between the state of the previous seek and that of the last
   * one (global indices, each once, in no particular order; a subarray valid until the next call).
   * The state is a function of how many operations were applied, so whatever path a seek took
   * (forward from the current state, back through a checkpoint), the pages that can differ are
   * those the operations between the two counts touch. Null when there is no previous seek, or
   * when those operations touch more than `limit` page updates: a caller then looks at every page
   * (a full diff), which costs less than listing a big jump page by page.
   */
  changedPages(limit = this.data.totalPages >> 2): Int32Array | null {
    if (this.previous < 0 || this.applied < 0) return null;
    const d = this.data;
    const from = Math.min(this.previous, this.applied);
    const to = Math.max(this.previous, this.applied);
    let updates = 0;
    for (let i = from; i < to; i++) {
      updates += d.count[i]!;
      if (updates > limit) return null;
    }
    if (!this.listedIn || this.listedIn.length !== d.totalPages) this.listedIn = new Uint32Array(d.totalPages);
    if (this.changed.length < Math.min(updates, d.totalPages)) this.changed = new Int32Array(Math.min(d.totalPages, Math.max(updates, this.changed.length * 2)));
    // A fresh stamp per call instead of clearing the marks: wraps after 4 billion calls.
    this.listing = (this.listing + 1) >>> 0;
    if (this.listing === 0) {
      this.listedIn.fill(0);
      this.listing = 1;
    }
    const stamp = this.listing;
    const marks = this.listedIn;
    let n = 0;
    for (let i = from; i < to; i++) {
      const end = d.first[i]! + d.count[i]!;
      for (let p = d.first[i]!; p < end; p++) {
        if (marks[p] === stamp) continue;
        marks[p] = stamp;
        this.changed[n++] = p;
      }
    }
    return this.changed.subarray(0, n);
  }

  /** Number of operations at or before t. */
  opsUntil(t: number): number {
    const times = this.data.t;
    let lo = 0;
    let hi = this.data.opCount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (times[mid]! <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  at(t: number): PageArrays {
    return this.afterOps(this.opsUntil(t));
  }

  private restore(k: number): void {
    const d = this.data;
    const P = d.totalPages;
    const base = k * P;
    this.current.state.set(d.checkpointState.subarray(base, base + P));
    this.current.writer.set(d.checkpointWriter.subarray(base, base + P));
    this.current.writeTime.set(d.checkpointWriteTime.subarray(base, base + P));
    this.current.owner.set(d.checkpointOwner.subarray(base, base + P));
  }

  /** State after the first n operations. */
  afterOps(n: number): PageArrays {
    const d = this.data;
    // Latest checkpoint taken at or before op n.
    let lo = 0;
    let hi = d.checkpointCount - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (d.checkpointOp[mid]! <= n) lo = mid;
      else hi = mid - 1;
    }
    const cpOp = d.checkpointOp[lo]!;
    let from: number;
    if (this.applied >= cpOp && this.applied <= n) {
      from = this.applied;
    } else {
      this.restore(lo);
      from = cpOp;
    }
    for (let i = from; i < n; i++) applyPageOp(this.current, d.op[i]!, d.first[i]!, d.count[i]!, d.req[i]!, d.t[i]!);
    this.previous = this.applied;
    this.applied = n;
    return this.current;
  }

  /** Replays from the very start, ignoring checkpoints: the baseline the benchmark compares with. */
  atFromStart(t: number): PageArrays {
    const n = this.opsUntil(t);
    const d = this.data;
    this.restore(0);
    for (let i = 0; i < n; i++) applyPageOp(this.current, d.op[i]!, d.first[i]!, d.count[i]!, d.req[i]!, d.t[i]!);
    this.previous = this.applied;
    this.applied = n;
    return this.current;
  }
}
