import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseFactsFile } from '../../data/facts.ts';
import { MESSAGES } from '../i18n/messages.ts';
import { DEFAULT_STATE, useApp } from '../state/store.ts';
import { HIGHLIGHTS } from '../views/shared/highlight.ts';
import { CHAPTERS, clampChapter } from './chapters/index.ts';
import { animatedDuration, captionsOf, checkpointIndex, runSteps, type Instant, type Step, type StepHost } from './steps.ts';

const FACT_IDS = new Set(Array.from({ length: 26 }, (_, i) => `F${i + 1}`));

describe('chapters', () => {
  it('has at least eight chapters, and a link past the last opens the last', () => {
    expect(CHAPTERS.length).toBeGreaterThanOrEqual(8);
    expect(new Set(CHAPTERS.map((c) => c.id)).size).toBe(CHAPTERS.length);
    expect(clampChapter(CHAPTERS.length + 5)).toBe(CHAPTERS.length);
    expect(clampChapter(0)).toBe(1);
  });

  it('highlights only named parts of the views, and names instants, never times', () => {
    for (const ch of CHAPTERS) {
      for (const step of ch.steps) {
        if ('highlight' in step && step.highlight !== null) expect(HIGHLIGHTS.includes(step.highlight as never) || step.highlight.startsWith('node-'), `${ch.id}: ${step.highlight}`).toBe(true);
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

function fakeHost(animating: () => boolean) {
  const log: string[] = [];
  let clock = 0;
  const host: StepHost = {
    apply: (p) => {
      useApp.getState().set(p as never);
      log.push(`set ${JSON.stringify(p)}`);
    },
    caption: (c) => log.push(`caption ${c?.en}`),
    highlight: (h) => log.push(`highlight ${h}`),
    time: () => useApp.getState().time,
    animating,
    frame: async () => {
      clock += 100;
      log.push(`frame ${clock}`);
      return clock;
    },
    timeOf: async (instant: Instant) => ('fraction' in instant ? instant.fraction * 10_000 : 'event' in instant ? 1000 + (instant.offsetMs ?? 0) : Promise.reject(new Error('no milestone here'))),
    requestIndex: async (id) => (id === 'long-1' ? 8 : Promise.reject(new Error(`no ${id}`))),
  };
  return { host, log };
}

describe('step runner', () => {
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

  it('stops at the checkpoint and resumes after it', async () => {
    useApp.setState({ ...DEFAULT_STATE });
    const { host, log } = fakeHost(() => true);
    const c = new AbortController();
    const first = await runSteps(steps, 0, host, c.signal);
    expect(first).toEqual({ stop: 'checkpoint', index: 5 });
    // The wait took frames of the one clock until 1,000 ms had passed.
    expect(log.filter((l) => l.startsWith('frame')).length).toBeGreaterThanOrEqual(10);
    // The tween went through intermediate times to its target.
    const times = log.filter((l) => l.startsWith('set {"time"')).map((l) => JSON.parse(l.slice(4)).time as number);
    expect(times.length).toBeGreaterThan(3);
    expect(times[times.length - 1]).toBe(1000);
    const rest = await runSteps(steps, first.index + 1, host, c.signal);
    expect(rest.stop).toBe('end');
    expect(useApp.getState().selectedRequest).toBe(8);
    // A milestone the run cannot place keeps the time; the next instant is placed.
    expect(useApp.getState().time).toBe(5000);
  });

  it('without animation, waits and tweens are instant', async () => {
    useApp.setState({ ...DEFAULT_STATE });
    const { host, log } = fakeHost(() => false);
    await runSteps(steps, 0, host, new AbortController().signal);
    expect(log.some((l) => l.startsWith('frame'))).toBe(false);
    expect(log.filter((l) => l.startsWith('set {"time"'))).toEqual(['set {"time":0}', 'set {"time":1000}']);
  });

  it('stops when aborted (the chapter was left)', async () => {
    const { host, log } = fakeHost(() => true);
    const c = new AbortController();
    c.abort();
    expect((await runSteps(steps, 0, host, c.signal)).stop).toBe('aborted');
    expect(log).toEqual([]);
  });

  it('measures the animated time of a chapter', () => {
    expect(animatedDuration(steps)).toBe(1400);
  });
});
