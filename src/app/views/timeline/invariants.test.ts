import { describe, expect, it } from 'vitest';
import { FLAG_LEAK_PROVENANCE, INCIDENT_SWITCHES, overridesOf, runScenario, type Switches } from '../../../engine/index.ts';
import { runSpecOf } from '../../../engine/runs/index.ts';
import { invariantBreaches } from './invariants.ts';

const run = (switches: Partial<Switches>) => runScenario(runSpecOf({ scenario: 'matrix', overrides: overridesOf({ ...INCIDENT_SWITCHES, ...switches }) }));

describe('invariant lanes, measured on the matrix run', () => {
  it('both defects: all three properties break, and every leaked response is a confidentiality breach', () => {
    const r = run({});
    const b = invariantBreaches(r);
    expect(b.confidentiality.length).toBeGreaterThan(0);
    expect(b.integrity.length).toBeGreaterThan(0);
    expect(b.admission.length).toBeGreaterThan(0);
    const leakedReqs = [...r.requests.flags.keys()].filter((i) => (r.requests.flags[i]! & FLAG_LEAK_PROVENANCE) !== 0);
    const breached = new Set(b.confidentiality.map((x) => x.req));
    for (const i of leakedReqs) expect(breached.has(i), `request ${i}`).toBe(true);
    for (const k of ['confidentiality', 'integrity', 'admission'] as const) for (let i = 1; i < b[k].length; i++) expect(b[k][i]!.t).toBeGreaterThanOrEqual(b[k][i - 1]!.t);
  });

  it('the fixed reject path: nothing over the limit gets pages, nothing breaks', () => {
    const b = invariantBreaches(run({ buggyRejectPath: false }));
    expect(b).toEqual({ confidentiality: [], integrity: [], admission: [] });
  });

  it('clearing pages on free keeps confidentiality but not integrity, and still reserves before admission', () => {
    const b = invariantBreaches(run({ clearPagesOnFree: true }));
    expect(b.confidentiality).toEqual([]);
    expect(b.integrity.length).toBeGreaterThan(0);
    expect(b.admission.length).toBeGreaterThan(0);
  });
});
