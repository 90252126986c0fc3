/// <reference lib="webworker" />
/** Explores the handoff model off the main thread; results arrive one configuration at a time. */
import { checkAll } from '../../engine/protocol/index.ts';
import { serveRpc } from './rpc.ts';
import type { VerifyProtocol } from './verifyProtocol.ts';

serveRpc<VerifyProtocol>(self as unknown as DedicatedWorkerGlobalScope, {
  checkAll(_params, ctx) {
    const started = performance.now();
    checkAll('none', () => performance.now(), (outcome, index, total) => ctx.progress({ outcome, index, total }));
    return { elapsedMs: performance.now() - started };
  },
});
