/**
 * Page-level history of one deployment's nodes, for seeking: which page holds whose data (request,
 * write time, live / stale / zero / cleared), rebuilt at any instant from checkpoints plus a tape of
 * page-range operations taken from the engine's events — the way RaftScope's state.js rewinds to the
 * nearest checkpoint and replays forward.
 *
 * Everything is typed arrays, so a whole timeline moves between a Worker and the page by transfer,
 * not by structured clone. Page-level, not slot-level: a view shows pages, and slot detail would
 * cost 64 times the memory.
 */
import { PAGE_CLEARED, PAGE_LIVE, PAGE_STALE, PAGE_ZERO, type NodeKind } from '../kvPool.ts';

export const OP_RESERVE = 0;
export const OP_WRITE = 1;
export const OP_FREE = 2;
export const OP_FREE_CLEAR = 3;

/** writeTime of a page never written (or cleared). */
export const NEVER_WRITTEN = 0xffffffff;

export interface NodeLayout {
  name: string;
  kind: NodeKind;
  pageCount: number;
  /** Index of the node's page 0 in the deployment's concatenated page arrays. */
  pageOffset: number;
}

/** The page arrays of every node of a deployment, concatenated (see NodeLayout.pageOffset). */
export interface PageArrays {
  state: Uint8Array;
  /** Global request index that last wrote the page (−1: zero-filled or cleared). */
  writer: Int32Array;
  /** Simulated ms of that write, truncated (NEVER_WRITTEN when none). */
  writeTime: Uint32Array;
  /** Global request index holding the page now (−1: free). */
  owner: Int32Array;
}

export interface PhaseTimelineData {
  nodes: NodeLayout[];
  totalPages: number;
  /** Simulated ms from which this deployment serves. */
  from: number;
  opCount: number;
  op: Uint8Array;
  first: Int32Array;
  count: Int32Array;
  req: Int32Array;
  t: Float64Array;
  checkpointCount: number;
  /** Op index each checkpoint was taken before (state after ops [0, opIndex)). */
  checkpointOp: Int32Array;
  checkpointState: Uint8Array;
  checkpointWriter: Int32Array;
  checkpointWriteTime: Uint32Array;
  checkpointOwner: Int32Array;
}

function newPageArrays(n: number): PageArrays {
  return {
    state: new Uint8Array(n),
    writer: new Int32Array(n).fill(-1),
    writeTime: new Uint32Array(n).fill(NEVER_WRITTEN),
    owner: new Int32Array(n).fill(-1),
  };
}

function applyOp(a: PageArrays, op: number, first: number, count: number, req: number, t: number): void {
  const end = first + count;
  switch (op) {
    case OP_RESERVE:
      a.state.fill(PAGE_LIVE, first, end);
      a.owner.fill(req, first, end);
      return;
    case OP_WRITE:
      a.writer.fill(req, first, end);
      a.writeTime.fill(Math.min(NEVER_WRITTEN - 1, Math.floor(t)), first, end);
      return;
    case OP_FREE:
      a.owner.fill(-1, first, end);
      for (let p = first; p < end; p++) a.state[p] = a.writer[p] === -1 ? PAGE_ZERO : PAGE_STALE;
      return;
    case OP_FREE_CLEAR:
      a.owner.fill(-1, first, end);
      a.writer.fill(-1, first, end);
      a.writeTime.fill(NEVER_WRITTEN, first, end);
      a.state.fill(PAGE_CLEARED, first, end);
      return;
  }
}

/** Builds a phase timeline while the engine runs: live page arrays, the tape, and checkpoints. */
export class PhaseRecorder {
  readonly live: PageArrays;
  private op = new Uint8Array(1 << 14);
  private first = new Int32Array(1 << 14);
  private count = new Int32Array(1 << 14);
  private req = new Int32Array(1 << 14);
  private t = new Float64Array(1 << 14);
  private opCount = 0;
  private pageOpsSinceCheckpoint = 0;
  private opsSinceCheckpoint = 0;
  private readonly checkpoints: { op: number; state: Uint8Array; writer: Int32Array; writeTime: Uint32Array; owner: Int32Array }[] = [];

  constructor(
    readonly nodes: NodeLayout[],
    readonly from: number,
    /** Take a checkpoint after this many page updates (bounds seek work) ... */
    private readonly checkpointPageOps = 1_500_000,
    /** ... or this many operations. */
    private readonly checkpointOps = 8_000,
  ) {
    const total = nodes.reduce((n, x) => n + x.pageCount, 0);
    this.live = newPageArrays(total);
    this.checkpoint();
  }

  get totalPages(): number {
    return this.live.state.length;
  }

  private checkpoint(): void {
    this.checkpoints.push({
      op: this.opCount,
      state: this.live.state.slice(),
      writer: this.live.writer.slice(),
      writeTime: this.live.writeTime.slice(),
      owner: this.live.owner.slice(),
    });
    this.pageOpsSinceCheckpoint = 0;
    this.opsSinceCheckpoint = 0;
  }

  /** Records one operation on pages [first, first + count) of node `node` and applies it. */
  record(op: number, node: number, first: number, count: number, req: number, t: number): void {
    if (this.opCount > 0 && t < this.t[this.opCount - 1]!) throw new Error('page timeline: operations out of time order');
    if (this.opCount === this.op.length) this.grow();
    const global = this.nodes[node]!.pageOffset + first;
    const i = this.opCount++;
    this.op[i] = op;
    this.first[i] = global;
    this.count[i] = count;
    this.req[i] = req;
    this.t[i] = t;
    applyOp(this.live, op, global, count, req, t);
    this.pageOpsSinceCheckpoint += count;
    this.opsSinceCheckpoint++;
    if (this.pageOpsSinceCheckpoint >= this.checkpointPageOps || this.opsSinceCheckpoint >= this.checkpointOps) this.checkpoint();
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

  finish(): PhaseTimelineData {
    const P = this.totalPages;
    const K = this.checkpoints.length;
    const data: PhaseTimelineData = {
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
      checkpointWriteTime: new Uint32Array(K * P),
      checkpointOwner: new Int32Array(K * P),
    };
    this.checkpoints.forEach((c, k) => {
      data.checkpointState.set(c.state, k * P);
      data.checkpointWriter.set(c.writer, k * P);
      data.checkpointWriteTime.set(c.writeTime, k * P);
      data.checkpointOwner.set(c.owner, k * P);
    });
    this.checkpoints.length = 0;
    return data;
  }
}

/** The buffers of a phase timeline, for a transfer list. */
export function phaseBuffers(d: PhaseTimelineData): ArrayBuffer[] {
  return [d.op, d.first, d.count, d.req, d.t, d.checkpointOp, d.checkpointState, d.checkpointWriter, d.checkpointWriteTime, d.checkpointOwner].map(
    (a) => a.buffer as ArrayBuffer,
  );
}

export function phaseBytes(d: PhaseTimelineData): number {
  return [d.op, d.first, d.count, d.req, d.t, d.checkpointOp, d.checkpointState, d.checkpointWriter, d.checkpointWriteTime, d.checkpointOwner].reduce((n, a) => n + a.byteLength, 0);
}

/**
 * Seeks a phase timeline. `at(t)` returns the page arrays after every operation at or before t;
 * they are this seeker's working arrays, valid until the next call (copy them to keep them).
 * Moving forward within a checkpoint interval continues from the current state instead of
 * restarting from the checkpoint.
 */
export class PhaseSeeker {
  readonly current: PageArrays;
  private applied = -1;

  constructor(readonly data: PhaseTimelineData) {
    this.current = newPageArrays(data.totalPages);
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
      const P = d.totalPages;
      const base = lo * P;
      this.current.state.set(d.checkpointState.subarray(base, base + P));
      this.current.writer.set(d.checkpointWriter.subarray(base, base + P));
      this.current.writeTime.set(d.checkpointWriteTime.subarray(base, base + P));
      this.current.owner.set(d.checkpointOwner.subarray(base, base + P));
      from = cpOp;
    }
    for (let i = from; i < n; i++) applyOp(this.current, d.op[i]!, d.first[i]!, d.count[i]!, d.req[i]!, d.t[i]!);
    this.applied = n;
    return this.current;
  }

  /** Replays from the very start, ignoring checkpoints: the baseline the benchmark compares with. */
  atFromStart(t: number): PageArrays {
    const n = this.opsUntil(t);
    const P = this.data.totalPages;
    const d = this.data;
    this.current.state.set(d.checkpointState.subarray(0, P));
    this.current.writer.set(d.checkpointWriter.subarray(0, P));
    this.current.writeTime.set(d.checkpointWriteTime.subarray(0, P));
    this.current.owner.set(d.checkpointOwner.subarray(0, P));
    for (let i = 0; i < n; i++) applyOp(this.current, d.op[i]!, d.first[i]!, d.count[i]!, d.req[i]!, d.t[i]!);
    this.applied = n;
    return this.current;
  }
}
