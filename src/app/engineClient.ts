/** A promise-based client of the engine worker (one worker, replies matched by id). */
import type { WorkerRequest, WorkerResponse } from './protocol.ts';
import { workerRpc, type WithoutId } from './workerRpc.ts';

const rpc = workerRpc<WorkerRequest, WorkerResponse>(() => new Worker(new URL('./engine.worker.ts', import.meta.url), { type: 'module' }), 'engine worker');

type ReplyFor<K extends WorkerRequest['kind']> = Extract<WorkerResponse, { kind: K }>;

export function callEngine<R extends WithoutId<WorkerRequest>>(request: R): Promise<ReplyFor<R['kind']>> {
  return rpc.call(request) as Promise<ReplyFor<R['kind']>>;
}
