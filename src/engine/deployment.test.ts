import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FIXED_DEPLOYMENT,
  INCIDENT_DEPLOYMENT,
  VERSION_SWITCHES,
  chainAt,
  configFor,
  deploymentBands,
  replayOf,
  replayTrace,
  replayedOutcome,
  resolutions,
  routeBands,
  worstCase,
  type Band,
  type Deployment,
  type Outcome,
} from './deployment.ts';
import { runScenario, singlePhaseSpec } from './run.ts';

const leakingBands = (d: Deployment) => deploymentBands(d).routes.flatMap((r) => r.bands.filter((b) => b.outcomes.includes('leaked')).map((b) => [b.from, b.to]));

describe('the bands on the incident’s numbers', () => {
  it('1,048,576 advertised, 681,280 of prefill KV, the reject path as it was: prompts from 681,281 to 1,048,576 leak', () => {
    const a = deploymentBands(INCIDENT_DEPLOYMENT);
    expect(a.leaks).toBe(true);
    expect(a.smallestLeak).toBe(681_281);
    expect(leakingBands(INCIDENT_DEPLOYMENT)).toEqual([[681_281, 1_048_576]]);
    const bands = a.routes[0]!.bands;
    expect(bands.map((b) => [b.from, b.to, b.outcomes])).toEqual([
      [1, 681_280, ['served']],
      [681_281, 1_048_576, ['leaked']],
      [1_048_577, null, ['refused']],
    ]);
  });

  it('SGLang’s own max_req_input_len rule (min(context − 1, pool − 1) − 5, refused at or over it) starts the leak at 681,274', () => {
    expect(deploymentBands({ ...INCIDENT_DEPLOYMENT, rule: 'sglang' }).smallestLeak).toBe(681_274);
  });

  it('the fixed configuration (about 2.04 M prefill, the reject path fixed) leaks nowhere', () => {
    const a = deploymentBands(FIXED_DEPLOYMENT);
    expect(a.leaks).toBe(false);
    expect(a.smallestLeak).toBeNull();
  });

  it('only the page clearing changed: no leak, a wrong answer', () => {
    const d: Deployment = { ...INCIDENT_DEPLOYMENT, behaviour: { ...INCIDENT_DEPLOYMENT.behaviour, clearPagesOnFree: 'fixed' } };
    const a = deploymentBands(d);
    expect(a.leaks).toBe(false);
    expect(a.routes[0]!.bands[1]).toMatchObject({ from: 681_281, to: 1_048_576, outcomes: ['wrong-answer'] });
  });

  it('an unknown behaviour shows both outcomes, and counts as a leak', () => {
    const d: Deployment = { ...INCIDENT_DEPLOYMENT, behaviour: { ...INCIDENT_DEPLOYMENT.behaviour, retireWithoutSend: 'unknown' } };
    const a = deploymentBands(d);
    expect(a.leaks).toBe(true);
    expect(new Set(a.routes[0]!.bands[1]!.outcomes)).toEqual(new Set(['leaked', 'failed-closed']));
  });

  it('names the changes that close the leaking band, each checked, with its public sources', () => {
    const band = deploymentBands(INCIDENT_DEPLOYMENT).routes[0]!.bands[1]!;
    const byKey = Object.fromEntries(band.closedBy.map((c) => [c.kind === 'behaviour' ? c.key : c.kind, c]));
    expect(byKey.buggyRejectPath).toMatchObject({ outcome: 'refused', sources: expect.arrayContaining(['B3', 'B2']) });
    expect(byKey.retireWithoutSend).toMatchObject({ outcome: 'failed-closed', sources: ['B2'] });
    expect(byKey.transferredLengthCheck).toMatchObject({ outcome: 'failed-closed', sources: ['B4'] });
    expect(byKey.clearPagesOnFree).toMatchObject({ outcome: 'wrong-answer', sources: [] });
    expect(byKey['prefill-capacity']).toEqual({ kind: 'prefill-capacity', atLeast: 1_048_576 });
    expect(byKey.context).toEqual({ kind: 'context', atMost: 681_280 });
  });

  it('a decode pool smaller than the prompt refuses it when decode adds it; within the pool but over its budget, it waits', () => {
    const d: Deployment = { ...INCIDENT_DEPLOYMENT, decodeCapacities: [900_000] };
    const bands = deploymentBands(d).routes[0]!.bands;
    expect(bands.map((b) => [b.from, b.to, b.outcomes[0], b.cause])).toEqual([
      [1, 681_280, 'served', 'within-limits'],
      [681_281, 899_456, 'leaked', 'over-prefill-limit'],
      // Within the pool but never within the budget (the pool less 512 reserved tokens): SGLang leaves it waiting.
      [899_457, 899_968, 'waits', 'decode-budget'],
      [899_969, 1_048_576, 'refused', 'decode-admission'],
      [1_048_577, null, 'refused', 'tokenizer'],
    ]);
  });

  it('prefill and decode on one server: over-long prompts get the 400 their abort carries', () => {
    const a = deploymentBands({ ...INCIDENT_DEPLOYMENT, disaggregated: false, decodeCapacities: [] });
    expect(a.leaks).toBe(false);
    expect(replayOf({ ...INCIDENT_DEPLOYMENT, disaggregated: false })).toBeNull();
  });

  it('several servers: the smallest prefill pool decides where the leak starts', () => {
    const a = deploymentBands({ ...INCIDENT_DEPLOYMENT, prefillCapacities: [900_032, 681_280, 900_032] });
    expect(a.routes).toHaveLength(2);
    expect(a.smallestLeak).toBe(681_281);
    expect(a.routes[1]!.smallestLeak).toBe(900_033);
  });
});

/** The engine's replay of one prompt on a deployment's route, under one resolution of the behaviours. */
function replayed(d: Deployment, n: number, behaviour: Parameters<typeof configFor>[2]): Outcome | null {
  const route = { prefillCapacity: d.prefillCapacities[0]!, decodeCapacity: d.decodeCapacities[0]! };
  const run = runScenario(singlePhaseSpec('edge', replayTrace(d, route, n), configFor(d, route, behaviour), 0), { record: false });
  return replayedOutcome(run);
}

const setting = fc.constantFrom('incident' as const, 'fixed' as const, 'unknown' as const);
const smallDeployment = fc
  .record({
    pageSize: fc.constantFrom(1, 4, 16, 64),
    context: fc.integer({ min: 64, max: 4_000 }),
    prefillShare: fc.double({ min: 0.3, max: 1.4, noNaN: true }),
    decodeShare: fc.double({ min: 0.5, max: 1.6, noNaN: true }),
    chunkTokens: fc.constantFrom(0, 256),
    rule: fc.constantFrom('report' as const, 'sglang' as const),
    // At least the replay's 24 output tokens, which the engine's budget also keeps (the chain: the declared
    // max_new_tokens), and at least a page: a running request crossing a page boundary needs a whole one, and
    // where SGLang would retract a request then, the engine stops with an error (MODEL.md).
    reserved: fc.constantFrom(64, 512),
    decodeContextShare: fc.option(fc.double({ min: 0.3, max: 1.2, noNaN: true }), { nil: null }),
    margin: fc.constantFrom(null, 0, 5),
    maxNewTokens: fc.constantFrom(null, 1, 24),
    behaviour: fc.record(Object.fromEntries(VERSION_SWITCHES.map((k) => [k, setting])) as Record<(typeof VERSION_SWITCHES)[number], typeof setting>),
  })
  .map(({ pageSize, context, prefillShare, decodeShare, chunkTokens, rule, reserved, decodeContextShare, margin, maxNewTokens, behaviour }): Deployment => ({
    ...INCIDENT_DEPLOYMENT,
    reservedDecodeTokens: reserved,
    decodeContextTokens: decodeContextShare === null ? null : Math.max(8, Math.round(context * decodeContextShare)),
    inputLimitMargin: margin,
    maxNewTokens,
    contextTokens: context,
    prefillCapacities: [Math.max(pageSize * 2, Math.round(context * prefillShare))],
    decodeCapacities: [Math.max(pageSize * 2, Math.round(context * decodeShare))],
    pageSize,
    chunkTokens,
    disaggregated: true,
    rule,
    behaviour,
  }));

describe('the bands agree with the engine’s replay', () => {
  it('at every band edge ± 1 token, under each resolution of the unknown behaviours', () => {
    fc.assert(
      fc.property(smallDeployment, (d) => {
        const route = { prefillCapacity: d.prefillCapacities[0]!, decodeCapacity: d.decodeCapacities[0]! };
        const bands = routeBands(d, route, false).bands;
        const lengths = new Set<number>();
        for (const b of bands) for (const edge of [b.from, ...(b.to === null ? [] : [b.to])]) for (const n of [edge - 1, edge, edge + 1]) if (n >= 1) lengths.add(n);
        for (const n of lengths) {
          const band = bands.find((b) => b.from <= n && (b.to === null || n <= b.to))!;
          // A prompt SGLang leaves waiting for ever, the engine's simulation ends with a 400 (docs/MODEL.md).
          for (const w of band.when) expect({ n, behaviour: w.behaviour, outcome: replayed(d, n, w.behaviour) }).toEqual({ n, behaviour: w.behaviour, outcome: w.outcome === 'waits' ? 'refused' : w.outcome });
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe('the bands are where SGLang’s decision chain changes its answer, to the token', () => {
  const big = fc
    .record({
      pageSize: fc.constantFrom(1, 16, 64, 256),
      context: fc.integer({ min: 1_000, max: 4_000_000 }),
      prefill: fc.integer({ min: 1_000, max: 4_000_000 }),
      decode: fc.integer({ min: 1_000, max: 6_000_000 }),
      decodeContext: fc.option(fc.integer({ min: 1_000, max: 4_000_000 }), { nil: null }),
      reserved: fc.integer({ min: 0, max: 8_192 }),
      margin: fc.constantFrom(null, 0, 5),
      maxNewTokens: fc.option(fc.integer({ min: 1, max: 10_000 }), { nil: null }),
      rule: fc.constantFrom('report' as const, 'sglang' as const),
      disaggregated: fc.boolean(),
      behaviour: fc.record(Object.fromEntries(VERSION_SWITCHES.map((k) => [k, setting])) as Record<(typeof VERSION_SWITCHES)[number], typeof setting>),
    })
    .filter((x) => x.prefill >= x.pageSize * 2 && x.decode >= x.pageSize * 2)
    .map(
      (x): Deployment => ({
        ...INCIDENT_DEPLOYMENT,
        contextTokens: x.context,
        prefillCapacities: [x.prefill],
        decodeCapacities: x.disaggregated ? [x.decode] : [],
        decodeContextTokens: x.decodeContext,
        pageSize: x.pageSize,
        reservedDecodeTokens: x.reserved,
        inputLimitMargin: x.margin,
        maxNewTokens: x.maxNewTokens,
        rule: x.rule,
        disaggregated: x.disaggregated,
        behaviour: x.behaviour,
      }),
    );

  it('N − 1, N and N + 1 at every edge get what their band says, and the answer changes at each edge', () => {
    fc.assert(
      fc.property(big, (d) => {
        for (const r of deploymentBands(d).routes) {
          const configs = resolutions(d.behaviour).map((b) => configFor(d, r.route, b));
          const at = (n: number) => configs.map((c) => chainAt(c, n, d.disaggregated, d.maxNewTokens)).map((x) => `${x.outcome}/${x.cause}`).join(' ');
          const bandOf = (n: number) => r.bands.find((b) => b.from <= n && (b.to === null || n <= b.to))!;
          const says = (b: Band) => b.when.map((w) => `${w.outcome}/${w.cause}`).join(' ');
          for (const b of r.bands) {
            for (const n of [b.from - 1, b.from, b.from + 1, ...(b.to === null ? [] : [b.to - 1, b.to, b.to + 1])]) if (n >= 1) expect({ n, got: at(n) }).toEqual({ n, got: says(bandOf(n)) });
          }
          for (let i = 1; i < r.bands.length; i++) expect(at(r.bands[i]!.from)).not.toEqual(at(r.bands[i]!.from - 1));
        }
      }),
      { numRuns: 300 },
    );
  });

  it('the chain’s steps on the incident’s numbers by SGLang’s rule, by hand: 681,273 served, 681,274 leaks, 1,048,570 refused by decode, 1,048,576 by the tokenizer', () => {
    const d: Deployment = { ...INCIDENT_DEPLOYMENT, rule: 'sglang' };
    const c = configFor(d, { prefillCapacity: 681_280, decodeCapacity: 1_310_720 }, worstCase(d.behaviour));
    // max_req_input_len = min(1,048,576 − 1, 681,280 − 1) − 5 = 681,274 (refused at or over it); decode's own:
    // min(1,048,575, 1,310,719) − 5 = 1,048,570; the tokenizer refuses at or over 1,048,576.
    expect([681_273, 681_274, 1_048_569, 1_048_570, 1_048_575, 1_048_576].map((n) => chainAt(c, n).outcome)).toEqual(['served', 'leaked', 'leaked', 'refused', 'refused', 'refused']);
    expect(chainAt(c, 681_274).steps.map((s) => s.at)).toEqual(['tokenizer', 'decode-check', 'prefill-scheduler', 'placeholder', 'decode-add', 'decode-budget', 'handoff']);
    expect(chainAt(c, 1_048_570).steps.at(-1)).toMatchObject({ at: 'decode-check', result: 'stop' });
  });
});
