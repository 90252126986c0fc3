import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseFactsFile } from '../../data/facts.ts';
import { MESSAGES } from '../i18n.ts';
import { DEFAULT_STATE, useApp } from '../state/store.ts';
import { CHAPTER_COUNT } from './chapterCount.ts';
import { CHAPTERS } from './chapters.ts';
import { animatedDuration, captionsOf, checkpointIndex, runSteps, type Step, type StepHost } from './steps.ts';

const FACT_IDS = new Set(Array.from({ length: 26 }, (_, i) => `F${i + 1}`));

describe('chapters', () => {
  it('has at least eight chapters, as many as the URL accepts', () => {
    expect(CHAPTERS.length).toBeGreaterThanOrEqual(8);
    expect(CHAPTERS.length).toBe(CHAPTER_COUNT);
    expect(new Set(CHAPTERS.map((c) => c.id)).size).toBe(CHAPTERS.length);
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
      useApp.getState().set(p);
      log.push(`set ${JSON.stringify(p)}`);
    },
    caption: (c) => log.push(`caption ${c?.en}`),
    highlight: (h) => log.push(`highlight ${h}`),
    time: () => useApp.getState().time,
    animating,
    frame: async () => (clock += 100),
    sleep: async (ms) => {
      log.push(`sleep ${ms}`);
    },
    timeOfUtc: async (iso) => Date.parse(iso) - Date.parse('2026-08-27T09:00:00Z'),
  };
  return { host, log };
}

describe('step runner', () => {
  const steps: Step[] = [
    { set: { time: 0, view: 'cluster' } },
    { caption: { en: 'one', fr: 'un' } },
    { wait: 1000 },
    { tween: { time: 1000, ms: 400 } },
    { checkpoint: true },
    { seekUtc: '2026-08-27T09:00:05Z' },
    { highlight: '.x' },
  ];

  it('stops at the checkpoint and resumes after it', async () => {
    useApp.setState({ ...DEFAULT_STATE });
    const { host, log } = fakeHost(() => true);
    const c = new AbortController();
    const first = await runSteps(steps, 0, host, c.signal);
    expect(first).toEqual({ stop: 'checkpoint', index: 4 });
    expect(log).toContain('sleep 1000');
    // The tween went through intermediate times to its target.
    const times = log.filter((l) => l.startsWith('set {"time"')).map((l) => JSON.parse(l.slice(4)).time as number);
    expect(times.length).toBeGreaterThan(3);
    expect(times[times.length - 1]).toBe(1000);
    const rest = await runSteps(steps, first.index + 1, host, c.signal);
    expect(rest.stop).toBe('end');
    expect(useApp.getState().time).toBe(5000);
  });

  it('without animation, waits and tweens are instant', async () => {
    useApp.setState({ ...DEFAULT_STATE });
    const { host, log } = fakeHost(() => false);
    await runSteps(steps, 0, host, new AbortController().signal);
    expect(log.some((l) => l.startsWith('sleep'))).toBe(false);
    expect(log.filter((l) => l.startsWith('set {"time"'))).toEqual(['set {"time":0,"view":"cluster"}', 'set {"time":1000}']);
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
