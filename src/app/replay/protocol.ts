/** Messages between the page and the incident replay worker. */
import type { IncidentReplayResult, TrafficOptions } from '../../engine/incident/index.ts';

export type ReplayRequest = { kind: 'replay'; id: number; traffic: Partial<TrafficOptions> };

/** The replay result: typed arrays travel by transfer; the rest is small (≈155 leaks, ids). */
export type ReplaySnapshot = Omit<IncidentReplayResult, 'timelines'> & {
  timelines: NonNullable<IncidentReplayResult['timelines']>;
  elapsedMs: number;
};

export type ReplayResponse =
  | { kind: 'progress'; id: number; fraction: number; simulatedT: number; phase: 'incident' | 'fixed' }
  | { kind: 'done'; id: number; snapshot: ReplaySnapshot }
  | { kind: 'error'; id: number; message: string };
