import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { runScenario } from '../../engine/run.ts';
import { runSpecOf } from '../../engine/runs/index.ts';
import type { EngineEvent } from '../../engine/index.ts';
import { stageFrame, stageSteps, stepIndexAt } from './stageFrame.ts';

// The demo run: one over-long request (delta's) slips through; the others are served normally.
const run = runScenario(runSpecOf({ scenario: 'demo', overrides: {} }), { keepDetails: true });
const leakReq = run.leaks[0]!.request;
const leakEvents = run.details!.events[leakReq]!;
const leakTokens = run.details!.responses[leakReq]!.tokens.length;
const normalReq = run.details!.responses.findIndex((r) => r && r.status === 200 && r.leakedFrom.length === 0);
const normalEvents = run.details!.events[normalReq]!;
const fixed = runScenario(runSpecOf({ scenario: 'demo', overrides: { rejectPath: 'fixed' } }), { keepDetails: true });
const fixedEvents = fixed.details!.events[leakReq]!;

const span = (events: readonly EngineEvent[]) => [events[0]!.t - 10, events[events.length - 1]!.t + 200] as const;

describe('stage steps', () => {
  it('start at the engine event times, in event order, and tile the handoff without gaps', () => {
    for (const events of [leakEvents, normalEvents, fixedEvents]) {
      const steps = stageSteps(events);
      // A decode step's new page is drawn in the pools, with no step of its own.
      const times = new Set(events.filter((e) => e.type !== 'decode-grow').map((e) => e.t));
      // Every other event time begins a step, and every step begins at or after its own event.
      // (Starts sit on the URL's microsecond grid: at the event's time, or less than 1 µs after it.)
      for (const t of times) expect(steps.some((s) => s.start >= t && s.start < t + 0.001)).toBe(true);
      for (const s of steps) expect(s.start).toBeGreaterThanOrEqual(events[s.event]!.t);
      for (const s of steps) expect(Number(String(Math.round(s.start * 1000) / 1000))).toBe(s.start);
      for (let k = 0; k + 1 < steps.length; k++) {
        expect(steps[k]!.end).toBe(steps[k + 1]!.start);
        expect(steps[k]!.start).toBeLessThan(steps[k]!.end);
        expect(steps[k]!.event).toBeLessThanOrEqual(steps[k + 1]!.event);
      }
      // Events sharing an instant end before the next instant begins.
      for (const s of steps) {
        const next = [...times].filter((t) => t > events[s.event]!.t).sort((a, b) => a - b)[0];
        if (next !== undefined && s.id !== 'reuse') expect(s.end).toBeLessThan(next + 0.001);
      }
    }
  });

  it('show the leaking request’s story in order', () => {
    const ids = stageSteps(leakEvents).map((s) => s.id);
    expect(ids).toEqual(['arrive', 'tokenizer', 'abort', 'route', 'reserve', 'prefill-alloc', 'compute', 'transfer', 'prefill-free', 'done', 'scan', 'stream', 'free', 'response', 'reuse']);
    expect(stageSteps(fixedEvents).map((s) => s.id)).toContain('reject');
  });
});

describe('stage frame', () => {
  it('is a pure function of t (same t, same frame)', () => {
    const [from, to] = span(leakEvents);
    fc.assert(
      fc.property(fc.double({ min: from, max: to, noNaN: true }), (t) => {
        expect(stageFrame(leakEvents, t, { tokenCount: leakTokens })).toEqual(stageFrame(leakEvents, t, { tokenCount: leakTokens }));
      }),
    );
  });

  it('moves forward only: step, lit pages, scanned pages and tokens never go back as t grows', () => {
    for (const events of [leakEvents, normalEvents]) {
      const [from, to] = span(events);
      fc.assert(
        fc.property(fc.double({ min: from, max: to, noNaN: true }), fc.double({ min: from, max: to, noNaN: true }), (a, b) => {
          const [t0, t1] = a <= b ? [a, b] : [b, a];
          const f0 = stageFrame(events, t0, { tokenCount: 24 });
          const f1 = stageFrame(events, t1, { tokenCount: 24 });
          expect(f1.stepIndex).toBeGreaterThanOrEqual(f0.stepIndex);
          if (f1.stepIndex === f0.stepIndex) expect(f1.progress).toBeGreaterThanOrEqual(f0.progress);
          expect(f1.reservedLit).toBeGreaterThanOrEqual(f0.reservedLit);
          expect(f1.scanned).toBeGreaterThanOrEqual(f0.scanned);
          expect(f1.tokensShown).toBeGreaterThanOrEqual(f0.tokensShown);
          expect(f1.pagesWritten).toBeGreaterThanOrEqual(f0.pagesWritten);
        }),
      );
    }
  });

  it('says what the engine’s events say at each step of the leaking request', () => {
    const steps = stageSteps(leakEvents);
    const at = (id: string, p = 0.5) => {
      const s = steps.find((x) => x.id === id)!;
      return stageFrame(leakEvents, s.start + (Math.min(s.end, s.start + 1000) - s.start) * p, { tokenCount: leakTokens, steps });
    };
    const arrive = leakEvents.find((e) => e.type === 'arrive')!;
    const reserve = leakEvents.find((e) => e.type === 'decode-reserve')!;
    const transfer = leakEvents.find((e) => e.type === 'kv-transfer')!;
    const done = leakEvents.find((e) => e.type === 'transfer-done')!;
    if (arrive.type !== 'arrive' || reserve.type !== 'decode-reserve' || transfer.type !== 'kv-transfer' || done.type !== 'transfer-done') throw new Error('demo events changed');
    expect(at('arrive').inputTokens).toBe(arrive.tokens);
    // N collapses to 1 across the abort step.
    const mid = at('abort').inputTokens;
    expect(mid).toBeLessThan(arrive.tokens);
    expect(mid).toBeGreaterThan(1);
    expect(at('abort', 1).inputTokens).toBe(1);
    // Reservation lights ceil(N / P) pages, lowest first.
    expect(at('reserve', 1).reserved.length).toBe(reserve.pageCount);
    expect(at('reserve', 1).reserved.length).toBe(Math.ceil(arrive.tokens / 64));
    expect(at('reserve').reservedLit).toBeLessThan(reserve.pageCount);
    expect(at('compute').beamPages).toBe(transfer.pagesWritten);
    expect(transfer.pagesWritten).toBe(1);
    expect(at('transfer').pagesWritten).toBe(1);
    expect(at('done').message).toMatchObject({ room: done.room, status: 'Success' });
    expect(at('scan').scanned).toBeLessThan(reserve.pageCount);
    expect(at('stream').scanned).toBe(reserve.pageCount);
    expect(at('stream').tokensShown).toBeGreaterThan(0);
    expect(at('stream').tokensShown).toBeLessThan(leakTokens);
    expect(at('response', 1).status).toBe(200);
    expect(at('response', 1).tokensShown).toBe(leakTokens);
    expect(at('reuse').freed).toBe(true);
    // A normal request carries all of its pages.
    const nt = normalEvents.find((e) => e.type === 'kv-transfer')!;
    const nSteps = stageSteps(normalEvents);
    const ns = nSteps.find((x) => x.id === 'compute')!;
    const nr = normalEvents.find((e) => e.type === 'decode-reserve')!;
    if (nt.type !== 'kv-transfer' || nr.type !== 'decode-reserve') throw new Error('demo events changed');
    expect(stageFrame(normalEvents, (ns.start + ns.end) / 2, { tokenCount: 24 }).beamPages).toBe(nr.pageCount);
  });

  it('with reduced motion shows each step’s end state', () => {
    const steps = stageSteps(leakEvents);
    const s = steps.find((x) => x.id === 'reserve')!;
    const f = stageFrame(leakEvents, s.start, { tokenCount: leakTokens, reducedMotion: true, steps });
    expect(f.reservedLit).toBe(f.reserved.length);
    expect(stepIndexAt(steps, s.start)).toBe(steps.indexOf(s));
  });

  it('is idle before the request arrives', () => {
    expect(stageFrame(leakEvents, leakEvents[0]!.t - 1, { tokenCount: leakTokens }).step).toBe('idle');
  });
});
