/**
 * The runs the page, its worker and the CLI know by name, each as a RunSpec for the one run path:
 * the incident window (two deployments and the private window between, with the traffic model),
 * the three-tenant demo, the outcome matrix's warm cluster, and a custom trace.
 */
import { INCIDENT_CONFIG, withOverrides, type ConfigOverrides } from '../config.ts';
import { incidentRunSpec } from '../incident/replay.ts';
import { incidentTraffic, type TrafficOptions } from '../incident/traffic.ts';
import { singlePhaseSpec, type RunSpec } from '../run.ts';
import { demoTrace, matrixTrace } from '../scenarios.ts';
import type { Trace } from '../trace.ts';

export const SCENARIO_NAMES = ['incident', 'demo', 'matrix'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/** The demo and matrix traces start at an arbitrary instant; they are models, not the incident. */
export const MODEL_START_EPOCH_MS = Date.UTC(2026, 7, 27, 9, 0, 0);

export type RunRequest =
  | { scenario: ScenarioName; overrides: ConfigOverrides; traffic?: Partial<Pick<TrafficOptions, 'requestsPerDay' | 'tenants'>> }
  | { scenario: 'custom'; overrides: ConfigOverrides; trace: Trace };

/** One key per distinct run: what the page caches runs by. */
export function runKeyOf(r: RunRequest): string {
  if (r.scenario === 'custom') return JSON.stringify(['custom', r.overrides, r.trace]);
  return JSON.stringify([r.scenario, r.overrides, r.scenario === 'incident' ? (r.traffic ?? {}) : {}]);
}

export function runSpecOf(r: RunRequest): RunSpec {
  const config = withOverrides(INCIDENT_CONFIG, r.overrides);
  switch (r.scenario) {
    case 'incident':
      // The switches change the deployment that ran the incident; the 19:40 one stays fixed (A9).
      return incidentRunSpec(incidentTraffic(r.traffic ?? {}), config);
    case 'demo': {
      const trace = demoTrace();
      return singlePhaseSpec(trace.name ?? 'demo', trace, config, MODEL_START_EPOCH_MS);
    }
    case 'matrix': {
      const trace = matrixTrace();
      return singlePhaseSpec(trace.name ?? 'matrix', trace, config, MODEL_START_EPOCH_MS);
    }
    case 'custom':
      return singlePhaseSpec(r.trace.name ?? 'custom trace', r.trace, config, r.trace.startTime ? Date.parse(r.trace.startTime) : MODEL_START_EPOCH_MS);
  }
}
