/// <reference lib="webworker" />
/** Explores the handoff model off the main thread; results arrive one configuration at a time. */
import { checkAll } from '../../engine/protocol/index.ts';
import type { VerifyRequest, VerifyResponse } from './messages.ts';

const post = (message: VerifyResponse) => (self as unknown as DedicatedWorkerGlobalScope).postMessage(message);

self.onmessage = (e: MessageEvent<VerifyRequest>) => {
  const { id } = e.data;
  const started = performance.now();
  try {
    checkAll('none', () => performance.now(), (outcome, index, total) => post({ kind: 'outcome', id, index, total, outcome }));
    post({ kind: 'done', id, elapsedMs: performance.now() - started });
  } catch (err) {
    post({ kind: 'error', id, message: err instanceof Error ? err.message : String(err) });
  }
};
