/// <reference lib="webworker" />
/**
 * Replays the incident window off the main thread. Progress goes out at most every 50 ms of wall
 * time; the result goes out once, its typed arrays transferred (never copied) to the page. The
 * worker then stays to answer for single requests (their events and response), which the page
 * asks for only when a person opens one.
 */
import { INCIDENT_CONFIG, withOverrides } from '../../engine/index.ts';
import { phaseBuffers, replayIncident, type ReadTable, type RequestDetails, type RequestTable } from '../../engine/incident/index.ts';
import type { ReplayRequest, ReplayResponse, ReplaySnapshot } from './protocol.ts';

const scope = self as unknown as DedicatedWorkerGlobalScope;
const post = (message: ReplayResponse, transfer: Transferable[] = []) => scope.postMessage(message, transfer);

function tableBuffers(t: RequestTable | ReadTable): ArrayBuffer[] {
  return Object.values(t)
    .filter((v): v is ArrayBufferView => ArrayBuffer.isView(v))
    .map((v) => v.buffer as ArrayBuffer);
}

let details: RequestDetails | null = null;

scope.onmessage = (e: MessageEvent<ReplayRequest>) => {
  const msg = e.data;
  if (msg.kind === 'detail') {
    if (!details) return post({ kind: 'error', id: msg.id, message: 'no replay has finished in this worker' });
    return post({ kind: 'detail', id: msg.id, events: details.events[msg.req] ?? [], response: details.responses[msg.req] ?? null, words: details.words });
  }
  const { id, traffic, overrides } = msg;
  const started = performance.now();
  let lastPost = -Infinity;
  try {
    const result = replayIncident({
      traffic,
      incidentConfig: withOverrides(INCIDENT_CONFIG, overrides),
      record: true,
      keepDetails: true,
      onProgress: (p) => {
        const now = performance.now();
        if (now - lastPost < 50 && p.fraction < 1) return;
        lastPost = now;
        post({ kind: 'progress', id, ...p });
      },
    });
    details = result.details;
    const { details: _kept, ...rest } = result;
    const snapshot: ReplaySnapshot = { ...rest, timelines: result.timelines!, elapsedMs: performance.now() - started };
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
