import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeRun } from '../run/computeRun.ts';
import { summaryOf, type RequestDetail, type RunSummary } from '../run/summary.ts';
import { INCIDENT_SWITCHES, overridesOf, type SwitchKey } from '../../engine/switches.ts';
import { countOutcome, noCounters } from '../../engine/run.ts';
import { blockTableAt, momentOf, outcomesBy, positionOf, tokenSourcesOf } from './moment.ts';

/** A run as the page holds it (the worker's transfer wrapped by summaryOf), with every request's detail. */
function pageRun(flipped: Partial<Record<SwitchKey, boolean>>): { run: RunSummary; detail: (req: number) => RequestDetail } {
  const overrides = overridesOf({ ...INCIDENT_SWITCHES, ...flipped });
  const { run, details } = computeRun({ scenario: 'demo', overrides }, { keepDetails: true });
  const key = `demo:${JSON.stringify(overrides)}`;
  const detail = (req: number): RequestDetail => ({ runKey: key, response: details!.responses[req]!, events: details!.events[req]!, words: details!.words });
  const summary = summaryOf({ ...run, elapsedMs: 0 }, key, async (req) => ({ events: details!.events[req]!, response: details!.responses[req]!, words: details!.words }));
  return { run: summary, detail };
}

const RUNS = [pageRun({}), pageRun({ clearPagesOnFree: true })];

/** Requests that reached decode (they have a block table), of a run. */
const handedOff = RUNS.map(({ run }) => Array.from({ length: run.requests.count }, (_, i) => i).filter((i) => run.requests.pagesReserved[i]! > 0));

const moments = fc
  .record({ r: fc.integer({ min: 0, max: RUNS.length - 1 }), k: fc.nat(), share: fc.double({ min: 0, max: 1, noNaN: true }), clock: fc.boolean(), reducedMotion: fc.boolean() })
  .map(({ r, k, share, clock, reducedMotion }) => {
    const { run, detail } = RUNS[r]!;
    const req = handedOff[r]![k % handedOff[r]!.length]!;
    const d = detail(req);
    const arrive = d.events[0]!.t;
    const end = d.events[d.events.length - 1]!.t;
    // The handoff clock anywhere in the handoff (and a little past it), or the incident's clock around it.
    const m0 = momentOf({ run, req, detail: d, time: arrive, handoff: 0, reducedMotion });
    const handoff = clock ? Math.round(share * (m0.script.total + 2) * 100) / 100 : null;
    const time = Math.round((arrive - 1 + share * (end - arrive + 3)) * 1000) / 1000;
    return { run, req, detail: d, time, handoff, reducedMotion };
  });

describe('one moment', () => {
  it('shows the block table as of the handoff’s own step: nothing written for the request before the transfer, what the transfer wrote after it (fast-check)', () => {
    fc.assert(
      fc.property(moments, (input) => {
        const m = momentOf(input);
        const ids = m.script.steps.map((s) => s.id);
        const transfer = ids.indexOf('transfer');
        const free = ids.indexOf('free');
        const i = m.position.index;
        const { written, stale, empty, pages } = m.blockTable;
        expect(written + stale + empty).toBe(pages.length);
        if (transfer < 0 || i < transfer) expect(written).toBe(0);
        else if (free < 0 || i < free) expect(written).toBe(m.frame.pagesWritten);
        // Every stale page is named by a tenant of the roster, none folded away.
        expect(m.blockTable.staleByTenant.reduce((a, x) => a + x.pages, 0)).toBe(stale);
        for (const x of m.blockTable.staleByTenant) expect(m.roster[x.tenant]).toBeDefined();
      }),
      { numRuns: 200 },
    );
  });

  it('counts the request’s own leak as sent only once the stage has streamed its whole answer, and always after its response (fast-check)', () => {
    fc.assert(
      fc.property(moments, (input) => {
        const m = momentOf(input);
        const leak = input.run.leaks.find((l) => l.request === input.req);
        if (!leak) return;
        const sent = input.run.leaks.filter((l) => l.finishedAt <= m.engineT).includes(leak);
        expect(m.leaksSent).toBe(input.run.leaks.filter((l) => l.finishedAt <= m.engineT).length);
        if (sent) expect(m.frame.tokensShown).toBe(input.detail.response.tokens.length);
        const response = m.script.steps.findIndex((s) => s.id === 'response');
        if (m.position.index >= response) expect(sent).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('is one position for every reader: the moment’s, whatever view asks (fast-check)', () => {
    fc.assert(
      fc.property(moments, (input) => {
        const a = momentOf(input);
        const b = positionOf(input);
        expect(b).toEqual(a.position);
        expect(a.step?.id ?? 'idle').toBe(a.frame.step);
        expect(a.engineT).toBe(a.position.engineT);
      }),
      { numRuns: 200 },
    );
  });

  it('counts the outcome tiles as of the moment: every request answered by its engine time, one by one, and the whole run at its end (fast-check)', () => {
    fc.assert(
      fc.property(moments, (input) => {
        const m = momentOf(input);
        const r = input.run.requests;
        // Counted the slow way: every request whose answer went out by the moment, by the one rule.
        const slow = noCounters();
        for (let i = 0; i < r.count; i++) {
          if (r.arrivedAt[i]! <= m.engineT) slow.requests++;
          if (r.finishedAt[i]! <= m.engineT) countOutcome(slow, r, i);
        }
        const { pagesReadZero: _z, ...now } = m.outcomes.now;
        const { pagesReadZero: _s, ...want } = slow;
        expect(now).toEqual(want);
        expect(m.outcomes.total).toBe(input.run.counters);
        // The leak counter's rule: a leaked response counts once it went out.
        expect(m.outcomes.now.leaked).toBe(input.run.leaks.filter((l) => l.finishedAt <= m.engineT && l.dataOf.length > 0).length);
      }),
      { numRuns: 200 },
    );
    for (const { run } of RUNS) {
      expect(outcomesBy(run, Infinity)).toEqual(run.counters);
      expect(outcomesBy(run, -1)).toEqual(noCounters());
    }
  });

  it('names each token’s source from the pools as the engine’s own provenance does: the slot’s writer when decode read it, and its block', () => {
    for (const [r, { run, detail }] of RUNS.entries()) {
      for (const req of handedOff[r]!) {
        const d = detail(req);
        const sources = tokenSourcesOf(run, req, d);
        const pages = momentOf({ run, req, detail: d, time: d.events[0]!.t, handoff: null, reducedMotion: true }).blockTable.pages;
        expect(sources).toHaveLength(d.response.tokens.length);
        d.response.provenance.forEach((p, i) => {
          const s = sources[i]!;
          expect(s.writerRequest, `${d.response.id} token ${i}`).toBe(p.writerRequest);
          expect(s.writerTenant).toBe(p.writerTenant);
          expect(s.page).toBe(p.page);
          if (s.block >= 0) expect(pages[s.block]).toBe(p.page);
        });
      }
    }
  });

  it('counts the block table incrementally as the whole table counted afresh, frame after frame and after seeks elsewhere (fast-check)', () => {
    fc.assert(
      fc.property(fc.array(moments, { minLength: 1, maxLength: 12 }), fc.boolean(), (inputs, elsewhere) => {
        for (const input of inputs) {
          // A view seeking another instant between frames (the count must not take its changes for its own).
          if (elsewhere) input.run.seek(input.time / 2);
          const m = momentOf(input);
          expect(m.blockTable).toEqual(blockTableAt(input.run.seek(m.engineT), m.blockTable.node, m.blockTable.pages, input.req));
        }
      }),
      { numRuns: 100 },
    );
    // A handoff played frame by frame: every frame's count is the whole table's.
    const { run, detail } = RUNS[0]!;
    const req = run.leaks[0]!.request;
    const d = detail(req);
    const total = momentOf({ run, req, detail: d, time: 0, handoff: 0, reducedMotion: false }).script.total;
    for (let i = 0; i <= 300; i++) {
      const m = momentOf({ run, req, detail: d, time: 0, handoff: (total * i) / 300, reducedMotion: false });
      expect(m.blockTable).toEqual(blockTableAt(run.seek(m.engineT), m.blockTable.node, m.blockTable.pages, req));
    }
  });
});
