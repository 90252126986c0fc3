/**
 * Starts an incident replay in its own Worker and hands back a seekable timeline. The page only
 * receives transferred typed arrays and wraps them: no work proportional to the window's size runs
 * on the main thread except building two prefix-count arrays (linear in the reads, ~1 ms). The
 * worker is kept afterwards to answer for single requests; the two most recent replays keep theirs.
 */
import type { ConfigOverrides, EngineEvent, ResponseRecord } from '../../engine/index.ts';
import { IncidentTimeline, type TrafficOptions } from '../../engine/incident/index.ts';
import type { ReplayResponse, ReplaySnapshot } from './protocol.ts';

export interface ReplayProgressInfo {
  fraction: number;
  simulatedT: number;
  phase: 'incident' | 'fixed';
}

export interface ReplayRequestDetail {
  events: EngineEvent[];
  response: ResponseRecord | null;
  words: string[];
}

export interface LoadedReplay {
  snapshot: ReplaySnapshot;
  timeline: IncidentTimeline;
  /** One request's events and response, asked of the worker that ran the replay. */
  detail(req: number): Promise<ReplayRequestDetail>;
}

export interface ReplayJob {
  promise: Promise<LoadedReplay>;
  /** Stops the worker; the promise rejects with an AbortError. */
  cancel(): void;
}

let nextId = 1;
const MAX_KEPT_WORKERS = 2;
const kept: Worker[] = [];

function keepWorker(w: Worker): void {
  kept.push(w);
  while (kept.length > MAX_KEPT_WORKERS) kept.shift()!.terminate();
}

export function startReplay(traffic: Partial<TrafficOptions>, overrides: ConfigOverrides, onProgress?: (p: ReplayProgressInfo) => void): ReplayJob {
  const worker = new Worker(new URL('./replay.worker.ts', import.meta.url), { type: 'module' });
  const id = nextId++;
  let settle: { resolve: (r: LoadedReplay) => void; reject: (e: Error) => void } | null = null;
  const promise = new Promise<LoadedReplay>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const pendingDetails = new Map<number, (d: ReplayRequestDetail | Error) => void>();
  const detail = (req: number) =>
    new Promise<ReplayRequestDetail>((resolve, reject) => {
      const detailId = nextId++;
      pendingDetails.set(detailId, (d) => (d instanceof Error ? reject(d) : resolve(d)));
      worker.postMessage({ kind: 'detail', id: detailId, req });
    });
  worker.onmessage = (e: MessageEvent<ReplayResponse>) => {
    const msg = e.data;
    const waiting = pendingDetails.get(msg.id);
    if (waiting) {
      pendingDetails.delete(msg.id);
      if (msg.kind === 'detail') waiting({ events: msg.events, response: msg.response, words: msg.words });
      else if (msg.kind === 'error') waiting(new Error(msg.message));
      return;
    }
    if (msg.id !== id || !settle) return;
    if (msg.kind === 'progress') {
      onProgress?.({ fraction: msg.fraction, simulatedT: msg.simulatedT, phase: msg.phase });
    } else if (msg.kind === 'done') {
      const { resolve } = settle;
      settle = null;
      keepWorker(worker);
      const s = msg.snapshot;
      resolve({ snapshot: s, timeline: new IncidentTimeline({ requests: s.requests, reads: s.reads, timelines: s.timelines }), detail });
    } else if (msg.kind === 'error') {
      const { reject } = settle;
      settle = null;
      worker.terminate();
      reject(new Error(msg.message));
    }
  };
  worker.onerror = (e) => {
    const s = settle;
    settle = null;
    worker.terminate();
    s?.reject(new Error(e.message || 'replay worker failed'));
  };
  worker.postMessage({ kind: 'replay', id, traffic, overrides });
  return {
    promise,
    cancel: () => {
      const s = settle;
      settle = null;
      worker.terminate();
      s?.reject(new DOMException('replay cancelled', 'AbortError'));
    },
  };
}
