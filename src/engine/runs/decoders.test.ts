/**
 * One page model and one run path, two decoders. The demo's prompts (120,000 to 800,000 tokens) are
 * the compressed model's scale: the transformer's quadratic prefill would take hours on them. So the
 * page runs the demo on the compressed model, and this test runs it again on the trained
 * transformer at 1/100 of its prompt lengths and pool sizes (16-token pages), through the same
 * runScenario, and holds the two to the same verdicts: the same requests leak, from the same
 * tenants' pages, and every other request is answered from its own KV.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FLAG_LEAK_PROVENANCE, runScenario, singlePhaseSpec, type RunResult } from '../run.ts';
import { scaledDemo } from '../microscopeScenario.ts';
import { WEIGHTS_PATH } from '../model/recipe.ts';
import { decodeWeights } from '../model/transformer.ts';
import { MODEL_START_EPOCH_MS, decoderOf, runKeyOf, runSpecOf } from './index.ts';

const weights = decodeWeights(new Uint8Array(readFileSync(new URL(`../../../public/${WEIGHTS_PATH}`, import.meta.url)))).weights;

/** Per request: its id, its status, and whether the provenance audit found a leak. */
function verdicts(run: RunResult): string[] {
  return run.requestIds.map((id, i) => `${id} ${run.requests.status[i]} ${run.requests.flags[i]! & FLAG_LEAK_PROVENANCE ? 'leaked' : 'own'}`);
}

/** Each tenant's share of the stale slots a leaked response read, in points. */
const slotShares = (slots: [string, number][]) => {
  const total = slots.reduce((n, [, x]) => n + x, 0);
  return slots.map(([tenant, x]) => [tenant, Math.round((100 * x) / total)] as const);
};

describe('the demo under both decoders', () => {
  it('at 1/100 scale on the trained transformer, the same requests leak, from the same tenants\' pages, as the full-scale demo on the compressed model', () => {
    const compressed = runScenario(runSpecOf({ scenario: 'demo', overrides: {} }), { record: false });
    expect(compressed.decoder).toBe('compressed');
    const { config, trace } = scaledDemo(100);
    const transformer = runScenario({ ...singlePhaseSpec(trace.name!, trace, config, MODEL_START_EPOCH_MS), decoder: 'transformer' }, { record: false, transformer: weights });
    expect(transformer.decoder).toBe('transformer');
    expect(transformer.model).toMatchObject({ kind: 'transformer', layers: 2, heads: 2 });
    expect(verdicts(transformer)).toEqual(verdicts(compressed));
    expect(compressed.leaks.map((l) => [l.id, l.tenant])).toEqual([['long-1', 'delta']]);
    const [c, t] = [compressed.leaks[0]!, transformer.leaks[0]!];
    // The same tenants' pages, in the same proportions (within a point: 16-token pages against 64).
    expect(slotShares(t.staleSlotsByTenant).map(([tenant]) => tenant)).toEqual(slotShares(c.staleSlotsByTenant).map(([tenant]) => tenant));
    slotShares(t.staleSlotsByTenant).forEach(([, x], k) => expect(Math.abs(x - slotShares(c.staleSlotsByTenant)[k]![1])).toBeLessThanOrEqual(1));
    // Whose data each names: tenants whose pages it read, the heaviest of them (acme) included. The
    // compressed model names the one (key, value) group a token drew on most, so a tenant that is
    // never the heaviest group is never named; the transformer names the heaviest tenant of each
    // token's spread attention (cobalt carries about 30 % of every token, and the most of one).
    const read = c.staleSlotsByTenant.map(([tenant]) => tenant);
    for (const l of [c, t]) {
      expect(l.dataOf).toContain(read[0]);
      for (const tenant of l.dataOf) expect(read).toContain(tenant);
    }
  }, 120_000);

  it('the microscope scenario runs on the transformer and needs its weights; a custom trace names its decoder in its run key', () => {
    const spec = runSpecOf({ scenario: 'microscope', overrides: {} });
    expect(spec.decoder).toBe('transformer');
    expect(() => runScenario(spec, { record: false })).toThrow(/no weights/);
    expect(decoderOf({ scenario: 'incident', overrides: {} })).toBe('compressed');
    const trace = scaledDemo(100).trace;
    expect(runKeyOf({ scenario: 'custom', overrides: {}, trace, decoder: 'transformer', base: 'microscope' })).not.toBe(runKeyOf({ scenario: 'custom', overrides: {}, trace }));
  });
});
