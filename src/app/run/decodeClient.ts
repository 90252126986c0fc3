/** A client of the decode-backend worker; every status it reports, asked for or not, reaches the store. */
import type { AppStore } from '../state/store.ts';
import type { DecodeEvent, DecodeProtocol } from './decodeProtocol.ts';
import { rpcClient } from './rpc.ts';

const client = rpcClient<DecodeProtocol, DecodeEvent>(() => new Worker(new URL('./decode.worker.ts', import.meta.url), { type: 'module' }), 'decode worker', {
  // A device lost while idle: the worker says so unasked.
  onEvent: (e) => {
    for (const store of stores) store.getState().setDecode({ status: e.status });
  },
});

/** The stores whose decode panel asked the worker something: they hear what it says unasked too. */
const stores = new Set<AppStore>();

export async function callDecode<M extends keyof DecodeProtocol & string>(store: AppStore, method: M, params: DecodeProtocol[M]['params']): Promise<DecodeProtocol[M]['result']> {
  stores.add(store);
  const reply = await client.call(method, params);
  store.getState().setDecode({ status: reply.status });
  return reply;
}
