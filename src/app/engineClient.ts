/** A promise-based client of the engine worker (one worker, replies matched by id). */
import type { WorkerRequest, WorkerResponse } from './protocol.ts';

type Pending = { resolve: (r: WorkerResponse) => void; reject: (e: Error) => void };

let worker: Worker | null = null;
const pending = new Map<number, Pending>();
let nextId = 1;

function getWorker(): Worker {
  if (!worker) {
    worker = new Worker(new URL('./engine.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (e: MessageEvent<WorkerResponse>) => {
      const p = pending.get(e.data.id);
      if (!p) return;
      pending.delete(e.data.id);
      if (e.data.kind === 'error') p.reject(new Error(e.data.message));
      else p.resolve(e.data);
    };
    worker.onerror = (e) => {
      for (const p of pending.values()) p.reject(new Error(e.message || 'engine worker failed'));
      pending.clear();
    };
  }
  return worker;
}

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type ReplyFor<K extends WorkerRequest['kind']> = Extract<WorkerResponse, { kind: K }>;

export function callEngine<R extends WithoutId<WorkerRequest>>(request: R): Promise<ReplyFor<R['kind']>> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve: resolve as (r: WorkerResponse) => void, reject });
    getWorker().postMessage({ ...request, id } as WorkerRequest);
  });
}
