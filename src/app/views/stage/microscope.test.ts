import { describe, expect, it } from 'vitest';
import { runScenario } from '../../../engine/run.ts';
import { runSpecOf } from '../../../engine/runs/index.ts';
import { handoffScript, positionAtHandoff } from '../../moment/handoff.ts';
import { microscopePlan, microscopeRows, microscopeRowsAt, type MicroPageRow } from './microscope.ts';
import { stageFrameAt } from '../../moment/stageFrame.ts';

const spec = runSpecOf({ scenario: 'demo', overrides: {} });
const run = runScenario(spec, { keepDetails: true });
const LEAK = run.leaks[0]!.request;
const events = run.details!.events[LEAK]!;
const response = run.details!.responses[LEAK]!;
const sample = response.slots!;
const script = handoffScript(events, response.tokens.length);
const reserve = events.find((e) => e.type === 'decode-reserve')!;
const tableLength = reserve.type === 'decode-reserve' ? reserve.pageCount : 0;

function rowsAt(id: string, into: number, r = run) {
  const s = script.steps.find((x) => x.id === id)!;
  const p = positionAtHandoff(script, s.at + s.dur * into);
  const frame = stageFrameAt(events, script.steps, p.index, p.progress, p.engineT, { tokenCount: response.tokens.length, steps: script.steps });
  void r;
  return microscopeRows({ sample, frame, req: LEAK, tableLength, firstPages: 2, ownerOf: () => -1 });
}
const pages = (rows: ReturnType<typeof rowsAt>) => rows.filter((r): r is MicroPageRow => r.kind === 'page');
const wordsOf = (row: MicroPageRow) => Array.from(row.tokens, (id) => run.details!.words[id]);

describe('the microscope', () => {
  it('lays the block table out in order: sampled pages at their positions, bands for the rest, every position once', () => {
    const rows = rowsAt('scan', 0.5);
    let next = 0;
    for (const r of rows) {
      if (r.kind === 'band') {
        expect(r.from).toBe(next);
        next = r.to;
      } else {
        expect(r.position).toBe(next);
        next = r.position + 1;
      }
    }
    expect(next).toBe(tableLength);
  });

  it('shows the words another tenant\u2019s request left in the reserved pages, then page 0 rewritten by the one-page transfer', () => {
    const before = pages(rowsAt('reserve', 0.99));
    expect(before[1]!.state).toBe('stale');
    expect(run.requests.tenant[before[1]!.writer]).not.toBe(run.requests.tenant[LEAK]);
    const after = pages(rowsAt('scan', 0.5));
    expect(after[0]!.placeholderPage).toBe(true);
    expect(after[0]!.writers[0]).toBe(LEAK);
    // Page 1 received nothing: the same words as before the transfer.
    expect(wordsOf(after[1]!)).toEqual(wordsOf(before[1]!));
  });

  it('plans its rows once: every frame of the handoff has the plan\u2019s rows, in its order, as the rows computed whole', () => {
    const plan = microscopePlan({ sample, tableLength, firstPages: 2 });
    for (const s of script.steps) {
      for (const f of [0.1, 0.5, 0.9]) {
        const p = positionAtHandoff(script, s.at + s.dur * f);
        const frame = stageFrameAt(events, script.steps, p.index, p.progress, p.engineT, { tokenCount: response.tokens.length, steps: script.steps });
        const rows = microscopeRowsAt(plan, { sample, frame, req: LEAK, ownerOf: () => -1 });
        expect(rows.map((r) => (r.kind === 'page' ? `p${r.sample}` : `b${r.from}-${r.to}`)), `${s.id} ${f}`).toEqual(plan.map((r) => (r.kind === 'page' ? `p${r.k}` : `b${r.from}-${r.to}`)));
        expect(rows).toEqual(microscopeRows({ sample, frame, req: LEAK, tableLength, firstPages: 2, ownerOf: () => -1 }));
      }
    }
  });

  it('has the reservation sweep down the rows and the free sweep after it', () => {
    const early = rowsAt('reserve', 0.05);
    const late = rowsAt('reserve', 0.95);
    expect(early.filter((r) => (r.kind === 'page' ? r.lit : r.litPages) > 0).length).toBeLessThan(late.filter((r) => (r.kind === 'page' ? r.lit : r.litPages) > 0).length);
    const freeing = pages(rowsAt('free', 0.5));
    expect(freeing.some((r) => r.state === 'freed')).toBe(true);
    expect(freeing.some((r) => r.state !== 'freed')).toBe(true);
  });

  it('follows memory: with the pages cleared on free, the reserved rows hold zeros, not another tenant\u2019s words', () => {
    const cleared = runScenario(runSpecOf({ scenario: 'demo', overrides: { mitigations: { clearPagesOnFree: true } } } as never), { keepDetails: true });
    const r = cleared.details!.responses[LEAK]!;
    const s = r.slots!;
    // Every slot of the first pages is zeros (−1) or the request's own, never another request's.
    for (let i = 0; i < s.before.count * s.pageSize; i++) expect(s.before.writers[i]).toBe(-1);
  });
});
