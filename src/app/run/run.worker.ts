/// <reference lib="webworker" />
/**
 * Runs a scenario off the main thread through the engine's one run path. Progress goes out at most
 * every 50 ms of wall time; the result goes out once, its typed arrays transferred (never copied).
 * The worker then stays to answer for single requests (their events and response), asked for only
 * when a person opens one.
 */
import { runBuffers, runMatrix, runScenario, type RequestDetails } from '../../engine/index.ts';
import { runSpecOf } from '../../engine/runs/index.ts';
import { serveRpc } from './rpc.ts';
import type { RunProtocol } from './runProtocol.ts';

let details: RequestDetails | null = null;

serveRpc<RunProtocol>(self as unknown as DedicatedWorkerGlobalScope, {
  run(request, ctx) {
    const started = performance.now();
    let lastPost = -Infinity;
    const result = runScenario(runSpecOf(request), {
      record: true,
      keepDetails: true,
      onProgress: (p) => {
        const now = performance.now();
        if (now - lastPost < 50 && p.fraction < 1) return;
        lastPost = now;
        ctx.progress(p);
      },
    });
    details = result.details;
    const { details: _kept, ...rest } = result;
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
