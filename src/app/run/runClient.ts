/**
 * Starts runs in workers: one worker per run (a replay runs synchronously to its end, so cancelling
 * it stops its worker), kept afterwards to answer for single requests; the few most recent runs keep
 * theirs. The matrix has a worker of its own.
 */
import type { RunProgress } from '../../engine/index.ts';
import type { RunRequest } from '../../engine/runs/index.ts';
import { rpcClient, type RpcClient } from './rpc.ts';
import type { RunProtocol } from './runProtocol.ts';
import { summaryOf, type RunSummary } from './summary.ts';

const startWorker = () => new Worker(new URL('./run.worker.ts', import.meta.url), { type: 'module' });

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

export async function startRun(request: RunRequest, runKey: string, options: { signal?: AbortSignal; onProgress?: (p: RunProgress) => void } = {}): Promise<RunSummary> {
  const client = rpcClient<RunProtocol>(startWorker, 'run worker', { terminateOnCancel: true });
  try {
    const result = await client.call('run', request, options);
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
