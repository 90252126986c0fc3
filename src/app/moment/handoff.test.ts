import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runScenario } from '../../engine/run.ts';
import { runSpecOf } from '../../engine/runs/index.ts';
import { ease, handoffScript, handoffTimeOf, positionAtHandoff, positionAtInstant, stepEnd, streamSeconds } from './handoff.ts';
import { stageSteps } from './stageFrame.ts';

const run = runScenario(runSpecOf({ scenario: 'demo', overrides: {} }), { keepDetails: true });
const requests = run.details!.events.map((events, i) => ({ events, tokens: run.details!.responses[i]?.tokens.length ?? 0 })).filter((r) => r.events.length > 0);

describe('the handoff clock', () => {
  it('gives every step of the one step list a duration, back to back, from 0 to the total', () => {
    for (const r of requests) {
      const script = handoffScript(r.events, r.tokens);
      expect(script.steps.map((s) => s.id)).toEqual(stageSteps(r.events).map((s) => s.id));
      let at = 0;
      for (const s of script.steps) {
        expect(s.at).toBeCloseTo(at, 9);
        expect(s.dur).toBeGreaterThan(0);
        at += s.dur;
      }
      expect(script.total).toBeCloseTo(at, 9);
    }
  });

  it('is monotone: a later moment is never an earlier step, an earlier engine time or a smaller progress within its step', () => {
    const script = handoffScript(requests[requests.length - 1]!.events, requests[requests.length - 1]!.tokens);
    fc.assert(
      fc.property(fc.double({ min: 0, max: script.total, noNaN: true }), fc.double({ min: 0, max: script.total, noNaN: true }), (a, b) => {
        const [x, y] = a <= b ? [a, b] : [b, a];
        const p = positionAtHandoff(script, x);
        const q = positionAtHandoff(script, y);
        expect(q.index).toBeGreaterThanOrEqual(p.index);
        expect(q.engineT).toBeGreaterThanOrEqual(p.engineT - 1e-9);
        if (p.index === q.index) expect(q.progress).toBeGreaterThanOrEqual(p.progress - 1e-12);
        expect(p.progress).toBeGreaterThanOrEqual(0);
        expect(p.progress).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('lands a step at its start, its middle and its end state; stepping lands on the end state', () => {
    for (const r of requests) {
      const script = handoffScript(r.events, r.tokens);
      script.steps.forEach((s, i) => {
        expect(positionAtHandoff(script, s.at).index).toBe(i);
        expect(positionAtHandoff(script, s.at + s.dur / 2).progress).toBeCloseTo(s.id === 'stream' ? 0.5 : ease(0.5), 9);
        const end = positionAtHandoff(script, stepEnd(s));
        expect(end.index).toBe(i);
        expect(end.progress).toBeGreaterThan(0.99);
        expect(handoffTimeOf(script, s.id, 0)).toBeLessThanOrEqual(s.at + 1e-9);
      });
      expect(positionAtHandoff(script, -0.5).index).toBe(-1);
    }
  });

  it('reduced motion shows every step in its end state, wherever the clock is within it', () => {
    const script = handoffScript(requests[0]!.events, requests[0]!.tokens);
    for (const s of script.steps) expect(positionAtHandoff(script, s.at + s.dur * 0.1, { reducedMotion: true }).progress).toBe(1);
  });

  it('follows the incident clock when it is not running: a later instant is never an earlier handoff moment', () => {
    const r = requests[requests.length - 1]!;
    const script = handoffScript(r.events, r.tokens);
    const first = r.events[0]!.t;
    const last = r.events[r.events.length - 1]!.t;
    fc.assert(
      fc.property(fc.double({ min: first - 5, max: last + 5, noNaN: true }), fc.double({ min: first - 5, max: last + 5, noNaN: true }), (a, b) => {
        const [x, y] = a <= b ? [a, b] : [b, a];
        expect(positionAtInstant(script, y).h).toBeGreaterThanOrEqual(positionAtInstant(script, x).h - 1e-9);
      }),
    );
    expect(positionAtInstant(script, first - 1).index).toBe(-1);
  });

  it('gives the token stream time by its length, within bounds', () => {
    expect(streamSeconds(1)).toBe(3);
    expect(streamSeconds(20)).toBeCloseTo(8, 9);
    expect(streamSeconds(1000)).toBe(12);
  });
});
