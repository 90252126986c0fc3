import { describe, expect, it } from 'vitest';
import { INCIDENT_CONFIG, withOverrides } from './config.ts';
import { PageTimeline } from './pageState.ts';
import { demoTrace, matrixTrace } from './scenarios.ts';
import { Simulation } from './simulation.ts';

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
          expect(node.state).toEqual(pool.pageState);
          expect(node.owner).toEqual(pool.pageOwner);
          expect(node.writtenFor).toEqual(pool.pageWrittenFor);
        });
      }
    });
  }
});
