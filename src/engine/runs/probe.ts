/**
 * "Your request", the probe's run: the demo's trace (three tenants warm the pools) with your prompt in
 * place of the over-long one, or under the microscope the microscope's trace on the trained
 * transformer. A plain run request for the one run path: the page's probe (views/story/Probe.tsx)
 * asks for it, and the build prebuilds the one the first screen opens on (scripts/prebuiltRuns.ts).
 */
import { ADVERTISED_CONTEXT_TOKENS, INCIDENT_PREFILL_CAPACITY_TOKENS } from '../config.ts';
import { demoTrace, DEMO_REQUESTS } from '../scenarios.ts';
import { MICROSCOPE_CONFIG, MICROSCOPE_REQUESTS, microscopeTrace } from '../microscopeScenario.ts';
import type { RunRequest } from './index.ts';

export const PROBE_ID = 'you';
const MIN = 1_000;
const MAX = 1_100_000;

/**
 * The probe's two sizes. Under the microscope it is the microscope's trace with your prompt in place
 * of the over-long one, on the trained transformer (prompts of thousands of tokens, which its
 * quadratic prefill computes in about a second); everywhere else the demo's, on the compressed model.
 */
export interface ProbeScale {
  kind: 'demo' | 'microscope';
  min: number;
  max: number;
  initial: number;
  capacity: number;
  advertised: number;
}

export const PROBE_SCALES: Record<ProbeScale['kind'], ProbeScale> = {
  demo: { kind: 'demo', min: MIN, max: MAX, initial: 925_349, capacity: INCIDENT_PREFILL_CAPACITY_TOKENS, advertised: ADVERTISED_CONTEXT_TOKENS },
  microscope: { kind: 'microscope', min: 100, max: 10_000, initial: 3_000, capacity: MICROSCOPE_CONFIG.prefillCapacityTokens, advertised: MICROSCOPE_CONFIG.advertisedContextTokens },
};

export function probeRequest(promptTokens: number, overrides: RunRequest['overrides'], kind: ProbeScale['kind'] = 'demo'): RunRequest {
  if (kind === 'microscope') {
    const trace = microscopeTrace();
    trace.name = `probe: your ${promptTokens}-token prompt after four tenants fill the pool`;
    trace.requests = trace.requests
      .filter((r) => r.id !== MICROSCOPE_REQUESTS.short)
      .map((r) => (r.id === MICROSCOPE_REQUESTS.overLong ? { ...r, id: PROBE_ID, promptTokens } : r));
    return { scenario: 'custom', overrides, trace, decoder: 'transformer', base: 'microscope' };
  }
  const trace = demoTrace();
  trace.name = `probe: your ${promptTokens}-token prompt after three tenants warm the pools`;
  trace.requests = trace.requests
    .filter((r) => r.id !== DEMO_REQUESTS.short)
    .map((r) => (r.id === DEMO_REQUESTS.overLong ? { ...r, id: PROBE_ID, promptTokens } : r));
  return { scenario: 'custom', overrides, trace };
}
