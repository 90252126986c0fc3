/**
 * Replays the incident window through the engine's one run path (run.ts): the incident deployment
 * until the model went private (14:00, F11), failures at the gateway while it was private (A8), and a
 * fresh fixed deployment from 19:40 (F13, F23, F24; A9). Nothing here decides whether a response
 * leaks: each deployment is an ordinary Simulation, and leaks are what its canary scan and
 * provenance audit find.
 */
import { FIXED_CONFIG, INCIDENT_CONFIG, type EngineConfig } from '../config.ts';
import type { PageTimelineData } from '../pages.ts';
import { runScenario, type RequestTable, type RunProgress, type RunResult, type RunSpec } from '../run.ts';
import { FLAG_INTEGRITY_BREACH, FLAG_LEAK_CANARY, FLAG_LEAK_PROVENANCE, FLAG_WRONG_OUTPUT } from '../run.ts';
import { T_PRIVATE, T_PUBLIC, T_WINDOW_END, WINDOW_START_MS } from './timeline.ts';
import { incidentTraffic, type IncidentTraffic, type TrafficOptions } from './traffic.ts';

/** A8: status of requests sent while the model was private. */
export const PRIVATE_WINDOW_STATUS = 403;

/** Phase indices of the incident run. */
export const PHASE_INCIDENT = 0;
export const PHASE_FIXED = 1;

export interface ReplayCounts {
  requests: number;
  served: number;
  rejected400: number;
  failed500: number;
  privateWindowRequests: number;
  privateWindowFailed: number;
  overThresholdBeforePrivate: number;
  overThresholdInPrivateWindow: number;
  overThresholdAfterPublic: number;
  leakedByProvenance: number;
  leakedByCanary: number;
  leakedByBoth: number;
  provenanceOnly: number;
  canaryOnly: number;
  leakedAtOrUnderThreshold: number;
  leakedAfterPublic: number;
  /** Served requests answered from memory they did not write: the integrity breach, whatever the words. */
  integrityBreaches: number;
  /** Served requests whose output differs from the model's output over their prompt alone: wrong texts. */
  wrongOutput: number;
}

export interface IncidentReplayResult extends RunResult {
  traffic: TrafficOptions;
  counts: ReplayCounts;
  /** Page timelines per deployment; null when not recorded. */
  timelines: { incident: PageTimelineData; fixed: PageTimelineData } | null;
  eventLogHashes: { incident: string; fixed: string };
  events: number;
  threshold: number;
}

export type ReplayProgress = RunProgress;

export interface ReplayOptions {
  /** A prebuilt trace, or options for the traffic model. */
  traffic?: IncidentTraffic | Partial<TrafficOptions>;
  incidentConfig?: EngineConfig;
  fixedConfig?: EngineConfig;
  /** Record page timelines for seeking (default true). */
  record?: boolean;
  /** Compute each served response's expected output (the integrity audit; default true). */
  audit?: boolean;
  /** Engine shortcuts (default true); tests turn them off to check they change nothing. */
  shortcuts?: boolean;
  /** Pages per decode summary segment (default 64; 0: decode visits every slot, the reference path). */
  summaryPages?: number;
  onProgress?: (p: ReplayProgress) => void;
  /** Simulated ms between progress reports and between chances to yield (default 1 hour). */
  progressEveryMs?: number;
  /** Keep every request's events and response (for the transfer and response views; default false). */
  keepDetails?: boolean;
}

function isTraffic(x: ReplayOptions['traffic']): x is IncidentTraffic {
  return x !== undefined && 'trace' in x && 'kinds' in x;
}

/** The incident window as a run: its traffic, its two deployments and the private window between. */
export function incidentRunSpec(traffic: IncidentTraffic, incidentConfig: EngineConfig = INCIDENT_CONFIG, fixedConfig: EngineConfig = FIXED_CONFIG): RunSpec {
  return {
    name: 'incident window, 27 Aug – 9 Sep (model traffic)',
    trace: traffic.trace,
    kinds: traffic.kinds,
    startEpochMs: WINDOW_START_MS,
    endMs: T_WINDOW_END,
    phases: [
      { name: 'incident', config: incidentConfig, from: 0, to: T_PRIVATE },
      { name: 'fixed', config: fixedConfig, from: T_PUBLIC, to: Infinity },
    ],
    // A8: the gateway refuses them; SGLang never sees them.
    gateway: [{ name: 'private', from: T_PRIVATE, to: T_PUBLIC, status: PRIVATE_WINDOW_STATUS }],
  };
}

export function replayIncident(o: ReplayOptions = {}): IncidentReplayResult {
  const traffic = isTraffic(o.traffic) ? o.traffic : incidentTraffic(o.traffic ?? {});
  const incidentConfig = o.incidentConfig ?? INCIDENT_CONFIG;
  const run = runScenario(incidentRunSpec(traffic, incidentConfig, o.fixedConfig ?? FIXED_CONFIG), o);
  if (run.refused) throw new Error(run.refused);
  const [incident, fixed] = run.phases as [RunResult['phases'][number], RunResult['phases'][number]];
  const threshold = incidentConfig.prefillCapacityTokens;
  return {
    ...run,
    traffic: traffic.options,
    counts: countOutcomes(run.requests, threshold),
    timelines: incident.timeline && fixed.timeline ? { incident: incident.timeline, fixed: fixed.timeline } : null,
    eventLogHashes: { incident: incident.eventLogHash, fixed: fixed.eventLogHash },
    events: incident.events + fixed.events,
    threshold,
  };
}

function countOutcomes(t: RequestTable, threshold: number): ReplayCounts {
  const c: ReplayCounts = {
    requests: t.count, served: 0, rejected400: 0, failed500: 0, privateWindowRequests: 0, privateWindowFailed: 0,
    overThresholdBeforePrivate: 0, overThresholdInPrivateWindow: 0, overThresholdAfterPublic: 0,
    leakedByProvenance: 0, leakedByCanary: 0, leakedByBoth: 0, provenanceOnly: 0, canaryOnly: 0,
    leakedAtOrUnderThreshold: 0, leakedAfterPublic: 0, integrityBreaches: 0, wrongOutput: 0,
  };
  for (let i = 0; i < t.count; i++) {
    const at = t.arrivedAt[i]!;
    const status = t.status[i]!;
    const over = t.promptTokens[i]! > threshold;
    if (status === 200) c.served++;
    else if (status === 400) c.rejected400++;
    else if (status === 500) c.failed500++;
    if (at >= T_PRIVATE && at < T_PUBLIC) {
      c.privateWindowRequests++;
      if (status === PRIVATE_WINDOW_STATUS) c.privateWindowFailed++;
      if (over) c.overThresholdInPrivateWindow++;
    } else if (over) {
      if (at < T_PRIVATE) c.overThresholdBeforePrivate++;
      else c.overThresholdAfterPublic++;
    }
    const f = t.flags[i]!;
    if (status === 200 && f & FLAG_INTEGRITY_BREACH) c.integrityBreaches++;
    if (status === 200 && f & FLAG_WRONG_OUTPUT) c.wrongOutput++;
    const prov = (f & FLAG_LEAK_PROVENANCE) !== 0;
    const can = (f & FLAG_LEAK_CANARY) !== 0;
    if (prov) c.leakedByProvenance++;
    if (can) c.leakedByCanary++;
    if (prov && can) c.leakedByBoth++;
    if (prov && !can) c.provenanceOnly++;
    if (can && !prov) c.canaryOnly++;
    if ((prov || can) && !over) c.leakedAtOrUnderThreshold++;
    if ((prov || can) && at >= T_PUBLIC) c.leakedAfterPublic++;
  }
  return c;
}

