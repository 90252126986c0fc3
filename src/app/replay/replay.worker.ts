/// <reference lib="webworker" />
/**
 * Replays the incident window off the main thread. Progress goes out at most every 50 ms of wall
 * time; the result goes out once, its typed arrays transferred (never copied) to the page.
 */
import { phaseBuffers, replayIncident, type ReadTable, type RequestTable } from '../../engine/incident/index.ts';
import type { ReplayRequest, ReplayResponse, ReplaySnapshot } from './protocol.ts';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const post = (message: ReplayResponse, transfer: Transferable[] = []) => scope.postMessage(message, transfer);

function tableBuffers(t: RequestTable | ReadTable): ArrayBuffer[] {
  return Object.values(t)
    .filter((v): v is ArrayBufferView => ArrayBuffer.isView(v))
    .map((v) => v.buffer as ArrayBuffer);
}

scope.onmessage = (e: MessageEvent<ReplayRequest>) => {
  const { id, traffic } = e.data;
  const started = performance.now();
  let lastPost = -Infinity;
  try {
    const result = replayIncident({
      traffic,
      record: true,
      onProgress: (p) => {
        const now = performance.now();
        if (now - lastPost < 50 && p.fraction < 1) return;
        lastPost = now;
        post({ kind: 'progress', id, ...p });
      },
    });
    const snapshot: ReplaySnapshot = { ...result, timelines: result.timelines!, elapsedMs: performance.now() - started };
    const transfer = [
      ...tableBuffers(result.requests),
      ...tableBuffers(result.reads),
      ...phaseBuffers(result.timelines!.incident),
      ...phaseBuffers(result.timelines!.fixed),
    ];
    post({ kind: 'done', id, snapshot }, [...new Set(transfer)]);
  } catch (err) {
    post({ kind: 'error', id, message: err instanceof Error ? err.message : String(err) });
  }
};
