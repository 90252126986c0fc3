/**
 * The deployment form's reader: one worker for the page (started when a box is first read), each read
 * counted as something the page is still doing, so that `<html data-settled>` waits for its answer.
 */
import { rpcClient, type RpcClient } from './rpc.ts';
import { trackPending } from '../state/settled.ts';
import type { BoxKind, ReadProgress, ReadResult, ReadTextProtocol } from './readText.ts';

let client: RpcClient<ReadTextProtocol> | null = null;

/** Reads one box's text in the worker; rejects with an AbortError once `signal` aborts (a newer edit). */
export function readBox(kind: BoxKind, text: string, source: string, onProgress: (p: ReadProgress) => void, signal: AbortSignal): Promise<ReadResult> {
  client ??= rpcClient<ReadTextProtocol>(() => new Worker(new URL('./readText.worker.ts', import.meta.url), { type: 'module' }), 'deployment text reader');
  return trackPending(client.call('read', { text, source, kind }, { onProgress, signal }));
}
