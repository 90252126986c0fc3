/// <reference lib="webworker" />
/** Runs the engine off the main thread; the page stays responsive while a trace is simulated. */
import { INCIDENT_CONFIG, Simulation, demoTrace, matrixTrace, runMatrix, withOverrides } from '../engine/index.ts';
import type { SimulationSummary, WorkerRequest, WorkerResponse } from './protocol.ts';

const post = (message: WorkerResponse) => (self as unknown as DedicatedWorkerGlobalScope).postMessage(message);

self.onmessage = (e: MessageEvent<WorkerRequest>) => {
  const msg = e.data;
  const started = performance.now();
  try {
    if (msg.kind === 'matrix') {
      const rows = runMatrix();
      post({ kind: 'matrix', id: msg.id, rows, elapsedMs: performance.now() - started });
      return;
    }
    const trace = msg.scenario === 'matrix' ? matrixTrace() : demoTrace();
    const sim = new Simulation(withOverrides(INCIDENT_CONFIG, msg.overrides), trace, { keepEvents: false }).run();
    const summary: SimulationSummary = {
      traceName: trace.name ?? '',
      counters: sim.counters(),
      leaks: sim.responses
        .filter((r) => r.leakedFrom.length > 0)
        .map((r) => ({
          id: r.id, tenant: r.tenant, promptTokens: r.promptTokens, computedTokens: r.computedTokens, status: r.status,
          dataOf: r.leakedFrom, canaries: r.canaryHits, text: r.text, expectedText: r.expectedText,
        })),
      eventLogHash: sim.eventLogHash,
      events: sim.eventsEmitted,
      elapsedMs: performance.now() - started,
    };
    post({ kind: 'simulated', id: msg.id, summary });
  } catch (err) {
    post({ kind: 'error', id: msg.id, message: err instanceof Error ? err.message : String(err) });
  }
};
