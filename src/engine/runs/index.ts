/**
 * The runs the page, its worker and the CLI know by name, each as a RunSpec for the one run path:
 * the incident window (two deployments and the private window between, with the traffic model),
 * the three-tenant demo, the outcome matrix's warm cluster, the microscope (the trained
 * transformer over a small pool), and a custom trace.
 */
import { INCIDENT_CONFIG, withOverrides, type ConfigOverrides } from '../config.ts';
import { incidentRunSpec } from '../incident/replay.ts';
import { incidentTraffic, type TrafficOptions } from '../incident/traffic.ts';
import type { DecoderKind } from '../transformerDecoder.ts';
import { MICROSCOPE_CONFIG, microscopeTrace } from '../microscopeScenario.ts';
import { singlePhaseSpec, type RunSpec } from '../run.ts';
import { demoTrace, matrixTrace } from '../scenarios.ts';
import type { Trace } from '../trace.ts';

export const SCENARIO_NAMES = ['incident', 'demo', 'matrix', 'microscope'] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

/**
 * Which decoder turns each named run's pages into text. The transformer's prefill is quadratic in
 * the prompt, so only the microscope (prompts of hundreds to thousands of tokens) runs on it; the
 * incident, the demo and the matrix (prompts of 120,000 to 1,048,576 tokens) keep the compressed
 * model. The demo's verdicts under both are held equal at 1/100 scale (runs/decoders.test.ts).
 */
export const SCENARIO_DECODERS: Record<ScenarioName, DecoderKind> = { incident: 'compressed', demo: 'compressed', matrix: 'compressed', microscope: 'transformer' };

/** The demo and matrix traces start at an arbitrary instant; they are models, not the incident. */
export const MODEL_START_EPOCH_MS = Date.UTC(2026, 7, 27, 9, 0, 0);

export type RunRequest =
  | { scenario: ScenarioName; overrides: ConfigOverrides; traffic?: Partial<Pick<TrafficOptions, 'requestsPerDay' | 'tenants'>> }
  | { scenario: 'custom'; overrides: ConfigOverrides; trace: Trace; /** Default compressed. */ decoder?: DecoderKind; /** The base deployment the overrides apply to (default the incident's). */ base?: 'incident' | 'microscope' };

/** The decoder a run request runs on. */
export function decoderOf(r: RunRequest): DecoderKind {
  return r.scenario === 'custom' ? (r.decoder ?? 'compressed') : SCENARIO_DECODERS[r.scenario];
}

/** One key per distinct run: what the page caches runs by. */
export function runKeyOf(r: RunRequest): string {
  if (r.scenario === 'custom') return JSON.stringify(['custom', r.overrides, r.trace, ...(r.decoder || r.base ? [r.decoder ?? 'compressed', r.base ?? 'incident'] : [])]);
  return JSON.stringify([r.scenario, r.overrides, r.scenario === 'incident' ? (r.traffic ?? {}) : {}]);
}

export function runSpecOf(r: RunRequest): RunSpec {
  const spec = namedSpecOf(r);
  return decoderOf(r) === 'transformer' ? { ...spec, decoder: 'transformer' } : spec;
}

function namedSpecOf(r: RunRequest): RunSpec {
  const base = r.scenario === 'microscope' || (r.scenario === 'custom' && r.base === 'microscope') ? MICROSCOPE_CONFIG : INCIDENT_CONFIG;
  const config = withOverrides(base, r.overrides);
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
    case 'microscope': {
      const trace = microscopeTrace();
      return singlePhaseSpec(trace.name ?? 'microscope', trace, config, MODEL_START_EPOCH_MS);
    }
    case 'custom':
      return singlePhaseSpec(r.trace.name ?? 'custom trace', r.trace, config, r.trace.startTime ? Date.parse(r.trace.startTime) : MODEL_START_EPOCH_MS);
  }
}
