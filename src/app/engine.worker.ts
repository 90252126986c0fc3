/// <reference lib="webworker" />
/**
 * Runs the engine off the main thread. A run is simulated once and kept (with a checkpointed page
 * timeline) so that seeking and inspecting only replay page events, never re-simulate.
 */
import {
  DeploymentRefused,
  INCIDENT_CONFIG,
  PageTimeline,
  Simulation,
  demoTrace,
  matrixTrace,
  prefillInputLimit,
  runMatrix,
  withOverrides,
  type Trace,
} from '../engine/index.ts';
import { FLAG_CANARY, FLAG_LEAKED, FLAG_OVER_LIMIT, FLAG_WRONG, type RunRequest, type RunSummary, type Snapshot, type WorkerRequest, type WorkerResponse } from './protocol.ts';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const post = (message: WorkerResponse, transfer: Transferable[] = []) => scope.postMessage(message, transfer);

interface KeptRun {
  sim: Simulation | null;
  timeline: PageTimeline | null;
}
const runs = new Map<string, KeptRun>();
const MAX_KEPT_RUNS = 6;

/** The demo and matrix traces start at an arbitrary instant; they are models, not the incident. */
const SCENARIOS: Record<Exclude<RunRequest['scenario'], 'incident'>, () => Trace> = { demo: demoTrace, matrix: matrixTrace };
const MODEL_START = Date.UTC(2026, 7, 27, 9, 0, 0);

function run(req: RunRequest, runKey: string): RunSummary {
  const started = performance.now();
  if (req.scenario === 'incident') throw new Error('the incident window is replayed by the replay worker');
  const trace = SCENARIOS[req.scenario]();
  const config = withOverrides(INCIDENT_CONFIG, req.overrides);
  let sim: Simulation | null = null;
  let refused: string | null = null;
  try {
    sim = new Simulation(config, trace).run();
  } catch (e) {
    if (!(e instanceof DeploymentRefused)) throw e;
    refused = e.message;
  }
  const n = sim ? trace.requests.length : 0;
  const columns = {
    ids: sim ? trace.requests.map((r, i) => r.id ?? `r${i}`) : [],
    tenant: new Int16Array(n),
    arrivedAt: new Float64Array(n),
    finishedAt: new Float64Array(n),
    promptTokens: new Int32Array(n),
    computedTokens: new Int32Array(n),
    status: new Int16Array(n),
    flags: new Uint8Array(n),
  };
  const limit = prefillInputLimit(config);
  for (const r of sim?.responses ?? []) {
    const i = r.request;
    columns.tenant[i] = sim!.requestTenant[i]!;
    columns.arrivedAt[i] = r.arrivedAt;
    columns.finishedAt[i] = r.finishedAt;
    columns.promptTokens[i] = r.promptTokens;
    columns.computedTokens[i] = r.computedTokens;
    columns.status[i] = r.status;
    columns.flags[i] =
      (r.leakedFrom.length ? FLAG_LEAKED : 0) | (r.canaryHits.length ? FLAG_CANARY : 0) | (r.correct === false ? FLAG_WRONG : 0) | (r.promptTokens > limit ? FLAG_OVER_LIMIT : 0);
  }
  const nodes = sim ? [...sim.prefillPools, ...sim.decodePools].map((p) => ({ name: p.name, kind: p.kind, index: p.index, pageCount: p.pageCount })) : [];
  const timeline = sim ? new PageTimeline(sim.events, nodes, config.prefillNodes, sim.requestTenant) : null;
  keep(runKey, { sim, timeline });
  const violations = (sim?.events ?? []).flatMap((e) => (e.type === 'decode-read' && e.foreignTenants.length > 0 ? [{ t: e.t, req: e.req, node: e.node, foreignTenants: e.foreignTenants }] : []));
  const empty = { requests: 0, statusCounts: {}, rejected: 0, served: 0, errors: 0, leaked: 0, canaryLeaks: 0, integrityFailures: 0, pagesReserved: 0, pagesWritten: 0, pagesReadStale: 0 };
  return {
    runKey,
    traceName: trace.name ?? req.scenario,
    startEpochMs: trace.startTime ? Date.parse(trace.startTime) : MODEL_START,
    endMs: sim?.events[sim.events.length - 1]?.t ?? 0,
    tenants: trace.tenants.map((t) => t.name),
    nodes,
    pageSize: config.pageSize,
    prefillLimit: limit,
    requests: columns,
    violations,
    counters: sim?.counters() ?? empty,
    eventLogHash: sim?.eventLogHash ?? '',
    events: sim?.eventsEmitted ?? 0,
    elapsedMs: performance.now() - started,
    refused,
  };
}

function keep(key: string, value: KeptRun): void {
  runs.delete(key);
  runs.set(key, value);
  while (runs.size > MAX_KEPT_RUNS) runs.delete(runs.keys().next().value!);
}

function seek(runKey: string, t: number): Snapshot {
  const kept = runs.get(runKey);
  if (!kept?.timeline || !kept.sim) return { runKey, t, nodes: [], inFlight: [] };
  const cluster = kept.timeline.at(t);
  const inFlight = new Set<number>();
  for (const n of cluster.nodes) for (let p = 0; p < n.pageCount; p++) if (n.owner[p]! >= 0) inFlight.add(n.owner[p]!);
  return {
    runKey,
    t,
    nodes: cluster.nodes.map((n) => ({ name: n.name, kind: n.kind, pageCount: n.pageCount, state: n.state, owner: n.owner, writtenFor: n.writtenFor, writerTenant: n.writerTenant, writeTime: n.writeTime })),
    inFlight: [...inFlight].sort((a, b) => a - b),
  };
}

scope.onmessage = (e: MessageEvent<WorkerRequest>) => {
  const msg = e.data;
  try {
    switch (msg.kind) {
      case 'run': {
        const summary = run(msg.run, msg.runKey);
        const c = summary.requests;
        post({ kind: 'run', id: msg.id, summary }, [c.tenant.buffer, c.arrivedAt.buffer, c.finishedAt.buffer, c.promptTokens.buffer, c.computedTokens.buffer, c.status.buffer, c.flags.buffer]);
        break;
      }
      case 'seek': {
        const snapshot = seek(msg.runKey, msg.t);
        post({ kind: 'seek', id: msg.id, snapshot }, snapshot.nodes.flatMap((n) => [n.state.buffer, n.owner.buffer, n.writtenFor.buffer, n.writerTenant.buffer, (n.writeTime as Float64Array).buffer]));
        break;
      }
      case 'detail': {
        const kept = runs.get(msg.runKey);
        const sim = kept?.sim;
        const response = sim?.responses.find((r) => r.request === msg.req);
        if (!sim || !response) throw new Error(`no request ${msg.req} in this run`);
        post({ kind: 'detail', id: msg.id, detail: { runKey: msg.runKey, response, events: sim.events.filter((ev) => 'req' in ev && ev.req === msg.req), words: sim.vocab.words } });
        break;
      }
      case 'matrix': {
        const started = performance.now();
        post({ kind: 'matrix', id: msg.id, rows: runMatrix(), elapsedMs: performance.now() - started });
        break;
      }
    }
  } catch (err) {
    post({ kind: 'error', id: msg.id, message: err instanceof Error ? err.message : String(err) });
  }
};
