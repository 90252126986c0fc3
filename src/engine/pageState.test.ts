import { describe, expect, it } from 'vitest';
import { INCIDENT_CONFIG, withOverrides } from './config.ts';
import { PageTimeline } from './pageState.ts';
import { demoTrace, matrixTrace } from './scenarios.ts';
import { Simulation } from './simulation.ts';

/** Index of the first element where two arrays differ, −1 if none (toEqual on 20k-element typed arrays is slow). */
function firstDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) return Math.min(a.length, b.length);
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return i;
  return -1;
}

describe('PageTimeline', () => {
  for (const [name, trace, clear] of [['demo', demoTrace(), false], ['matrix, clear on free', matrixTrace(), true]] as const) {
    it(`rebuilds exactly the pools' page state at any instant (${name})`, () => {
      const config = withOverrides(INCIDENT_CONFIG, { mitigations: { clearPagesOnFree: clear } });
      const full = new Simulation(config, trace).run();
      const layout = [...full.prefillPools, ...full.decodePools].map((p) => ({ kind: p.kind, index: p.index, pageCount: p.pageCount }));
      const timeline = new PageTimeline(full.events, layout, config.prefillNodes, full.requestTenant, 7);
      // Walk a second simulation step by step and compare at every distinct event time.
      const live = new Simulation(config, trace);
      const times = [...new Set(full.events.map((e) => e.t))];
      for (const t of times) {
        live.runUntil(t);
        const snap = timeline.at(t);
        [...live.prefillPools, ...live.decodePools].forEach((pool, i) => {
          const node = snap.nodes[i]!;
          expect(firstDifference(node.state, pool.pageState), `${node.name} state at t=${t}`).toBe(-1);
          expect(firstDifference(node.owner, pool.pageOwner), `${node.name} owner at t=${t}`).toBe(-1);
          expect(firstDifference(node.writtenFor, pool.pageWrittenFor), `${node.name} writer at t=${t}`).toBe(-1);
        });
      }
    });
  }
});
