/// <reference lib="webworker" />
/**
 * Runs a scenario off the main thread through the engine's one run path. Progress goes out at most
 * every 50 ms of wall time; the result goes out once, its typed arrays transferred (never copied).
 * The worker then stays to answer for single requests (their events and response), asked for only
 * when a person opens one.
 */
import { decodeWeights, runBuffers, runMatrix, type RequestDetails, type TransformerWeights } from '../../engine/index.ts';
import { decoderOf } from '../../engine/runs/index.ts';
import { computeRun } from './computeRun.ts';
import { serveRpc } from './rpc.ts';
import type { RunProtocol } from './runProtocol.ts';

let details: RequestDetails | null = null;

/** The transformer's weights, fetched once per worker from the site itself. */
let weights: { url: string; weights: Promise<TransformerWeights> } | null = null;

function weightsFrom(url: string): Promise<TransformerWeights> {
  if (new URL(url).origin !== self.location.origin) return Promise.reject(new Error(`the model's weights must come from this site, not ${new URL(url).origin}`));
  if (weights?.url !== url) {
    const loading = fetch(url).then(async (r) => {
      if (!r.ok) throw new Error(`the model's weights (${url}): HTTP ${r.status}`);
      return decodeWeights(new Uint8Array(await r.arrayBuffer())).weights;
    });
    // A failed fetch is tried again at the next run.
    loading.catch(() => (weights = null));
    weights = { url, weights: loading };
  }
  return weights.weights;
}

serveRpc<RunProtocol>(self as unknown as DedicatedWorkerGlobalScope, {
  async run({ request, weightsUrl }, ctx) {
    const started = performance.now();
    // At once, so the page shows the replay has started before its first simulated hour is done.
    ctx.progress({ fraction: 0, simulatedT: 0, phase: 'started' });
    const transformer = decoderOf(request) === 'transformer' ? await weightsFrom(weightsUrl) : undefined;
    let lastPost = performance.now();
    const computed = computeRun(request, {
      keepDetails: true,
      ...(transformer ? { transformer } : {}),
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
