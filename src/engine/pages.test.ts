import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DeploymentRefused, INCIDENT_CONFIG, withOverrides, type EngineConfig, type Mitigations } from './config.ts';
import { PageOpMapper, PageRecorder, PageSeeker, nodeLayouts } from './pages.ts';
import { demoTrace } from './scenarios.ts';
import { Simulation } from './simulation.ts';
import { MITIGATION_KEYS } from './switches.ts';
import type { Trace } from './trace.ts';

/** Index of the first element where two arrays differ, −1 if none (toEqual on large typed arrays is slow). */
function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

const TENANTS = ['acme', 'borealis', 'cobalt', 'delta'];

const scenario = fc.record({
  pageSize: fc.constantFrom(4, 7, 16, 50, 64),
  prefillCapacityTokens: fc.integer({ min: 1500, max: 6000 }),
  decodeCapacityTokens: fc.integer({ min: 3000, max: 12000 }),
  decodeNodes: fc.integer({ min: 1, max: 4 }),
  rejectPath: fc.constantFrom('buggy' as const, 'fixed' as const),
  mitigations: fc.record(Object.fromEntries(MITIGATION_KEYS.map((k) => [k, fc.boolean()])) as Record<keyof Mitigations, fc.Arbitrary<boolean>>),
  requests: fc.array(
    fc.record({ at: fc.integer({ min: 0, max: 4000 }), tenant: fc.integer({ min: 0, max: 3 }), promptTokens: fc.integer({ min: 1, max: 9000 }) }),
    { minLength: 1, maxLength: 14 },
  ),
  /** Seek order: a permutation seed, so the seeker is asked backwards and forwards. */
  order: fc.array(fc.nat(), { minLength: 4, maxLength: 40 }),
  checkpointOps: fc.integer({ min: 1, max: 30 }),
});

type ScenarioInput = typeof scenario extends fc.Arbitrary<infer T> ? T : never;

function build(s: ScenarioInput): { config: EngineConfig; trace: Trace } {
  const config = withOverrides(INCIDENT_CONFIG, {
    pageSize: s.pageSize,
    prefillCapacityTokens: s.prefillCapacityTokens,
    decodeCapacityTokens: s.decodeCapacityTokens,
    advertisedContextTokens: 8000,
    decodeNodes: s.decodeNodes,
    rejectPath: s.rejectPath,
    outputTokens: 3,
    mitigations: s.mitigations,
  });
  const trace: Trace = {
    version: 1,
    tenants: TENANTS.map((name) => ({ name })),
    requests: s.requests.map((r, i) => ({ id: `r${i}`, at: r.at, tenant: TENANTS[r.tenant]!, promptTokens: r.promptTokens })),
  };
  return { config, trace };
}

describe('the page model', () => {
  it('seeks to exactly the pools\u2019 page state, at random instants in random order (fast-check)', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        const { config, trace } = build(s);
        let full: Simulation;
        try {
          full = new Simulation(config, trace);
        } catch (e) {
          if (e instanceof DeploymentRefused) return;
          throw e;
        }
        const nodes = nodeLayouts(config);
        const recorder = new PageRecorder(nodes, 0, true, 1 + s.checkpointOps * 20, s.checkpointOps);
        const mapper = new PageOpMapper(config.prefillNodes, config.pageSize, recorder.record);
        for (const e of full.run().events) mapper.onEvent(e);
        const seeker = new PageSeeker(recorder.finish());
        const times = [...new Set(full.events.map((e) => e.t))];
        const at = s.order.map((k) => times[k % times.length]!);
        for (const t of at) {
          // Ground truth: a fresh simulation run up to t, its pools compared page by page.
          const live = new Simulation(config, trace);
          live.runUntil(t);
          const pages = seeker.at(t);
          [...live.prefillPools, ...live.decodePools].forEach((pool, i) => {
            const node = nodes[i]!;
            expect(node.pageCount).toBe(pool.pageCount);
            const slice = (a: Int32Array | Uint8Array) => a.subarray(node.pageOffset, node.pageOffset + node.pageCount);
            expect(firstDifference(slice(pages.state), pool.pageState), `${node.name} state at t=${t}`).toBe(-1);
            expect(firstDifference(slice(pages.owner), pool.pageOwner), `${node.name} owner at t=${t}`).toBe(-1);
            expect(firstDifference(slice(pages.writer), pool.pageWrittenFor), `${node.name} writer at t=${t}`).toBe(-1);
          });
        }
      }),
      { numRuns: 60 },
    );
  });

  it('lists, seek after seek, every page whose state differs from the previous seek, each once (fast-check)', () => {
    fc.assert(
      fc.property(scenario, fc.integer({ min: 0, max: 40 }), (s, limit) => {
        const { config, trace } = build(s);
        let sim: Simulation;
        try {
          sim = new Simulation(config, trace);
        } catch (e) {
          if (e instanceof DeploymentRefused) return;
          throw e;
        }
        const recorder = new PageRecorder(nodeLayouts(config), 0, true, 1 + s.checkpointOps * 20, s.checkpointOps);
        const mapper = new PageOpMapper(config.prefillNodes, config.pageSize, recorder.record);
        for (const e of sim.run().events) mapper.onEvent(e);
        const data = recorder.finish();
        const seeker = new PageSeeker(data);
        // A second seeker with a small limit: above it, the list gives way to null (look at every page).
        const capped = new PageSeeker(data);
        const times = [...new Set(sim.events.map((e) => e.t))];
        let before: { state: Uint8Array; writer: Int32Array; writeTime: Float64Array; owner: Int32Array } | null = null;
        for (const [k, key] of s.order.entries()) {
          // Now and then an instant between events, before the first or after the last one.
          const t = k % 7 === 3 ? times[key % times.length]! + 0.5 : k % 11 === 5 ? -1 : times[key % times.length]!;
          const now = k % 5 === 4 ? seeker.atFromStart(t) : seeker.at(t);
          capped.at(t);
          const changed = seeker.changedPages(Number.POSITIVE_INFINITY);
          const cappedChanged = capped.changedPages(limit);
          if (!before) {
            expect(changed).toBeNull();
          } else {
            expect(changed).not.toBeNull();
            const listed = new Set(changed!);
            expect(listed.size, 'each page listed once').toBe(changed!.length);
            for (let p = 0; p < data.totalPages; p++) {
              const differs = before.state[p] !== now.state[p] || before.writer[p] !== now.writer[p] || before.writeTime[p] !== now.writeTime[p] || before.owner[p] !== now.owner[p];
              if (differs) expect(listed.has(p), `page ${p} changed at t=${t} but is not listed`).toBe(true);
            }
            if (cappedChanged) expect([...cappedChanged].sort((a, b) => a - b)).toEqual([...changed!].sort((a, b) => a - b));
            else expect(changed!.length).toBeGreaterThan(0);
          }
          before = { state: now.state.slice(), writer: now.writer.slice(), writeTime: now.writeTime.slice(), owner: now.owner.slice() };
        }
      }),
      { numRuns: 60 },
    );
  });

  it('lays out exactly the pools a simulation builds, also when the page size does not divide a capacity', () => {
    const config = withOverrides(INCIDENT_CONFIG, { pageSize: 256 });
    const sim = new Simulation(config, demoTrace());
    expect(nodeLayouts(config).map((n) => [n.name, n.pageCount])).toEqual([...sim.prefillPools, ...sim.decodePools].map((p) => [p.name, p.pageCount]));
    // The capacity's whole pages, and the reserved page 0.
    expect(nodeLayouts(config)[0]!.pageCount).toBe(Math.floor(681_280 / 256) + 1);
  });
});
