/// <reference path="./prebuilt.d.ts" />
/**
 * Starts runs in workers: one worker per run (a replay runs synchronously to its end, so cancelling
 * it stops its worker), kept afterwards to answer for single requests; the few most recent runs keep
 * theirs. The matrix has a worker of its own. A run the build prebuilt (`__PREBUILT_RUNS__`) is
 * loaded from its file instead, and replayed in a worker only when one request's detail is asked for.
 */
import type { RunProgress } from '../../engine/index.ts';
import { WEIGHTS_PATH } from '../../engine/model/recipe.ts';
import type { RunRequest } from '../../engine/runs/index.ts';
import { rpcClient, type RpcClient } from './rpc.ts';
import type { RunProtocol } from './runProtocol.ts';
import { summaryOf, type RunSummary } from './summary.ts';
import { decodeRunAsset } from './runAsset.ts';
import type { RequestDetailReply } from './runProtocol.ts';

const startWorker = () => new Worker(new URL('./run.worker.ts', import.meta.url), { type: 'module' });

/** The trained transformer's weights on this site (the build copies public/ beside the page). */
const weightsUrl = () => new URL(WEIGHTS_PATH, document.baseURI).href;

const MAX_KEPT_WORKERS = 3;
const kept: RpcClient<RunProtocol>[] = [];

function keep(client: RpcClient<RunProtocol>): void {
  kept.push(client);
  while (kept.length > MAX_KEPT_WORKERS) kept.shift()!.terminate();
}

/** How many run workers are alive (the soak benchmark checks none is left behind). */
export function liveRunWorkers(): number {
  return kept.length;
}

/** Run key → file of each prebuilt run, named once: the build writes the table wherever the name appears. */
const PREBUILT_RUNS: Readonly<Record<string, string>> = __PREBUILT_RUNS__;

/** Progress while a prebuilt run's file arrives: the share of its bytes received (phase `file`, no simulated time). */
const fileProgress = (fraction: number): RunProgress => ({ fraction, simulatedT: -1, phase: 'file' });

/**
 * Files fetched ahead of a switch (a pointer on it, or keyboard focus): the body's bytes, still
 * compressed, kept until the run is asked for. A few at most: one per switch a person points at.
 */
const fetchedAhead = new Map<string, Promise<Response>>();
const MAX_FETCHED_AHEAD = 4;

/** Starts fetching a prebuilt run's file, if there is one, so that switching to it need not wait for the network. */
export function fetchRunAhead(runKey: string): void {
  const file = PREBUILT_RUNS[runKey];
  if (!file || fetchedAhead.has(runKey)) return;
  const response = fetch(new URL(file, document.baseURI)).then(async (r) => new Response(await r.arrayBuffer(), { status: r.status, headers: r.headers }));
  // A failed fetch ahead is forgotten: the switch then fetches as usual.
  response.catch(() => fetchedAhead.delete(runKey));
  fetchedAhead.set(runKey, response);
  while (fetchedAhead.size > MAX_FETCHED_AHEAD) fetchedAhead.delete(fetchedAhead.keys().next().value!);
}

/**
 * Resolves once the browser has painted what React last committed (a frame's callbacks, then a task
 * after its paint); at once in a hidden page, where no frame comes until it is shown again.
 */
function afterNextPaint(): Promise<void> {
  if (typeof requestAnimationFrame === 'undefined' || document.visibilityState === 'hidden') return Promise.resolve();
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

/** The prebuilt run's file, inflated and decoded; null when this run key has none or the browser cannot inflate it. */
async function loadPrebuilt(runKey: string, signal: AbortSignal | undefined, onProgress?: (p: RunProgress) => void) {
  const file = PREBUILT_RUNS[runKey];
  if (!file || typeof DecompressionStream === 'undefined') return null;
  onProgress?.(fileProgress(0));
  const ahead = fetchedAhead.get(runKey);
  fetchedAhead.delete(runKey);
  const response = (ahead ? await ahead.catch(() => null) : null) ?? (await fetch(new URL(file, document.baseURI), signal ? { signal } : {}));
  if (!response.ok || !response.body) throw new Error(`prebuilt run ${file}: HTTP ${response.status}`);
  const total = Number(response.headers.get('Content-Length')) || 0;
  let received = 0;
  const counted: ReadableStream<BufferSource> =
    onProgress && total > 0
      ? response.body.pipeThrough(
          new TransformStream<Uint8Array<ArrayBuffer>, BufferSource>({
            transform(chunk, out) {
              received += chunk.byteLength;
              onProgress(fileProgress(Math.min(1, received / total)));
              out.enqueue(chunk);
            },
          }),
        )
      : response.body;
  const bytes = await new Response(counted.pipeThrough(new DecompressionStream('gzip'))).arrayBuffer();
  // Decoding and drawing the run hold the main thread for a while: the progress line goes up first.
  await afterNextPaint();
  const asset = decodeRunAsset(bytes);
  if (asset.runKey !== runKey) throw new Error(`prebuilt run ${file} holds another run`);
  return asset;
}

/** Details of a prebuilt run: its replay in a worker, started at the first request asked for. */
function detailsByReplay(request: RunRequest): (req: number) => Promise<RequestDetailReply> {
  let client: Promise<RpcClient<RunProtocol>> | null = null;
  return (req) => {
    client ??= (async () => {
      const c = rpcClient<RunProtocol>(startWorker, 'run worker', { terminateOnCancel: true });
      try {
        await c.call('run', { request, weightsUrl: weightsUrl() });
      } catch (e) {
        c.terminate();
        client = null;
        throw e;
      }
      keep(c);
      return c;
    })();
    return client.then((c) => c.call('detail', { req }));
  };
}

export async function startRun(request: RunRequest, runKey: string, options: { signal?: AbortSignal; onProgress?: (p: RunProgress) => void } = {}): Promise<RunSummary> {
  const started = performance.now();
  try {
    const prebuilt = await loadPrebuilt(runKey, options.signal, options.onProgress);
    if (prebuilt) {
      const replay = detailsByReplay(request);
      const stored = prebuilt.details;
      // The requests the file carries answer at once; any other starts the replay.
      const detail = (req: number): Promise<RequestDetailReply> => {
        const d = stored?.byRequest[req];
        return d ? Promise.resolve({ ...d, words: stored!.words }) : replay(req);
      };
      return summaryOf({ ...prebuilt.run, elapsedMs: performance.now() - started }, runKey, detail);
    }
  } catch (e) {
    if (options.signal?.aborted) throw e;
    // A missing or damaged file costs the first picture's speed, not the run: replay it live.
    console.warn(e instanceof Error ? e.message : e);
  }
  const client = rpcClient<RunProtocol>(startWorker, 'run worker', { terminateOnCancel: true });
  try {
    const result = await client.call('run', { request, weightsUrl: weightsUrl() }, options);
    keep(client);
    return summaryOf(result, runKey, (req) => client.call('detail', { req }));
  } catch (e) {
    client.terminate();
    throw e;
  }
}

let matrixClient: RpcClient<RunProtocol> | null = null;

export function runMatrixInWorker() {
  matrixClient ??= rpcClient<RunProtocol>(startWorker, 'matrix worker');
  return matrixClient.call('matrix', null);
}
