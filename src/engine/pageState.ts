/**
 * Page-level state of every node, rebuilt from the event log: who last wrote each page, for which
 * request, when, and whether it is live, stale, zero or cleared. This is what the views draw; it is
 * per page (a few typed arrays per node), not per slot, so a snapshot is cheap to copy and transfer.
 */
import type { EngineEvent, PageRanges } from './events.ts';
import { NO_REQUEST, PAGE_CLEARED, PAGE_LIVE, PAGE_STALE, PAGE_ZERO, type NodeKind } from './kvPool.ts';

export interface NodePages {
  name: string;
  kind: NodeKind;
  index: number;
  pageCount: number;
  state: Uint8Array;
  /** Request currently holding the page, or −1. */
  owner: Int32Array;
  /** Request whose handoff last wrote the page, or −1. */
  writtenFor: Int32Array;
  /** Tenant index of that request, or −1. */
  writerTenant: Int16Array;
  writeTime: Float64Array;
}

export interface ClusterPages {
  t: number;
  nodes: NodePages[];
}

export function emptyCluster(nodes: { kind: NodeKind; index: number; pageCount: number }[]): ClusterPages {
  return {
    t: -Infinity,
    nodes: nodes.map(({ kind, index, pageCount }) => ({
      name: `${kind}-${index}`,
      kind,
      index,
      pageCount,
      state: new Uint8Array(pageCount).fill(PAGE_ZERO),
      owner: new Int32Array(pageCount).fill(NO_REQUEST),
      writtenFor: new Int32Array(pageCount).fill(NO_REQUEST),
      writerTenant: new Int16Array(pageCount).fill(-1),
      writeTime: new Float64Array(pageCount).fill(-1),
    })),
  };
}

export function cloneCluster(c: ClusterPages): ClusterPages {
  return {
    t: c.t,
    nodes: c.nodes.map((n) => ({
      ...n,
      state: n.state.slice(),
      owner: n.owner.slice(),
      writtenFor: n.writtenFor.slice(),
      writerTenant: n.writerTenant.slice(),
      writeTime: n.writeTime.slice(),
    })),
  };
}

function forPages(ranges: PageRanges, fn: (page: number) => void): void {
  for (const [first, count] of ranges) for (let p = first; p < first + count; p++) fn(p);
}

/**
 * Applies one event. `prefillNodes` is the number of prefill nodes (decode node i is nodes[P + i]);
 * `requestTenant` maps request → tenant index.
 */
export function applyEvent(c: ClusterPages, e: EngineEvent, prefillNodes: number, requestTenant: ArrayLike<number>, pendingPrefill: Map<number, PageRanges>): void {
  c.t = e.t;
  switch (e.type) {
    case 'decode-reserve':
    case 'prefill-alloc': {
      const node = c.nodes[e.type === 'prefill-alloc' ? e.node : prefillNodes + e.node]!;
      forPages(e.pages, (p) => {
        node.owner[p] = e.req;
        node.state[p] = PAGE_LIVE;
      });
      if (e.type === 'prefill-alloc') pendingPrefill.set(e.req, e.pages);
      break;
    }
    case 'prefill-compute': {
      const node = c.nodes[e.node]!;
      const pages = pendingPrefill.get(e.req) ?? [];
      forPages(pages, (p) => written(node, p, e.req, requestTenant, e.t));
      break;
    }
    case 'kv-transfer': {
      const node = c.nodes[prefillNodes + e.to]!;
      forPages(e.dstPages, (p) => written(node, p, e.req, requestTenant, e.t));
      break;
    }
    case 'prefill-free':
    case 'decode-free': {
      const node = c.nodes[e.type === 'prefill-free' ? e.node : prefillNodes + e.node]!;
      forPages(e.pages, (p) => {
        node.owner[p] = NO_REQUEST;
        if (e.cleared) {
          node.state[p] = PAGE_CLEARED;
          node.writtenFor[p] = NO_REQUEST;
          node.writerTenant[p] = -1;
        } else {
          node.state[p] = node.writtenFor[p] === NO_REQUEST ? PAGE_ZERO : PAGE_STALE;
        }
      });
      if (e.type === 'prefill-free') pendingPrefill.delete(e.req);
      break;
    }
    default:
      break;
  }
}

function written(node: NodePages, p: number, req: number, requestTenant: ArrayLike<number>, t: number): void {
  node.writtenFor[p] = req;
  node.writerTenant[p] = requestTenant[req] ?? -1;
  node.writeTime[p] = t;
}

/**
 * Seekable page state over an event log: checkpoints every `interval` events, so `at(t)` replays at
 * most `interval` events from the nearest earlier checkpoint (RaftScope's rewind, for pages).
 */
export class PageTimeline {
  private readonly checkpoints: { index: number; cluster: ClusterPages; pending: Map<number, PageRanges> }[] = [];

  constructor(
    private readonly events: readonly EngineEvent[],
    private readonly layout: { kind: NodeKind; index: number; pageCount: number }[],
    private readonly prefillNodes: number,
    private readonly requestTenant: ArrayLike<number>,
    private readonly interval = 2000,
  ) {
    const cluster = emptyCluster(layout);
    const pending = new Map<number, PageRanges>();
    this.checkpoints.push({ index: 0, cluster: cloneCluster(cluster), pending: new Map() });
    for (let i = 0; i < events.length; i++) {
      if (i > 0 && i % interval === 0) this.checkpoints.push({ index: i, cluster: cloneCluster(cluster), pending: new Map(pending) });
      applyEvent(cluster, events[i]!, prefillNodes, requestTenant, pending);
    }
  }

  /** Index of the first event after time t. */
  private upperBound(t: number): number {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.events[mid]!.t <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Page state after every event at or before t. */
  at(t: number): ClusterPages {
    const end = this.upperBound(t);
    let cp = this.checkpoints[0]!;
    for (const c of this.checkpoints) if (c.index <= end) cp = c;
    const cluster = cloneCluster(cp.cluster);
    const pending = new Map(cp.pending);
    for (let i = cp.index; i < end; i++) applyEvent(cluster, this.events[i]!, this.prefillNodes, this.requestTenant, pending);
    cluster.t = t;
    return cluster;
  }
}
