/// <reference lib="webworker" />
/**
 * Runs a scenario off the main thread through the engine's one run path. Progress goes out at most
 * every 50 ms of wall time; the result goes out once, its typed arrays transferred (never copied).
 * The worker then stays to answer for single requests (their events and response), asked for only
 * when a person opens one.
 */
import { runBuffers, runMatrix, type RequestDetails } from '../../engine/index.ts';
import { computeRun } from './computeRun.ts';
import { serveRpc } from './rpc.ts';
import type { RunProtocol } from './runProtocol.ts';

let details: RequestDetails | null = null;

serveRpc<RunProtocol>(self as unknown as DedicatedWorkerGlobalScope, {
  run(request, ctx) {
    const started = performance.now();
    // At once, so the page shows the replay has started before its first simulated hour is done.
    ctx.progress({ fraction: 0, simulatedT: 0, phase: 'started' });
    let lastPost = performance.now();
    const computed = computeRun(request, {
      keepDetails: true,
      onProgress: (p) => {
        const now = performance.now();
        if (now - lastPost < 50 && p.fraction < 1) return;
        lastPost = now;
        ctx.progress(p);
      },
    });
    details = computed.details;
    const rest = computed.run;
    ctx.transfer(runBuffers(rest));
    return { ...rest, elapsedMs: performance.now() - started };
  },
  detail({ req }) {
    if (!details) throw new Error('no run has finished in this worker');
    return { events: details.events[req] ?? [], response: details.responses[req] ?? null, words: details.words };
  },
  matrix() {
    const started = performance.now();
    return { rows: runMatrix(), elapsedMs: performance.now() - started };
  },
});
