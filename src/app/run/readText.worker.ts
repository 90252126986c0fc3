/// <reference lib="webworker" />
/** Reads the deployment form's boxes off the page's thread (readText.ts); a newer edit of a box cancels its read. */
import { serveRpc } from './rpc.ts';
import { readText, type ReadTextProtocol } from './readText.ts';

serveRpc<ReadTextProtocol>(self as unknown as DedicatedWorkerGlobalScope, {
  read: ({ text, source, kind }, ctx) => readText(text, source, kind, (p) => ctx.progress(p), ctx.signal),
});
