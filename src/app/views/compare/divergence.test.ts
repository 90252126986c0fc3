import { describe, expect, it } from 'vitest';
import { INCIDENT_SWITCHES, overridesOf, runScenario, type Switches } from '../../../engine/index.ts';
import { runSpecOf } from '../../../engine/runs/index.ts';
import { differences, firstDivergence, outcomeOf } from './divergence.ts';

const run = (switches: Partial<Switches>) => runScenario(runSpecOf({ scenario: 'demo', overrides: overridesOf({ ...INCIDENT_SWITCHES, ...switches }) }));

describe('divergence of two runs', () => {
  it('a run against itself never diverges', () => {
    const a = run({});
    expect(firstDivergence(a, a)).toBeNull();
  });

  it('the fixed reject path: the first difference is a leaked 200 that becomes a 400', () => {
    const a = run({});
    const b = run({ buggyRejectPath: false });
    const d = firstDivergence(a, b)!;
    expect(d).not.toBeNull();
    expect(d.asItHappened).toEqual(outcomeOf(a, d.req));
    expect(d.withFix).toEqual(outcomeOf(b, d.req));
    expect(d.asItHappened.status).toBe(200);
    expect(d.asItHappened.leaked).toBe(true);
    expect(d.withFix.status).toBe(400);
    // Nothing answered differently before it.
    for (const x of differences(a, b)) expect(x.t).toBeGreaterThanOrEqual(d.t);
  });
});
