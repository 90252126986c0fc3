import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseFactsFile } from '../../data/facts.ts';
import { MESSAGES } from '../i18n/messages.ts';
import type { RunSummary } from '../run/summary.ts';
import { DEFAULT_STATE } from '../state/store.ts';
import { HIGHLIGHTS } from '../views/shared/highlight.ts';
import { INCIDENT_CONFIG } from '../../engine/config.ts';
import { nodeLayouts } from '../../engine/pages.ts';
import { CHAPTERS, clampChapter } from './chapters/index.ts';
import type { Step } from './chapters/steps.ts';
import { animatedDuration, baseOf, beatsOf, captionsOf, checkpointIndex, compileChapter, ease, roomBeatShown, sample, shownAt, stopBeat } from './timeline.ts';

const FACT_IDS = new Set(Array.from({ length: 26 }, (_, i) => `F${i + 1}`));

describe('chapters', () => {
  it('has at least eight chapters, and a link past the last opens the last', () => {
    expect(CHAPTERS.length).toBeGreaterThanOrEqual(8);
    expect(new Set(CHAPTERS.map((c) => c.id)).size).toBe(CHAPTERS.length);
    expect(clampChapter(CHAPTERS.length + 5)).toBe(CHAPTERS.length);
    expect(clampChapter(0)).toBe(1);
  });

  it('highlights only named parts of the views, and names instants, never times', () => {
    // A node's grid by the name the cluster view gives it: the chapters' runs (the demo, the incident
    // window) are the incident's deployment, one prefill node and two decode nodes.
    const nodes = nodeLayouts(INCIDENT_CONFIG).map((n) => `node-${n.name}`);
    for (const ch of CHAPTERS) {
      for (const step of ch.steps) {
        if ('highlight' in step && step.highlight !== null) expect(HIGHLIGHTS.includes(step.highlight as never) || nodes.includes(step.highlight), `${ch.id}: ${step.highlight}`).toBe(true);
        if ('set' in step) expect(Object.keys(step.set), ch.id).not.toContain('time');
      }
    }
  });

  it('says everything in English and French', () => {
    for (const ch of CHAPTERS) {
      const texts = [ch.title, ch.notes, ...ch.paragraphs.map((p) => p.text), ...captionsOf(ch.steps)];
      if (ch.checkpoint) texts.push(ch.checkpoint.question, ch.checkpoint.explain, ...ch.checkpoint.options.map((o) => o.label));
      for (const l of texts) {
        expect(l.en.trim(), ch.id).not.toBe('');
        expect(l.fr.trim(), ch.id).not.toBe('');
        expect(l.fr, `${ch.id}: French text is not the English one`).not.toBe(l.en);
      }
    }
    for (const [key, en] of Object.entries(MESSAGES.en)) expect(MESSAGES.fr[key as keyof typeof MESSAGES.en], key).toBeTruthy();
    expect(Object.keys(MESSAGES.fr).sort()).toEqual(Object.keys(MESSAGES.en).sort());
  });

  it('gives every paragraph its evidence: a report fact id, a background source, or the model label', () => {
    for (const ch of CHAPTERS) {
      for (const p of ch.paragraphs) {
        if ('facts' in p.evidence) for (const id of p.evidence.facts) expect(FACT_IDS.has(id), `${ch.id}: ${id}`).toBe(true);
        else if ('background' in p.evidence) for (const id of p.evidence.background) expect(id).toMatch(/^B\d+$/);
      }
    }
    // The story runs from KV pages to the fixes and what is open (F26), then earlier incidents.
    expect(CHAPTERS.some((c) => c.paragraphs.some((p) => 'facts' in p.evidence && p.evidence.facts.includes('F26')))).toBe(true);
    const last = CHAPTERS[CHAPTERS.length - 1]!;
    expect(last.paragraphs.flatMap((p) => ('background' in p.evidence ? p.evidence.background : []))).toEqual(expect.arrayContaining(['B5', 'B6', 'B7']));
  });

  it('cites only facts and sources the facts file has', () => {
    const file = parseFactsFile(JSON.parse(readFileSync(new URL('../../../public/facts.json', import.meta.url), 'utf8')));
    const facts = new Set(file.facts.map((f) => f.id));
    const background = new Set(file.background.map((b) => b.id));
    for (const ch of CHAPTERS) {
      for (const p of ch.paragraphs) {
        if ('facts' in p.evidence) for (const id of p.evidence.facts) expect(facts.has(id), `${ch.id}: ${id}`).toBe(true);
        if ('background' in p.evidence) for (const id of p.evidence.background) expect(background.has(id), `${ch.id}: ${id}`).toBe(true);
      }
    }
  });

  it('has a checkpoint step exactly where a chapter has a question, and its answer is an option', () => {
    for (const ch of CHAPTERS) {
      expect(checkpointIndex(ch.steps) >= 0, ch.id).toBe(!!ch.checkpoint);
      if (ch.checkpoint) expect(ch.checkpoint.options.map((o) => o.id)).toContain(ch.checkpoint.answer);
    }
    expect(CHAPTERS.filter((c) => c.checkpoint).length).toBeGreaterThanOrEqual(3);
  });
});

/** A run of 10 s whose request `long-1` (index 8) arrives at 1 s; no milestone falls in it. */
const fakeRun = {
  endMs: 10_000,
  startEpochMs: 0,
  requests: { ids: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'long-1'], count: 9 },
  detail: async () => ({ events: [{ type: 'arrive', t: 1000 }], response: { tokens: [] } }),
} as unknown as RunSummary;

describe('chapter timeline', () => {
  const steps: Step[] = [
    { set: { view: 'cluster' } },
    { seek: { fraction: 0 } },
    { caption: { en: 'one', fr: 'un' } },
    { wait: 1000 },
    { tween: { to: { request: 'long-1', event: 'arrive' }, ms: 400 } },
    { checkpoint: true },
    { select: 'long-1' },
    { seek: { milestone: 'declared' } },
    { seek: { fraction: 0.5 } },
    { highlight: 'counters' },
  ];
  const base = baseOf(CHAPTERS[0]!, DEFAULT_STATE);
  const compile = () => compileChapter(steps, base, { run: async () => fakeRun });

  it('has a beat for every wait, tween and checkpoint, and one for the end', () => {
    expect(beatsOf(steps).map((b) => [b.kind, b.step, b.ms])).toEqual([
      ['wait', 3, 1000],
      ['tween', 4, 400],
      ['checkpoint', 5, 0],
      ['end', 10, 0],
    ]);
    expect(stopBeat(beatsOf(steps), false)).toBe(2);
    expect(stopBeat(beatsOf(steps), true)).toBe(3);
  });

  it('resolves every instant once; one the run cannot place keeps the time, and is named', async () => {
    const tl = await compile();
    expect(tl.resolved[4]).toEqual({ time: 1000, handoff: null });
    expect(tl.resolved[6]).toEqual({ request: 8 });
    expect(tl.unplaced).toEqual([expect.stringMatching(/^step 8: /)]);
    const end = sample(tl, 3);
    expect(end.situation.selectedRequest).toBe(8);
    expect(end.situation.time).toBe(5000);
    expect(end.highlight).toBe('counters');
    expect(end.caption?.en).toBe('one');
  });

  it('folds the steps that take no time into the beat after them, and eases a tween with the one easing', async () => {
    const tl = await compile();
    // The first beat (the wait) shows the caption and the seek before it.
    expect(sample(tl, 0).caption?.en).toBe('one');
    expect(sample(tl, 0).situation.time).toBe(0);
    // The tween, sampled by beat time: eased in and out, and at its target at its end.
    expect(sample(tl, 1, 0).situation.time).toBe(0);
    expect(sample(tl, 1, 100).situation.time).toBeCloseTo(1000 * ease(0.25));
    expect(sample(tl, 1, 200).situation.time).toBeCloseTo(500);
    expect(sample(tl, 1, 400).situation.time).toBe(1000);
    // The checkpoint holds at the tween's end; the request is selected only after it.
    expect(sample(tl, 2).situation.time).toBe(1000);
    expect(sample(tl, 2).situation.selectedRequest).toBeNull();
    // A sample is a function of (beat, beat time) alone.
    expect(sample(tl, 1, 150)).toEqual(sample(tl, 1, 150));
    expect(shownAt(tl, 4, 0.5)).toEqual(sample(tl, 1, 200));
  });

  it('measures the animated time of a chapter', () => {
    expect(animatedDuration(steps)).toBe(1400);
  });
});

describe('an attendee following the room', () => {
  it('never shows a beat past a chapter\'s question before the room reveals it, whatever beat the room names (fast-check)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: CHAPTERS.length }), fc.integer({ min: -3, max: 60 }), fc.boolean(), (n, roomBeat, revealed) => {
        const beats = beatsOf(CHAPTERS[n - 1]!.steps);
        const shown = roomBeatShown(beats, roomBeat, revealed);
        expect(shown).toBeGreaterThanOrEqual(0);
        expect(shown).toBeLessThan(beats.length);
        const question = beats.findIndex((b) => b.kind === 'checkpoint');
        if (question >= 0 && !revealed) expect(shown).toBeLessThanOrEqual(question);
        // Within the chapter and before its question (or once revealed) the room's beat is shown as it is.
        if (roomBeat >= 0 && roomBeat < beats.length && (revealed || question < 0 || roomBeat <= question)) expect(shown).toBe(roomBeat);
      }),
    );
    // Chapter 4's question, named by a stale beat past it: the question, not its answer.
    const ch4 = beatsOf(CHAPTERS[3]!.steps);
    const q = ch4.findIndex((b) => b.kind === 'checkpoint');
    expect(q).toBeGreaterThan(0);
    expect(roomBeatShown(ch4, q + 1, false)).toBe(q);
    expect(roomBeatShown(ch4, q + 1, true)).toBe(q + 1);
  });
});
