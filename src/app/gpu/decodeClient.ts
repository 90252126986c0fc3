/** A promise-based client of the decode-backend worker, plus its unasked status updates. */
import { workerRpc, type WithoutId } from '../workerRpc.ts';
import type { BackendStatus, DecodeRequest, DecodeResponse } from './decodeProtocol.ts';

const statusListeners = new Set<(s: BackendStatus) => void>();

const rpc = workerRpc<DecodeRequest, DecodeResponse>(
  () => new Worker(new URL('./decode.worker.ts', import.meta.url), { type: 'module' }),
  'decode worker',
  // Every reply carries the backend's status; listeners also hear the ones nobody asked for.
  (r) => {
    if (r.kind !== 'error') for (const l of statusListeners) l(r.status);
  },
);

type ResponseOf<K extends DecodeResponse['kind']> = Extract<DecodeResponse, { kind: K }>;

export function callDecode<K extends DecodeResponse['kind']>(request: WithoutId<DecodeRequest>, expect: K): Promise<ResponseOf<K>> {
  return rpc.call(request).then((r) => {
    if (r.kind !== expect) throw new Error(`decode worker answered ${r.kind}, expected ${expect}`);
    return r as ResponseOf<K>;
  });
}

/** Every status the worker reports, asked for or not (a device lost while idle). */
export function onBackendStatus(listener: (s: BackendStatus) => void): () => void {
  statusListeners.add(listener);
  return () => statusListeners.delete(listener);
}
