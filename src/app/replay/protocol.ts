/** Messages between the page and the incident replay worker. */
import type { ConfigOverrides, EngineEvent, ResponseRecord } from '../../engine/index.ts';
import type { IncidentReplayResult, TrafficOptions } from '../../engine/incident/index.ts';

export type ReplayRequest =
  | { kind: 'replay'; id: number; traffic: Partial<TrafficOptions>; overrides: ConfigOverrides }
  /** One request's events and response, from the replay this worker last finished. */
  | { kind: 'detail'; id: number; req: number };

/** The replay result: typed arrays travel by transfer; the rest is small (≈155 leaks, ids). */
export type ReplaySnapshot = Omit<IncidentReplayResult, 'timelines' | 'details'> & {
  timelines: NonNullable<IncidentReplayResult['timelines']>;
  elapsedMs: number;
};

export type ReplayResponse =
  | { kind: 'progress'; id: number; fraction: number; simulatedT: number; phase: 'incident' | 'fixed' }
  | { kind: 'done'; id: number; snapshot: ReplaySnapshot }
  | { kind: 'detail'; id: number; events: EngineEvent[]; response: ResponseRecord | null; words: string[] }
  | { kind: 'error'; id: number; message: string };
