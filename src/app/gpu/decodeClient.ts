/** A promise-based client of the decode-backend worker, plus its unasked status updates. */
import type { BackendStatus, DecodeRequest, DecodeResponse } from './decodeProtocol.ts';

type Pending = { resolve: (r: DecodeResponse) => void; reject: (e: Error) => void };

let worker: Worker | null = null;
const pending = new Map<number, Pending>();
const statusListeners = new Set<(s: BackendStatus) => void>();
let nextId = 1;

function getWorker(): Worker {
  if (!worker) {
    worker = new Worker(new URL('./decode.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (e: MessageEvent<DecodeResponse>) => {
      const r = e.data;
      if (r.kind !== 'error') for (const l of statusListeners) l(r.status);
      const p = pending.get(r.id);
      if (!p) return;
      pending.delete(r.id);
      if (r.kind === 'error') p.reject(new Error(r.message));
      else p.resolve(r);
    };
    worker.onerror = (e) => {
      for (const p of pending.values()) p.reject(new Error(e.message || 'decode worker failed'));
      pending.clear();
    };
  }
  return worker;
}

type WithoutId<T> = T extends unknown ? Omit<T, 'id'> : never;
type ResponseOf<K extends DecodeResponse['kind']> = Extract<DecodeResponse, { kind: K }>;

export function callDecode<K extends DecodeResponse['kind']>(request: WithoutId<DecodeRequest>, expect: K): Promise<ResponseOf<K>> {
  const id = nextId++;
  return new Promise<DecodeResponse>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    getWorker().postMessage({ ...request, id } as DecodeRequest);
  }).then((r) => {
    if (r.kind !== expect) throw new Error(`decode worker answered ${r.kind}, expected ${expect}`);
    return r as ResponseOf<K>;
  });
}

/** Every status the worker reports, asked for or not (a device lost while idle). */
export function onBackendStatus(listener: (s: BackendStatus) => void): () => void {
  statusListeners.add(listener);
  return () => statusListeners.delete(listener);
}
