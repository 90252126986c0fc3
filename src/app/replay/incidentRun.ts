/**
 * The incident replay seen through the same RunSummary the other scenarios give, so every view
 * works on it unchanged: request columns, cross-tenant reads, counters, and a local seek (the page
 * asks the IncidentTimeline directly; no worker round trip while scrubbing).
 */
import { FLAG_ABORTED, FLAG_LEAK_CANARY, FLAG_LEAK_PROVENANCE, T_WINDOW_END, WINDOW_START_MS } from '../../engine/incident/index.ts';
import { FLAG_CANARY, FLAG_LEAKED, FLAG_OVER_LIMIT, type NodeSnapshot, type RunSummary, type Snapshot } from '../protocol.ts';
import type { LoadedReplay } from './replayClient.ts';

export function summaryFromReplay(loaded: LoadedReplay, runKey: string): RunSummary {
  const s = loaded.snapshot;
  const r = s.requests;
  const n = r.count;
  const flags = new Uint8Array(n);
  const computed = new Int32Array(n);
  const statusCounts: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const f = r.flags[i]!;
    flags[i] = (f & FLAG_LEAK_PROVENANCE ? FLAG_LEAKED : 0) | (f & FLAG_LEAK_CANARY ? FLAG_CANARY : 0) | (r.promptTokens[i]! > s.threshold ? FLAG_OVER_LIMIT : 0);
    computed[i] = f & FLAG_ABORTED ? 1 : r.promptTokens[i]!;
    statusCounts[r.status[i]!] = (statusCounts[r.status[i]!] ?? 0) + 1;
  }
  const violations: RunSummary['violations'] = [];
  const reads = s.reads;
  for (let k = 0; k < reads.count; k++) {
    if (reads.foreignPages[k]! > 0) violations.push({ t: reads.t[k]!, req: reads.req[k]!, node: reads.node[k]!, foreignTenants: [] });
  }
  const c = s.counts;
  const tenantOf = r.tenant;
  return {
    runKey,
    traceName: 'incident window, 27 Aug – 9 Sep (model traffic)',
    startEpochMs: WINDOW_START_MS,
    endMs: T_WINDOW_END,
    tenants: s.tenantNames,
    nodes: s.timelines.incident.nodes.map((node, i) => ({ name: node.name, kind: node.kind, index: i, pageCount: node.pageCount })),
    pageSize: 64,
    prefillLimit: s.threshold,
    requests: {
      ids: s.requestIds,
      tenant: Int16Array.from(r.tenant),
      arrivedAt: r.arrivedAt,
      finishedAt: r.finishedAt,
      promptTokens: r.promptTokens,
      computedTokens: computed,
      status: Int16Array.from(r.status),
      flags,
    },
    violations,
    counters: {
      requests: c.requests,
      statusCounts,
      rejected: c.rejected400,
      served: c.served,
      errors: c.failed500,
      leaked: c.leakedByProvenance,
      canaryLeaks: c.leakedByCanary,
      integrityFailures: c.wrongOutput,
      pagesReserved: 0,
      pagesWritten: 0,
      pagesReadStale: 0,
    },
    eventLogHash: `${s.eventLogHashes.incident}+${s.eventLogHashes.fixed}`,
    events: s.events,
    elapsedMs: s.elapsedMs,
    refused: null,
    local: {
      seek(t: number): Snapshot {
        const state = loaded.timeline.stateAt(t);
        const pages = state.pages;
        const nodes: NodeSnapshot[] = state.nodes.map((node) => {
          const from = node.pageOffset;
          const to = from + node.pageCount;
          const writer = pages.writer.subarray(from, to);
          const writerTenant = new Int16Array(node.pageCount);
          for (let p = 0; p < node.pageCount; p++) writerTenant[p] = writer[p]! >= 0 ? tenantOf[writer[p]!]! : -1;
          return { name: node.name, kind: node.kind, pageCount: node.pageCount, state: pages.state.subarray(from, to), owner: pages.owner.subarray(from, to), writtenFor: writer, writerTenant, writeTime: pages.writeTime.subarray(from, to) };
        });
        return { runKey, t, nodes, inFlight: Array.from(state.inFlight) };
      },
      async detail(req: number) {
        const d = await loaded.detail(req);
        if (!d.response) throw new Error(`request ${s.requestIds[req] ?? req} was refused at the gateway (the model was private); it has no handoff`);
        return { runKey, response: d.response, events: d.events, words: d.words };
      },
    },
  };
}
