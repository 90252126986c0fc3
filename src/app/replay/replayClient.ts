/**
 * Starts an incident replay in its own Worker and hands back a seekable timeline. The page only
 * receives transferred typed arrays and wraps them: no work proportional to the window's size runs
 * on the main thread except building two prefix-count arrays (linear in the reads, ~1 ms).
 */
import { IncidentTimeline, type TrafficOptions } from '../../engine/incident/index.ts';
import type { ReplayResponse, ReplaySnapshot } from './protocol.ts';

export interface ReplayProgressInfo {
  fraction: number;
  simulatedT: number;
  phase: 'incident' | 'fixed';
}

export interface LoadedReplay {
  snapshot: ReplaySnapshot;
  timeline: IncidentTimeline;
}

export interface ReplayJob {
  promise: Promise<LoadedReplay>;
  /** Stops the worker; the promise rejects with an AbortError. */
  cancel(): void;
}

let nextId = 1;

export function startReplay(traffic: Partial<TrafficOptions>, onProgress?: (p: ReplayProgressInfo) => void): ReplayJob {
  const worker = new Worker(new URL('./replay.worker.ts', import.meta.url), { type: 'module' });
  const id = nextId++;
  let settle: { resolve: (r: LoadedReplay) => void; reject: (e: Error) => void } | null = null;
  const promise = new Promise<LoadedReplay>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const finish = () => {
    worker.terminate();
    settle = null;
  };
  worker.onmessage = (e: MessageEvent<ReplayResponse>) => {
    const msg = e.data;
    if (msg.id !== id || !settle) return;
    if (msg.kind === 'progress') {
      onProgress?.({ fraction: msg.fraction, simulatedT: msg.simulatedT, phase: msg.phase });
    } else if (msg.kind === 'done') {
      const { resolve } = settle;
      finish();
      const s = msg.snapshot;
      resolve({ snapshot: s, timeline: new IncidentTimeline({ requests: s.requests, reads: s.reads, timelines: s.timelines }) });
    } else {
      const { reject } = settle;
      finish();
      reject(new Error(msg.message));
    }
  };
  worker.onerror = (e) => {
    const s = settle;
    finish();
    s?.reject(new Error(e.message || 'replay worker failed'));
  };
  worker.postMessage({ kind: 'replay', id, traffic });
  return {
    promise,
    cancel: () => {
      const s = settle;
      finish();
      s?.reject(new DOMException('replay cancelled', 'AbortError'));
    },
  };
}
