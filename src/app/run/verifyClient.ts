/** Runs the exhaustive protocol check in a worker; a new check supersedes the one in flight. */
import type { VerifyProtocol } from './verifyProtocol.ts';
import { rpcClient, type RpcClient } from './rpc.ts';

let client: RpcClient<VerifyProtocol> | null = null;

export function checkProtocol(onOutcome: (p: VerifyProtocol['checkAll']['progress']) => void, signal?: AbortSignal) {
  // The check runs to its end synchronously: a superseded one stops its worker.
  client ??= rpcClient<VerifyProtocol>(() => new Worker(new URL('./verify.worker.ts', import.meta.url), { type: 'module' }), 'verify worker', { terminateOnCancel: true });
  return client.call('checkAll', null, { onProgress: onOutcome, supersede: 'check', ...(signal ? { signal } : {}) });
}
