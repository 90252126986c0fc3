/** A client of the decode-backend worker; every status it reports, asked for or not, reaches the store. */
import { useApp } from '../state/store.ts';
import type { DecodeEvent, DecodeProtocol } from './decodeProtocol.ts';
import { rpcClient } from './rpc.ts';

const client = rpcClient<DecodeProtocol, DecodeEvent>(() => new Worker(new URL('./decode.worker.ts', import.meta.url), { type: 'module' }), 'decode worker', {
  // A device lost while idle: the worker says so unasked.
  onEvent: (e) => useApp.getState().setDecode({ status: e.status }),
});

export async function callDecode<M extends keyof DecodeProtocol & string>(method: M, params: DecodeProtocol[M]['params']): Promise<DecodeProtocol[M]['result']> {
  const reply = await client.call(method, params);
  useApp.getState().setDecode({ status: reply.status });
  return reply;
}
