import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { CHAPTERS } from '../walkthrough/chapters/index.ts';
import { videoSteps } from './directions.ts';
import { toVtt } from '../../../scripts/record/vtt.ts';
import { parseVtt } from '../../../tools/mediaProbe.ts';
import { pick } from '../i18n/text.ts';
import { allCues, cueRate, MAX_CUE_CHARS, motionLeads, MOTION_LEAD_MAX_MS, PREDICT_MAX_MS, PREDICT_MIN_MS, scriptOf, splitCue, timelineOf, FPS } from './schedule.ts';

const words = { chapter: 'Chapter {n}', predict: 'Predict:', answer: 'Answer:' };
const all = CHAPTERS.map((chapter, i) => ({ n: i + 1, chapter }));

/** A stand-in voice: 14 characters a second, as espeak-ng at 160 words a minute roughly speaks. */
const spokenMs = (lang: 'en' | 'fr') => Object.fromEntries(allCues(scriptOf(all, lang, words, { title: 'T', subtitle: 'S' }, { heading: 'H', fixes: [{ id: 'F23', text: 'x' }] })).map((c) => [c.key, (c.text.length / 14) * 1000]));

describe('the steps the video plays', () => {
  const captions = (steps: ReturnType<typeof videoSteps>) => steps.flatMap((s) => ('caption' in s ? [s.caption] : []));
  it('are the walkthrough\'s, but where a chapter declares its own: chapter 7 sweeps the two weeks where the page jumps, saying the same', () => {
    const twoWeeks = CHAPTERS.find((c) => c.id === 'two-weeks')!;
    expect(videoSteps(twoWeeks)).not.toBe(twoWeeks.steps);
    expect(videoSteps(twoWeeks).some((s) => 'tween' in s && 'milestone' in s.tween.to && s.tween.to.milestone === 'private')).toBe(true);
    expect(twoWeeks.steps.some((s) => 'seek' in s && 'fraction' in s.seek)).toBe(true);
    expect(captions(videoSteps(twoWeeks))).toEqual(captions(twoWeeks.steps));
    for (const c of CHAPTERS.filter((c) => !c.videoSteps)) expect(videoSteps(c)).toBe(c.steps);
  });
});

describe('the video timeline', () => {
  it('splits long cues at sentence or clause ends, never mid-word, and keeps every word', () => {
    const text = 'Fixed reject path: the request stops before any reservation (F24). The HTTP 400 it gets is the model\'s status code, not the report\'s.';
    const parts = splitCue(text);
    expect(parts.length).toBeGreaterThan(1);
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(MAX_CUE_CHARS);
    expect(parts.join(' ')).toBe(text);
    expect(splitCue('Short.')).toEqual(['Short.']);
  });

  it('splits a sentence with no clause break between words into balanced pieces, no word left alone', () => {
    const text = 'SGLang was changed so that a rejected request stops before any memory reservation or transfer.';
    const parts = splitCue(text);
    expect(parts.join(' ')).toBe(text);
    expect(parts.length).toBe(Math.ceil(text.length / MAX_CUE_CHARS));
    for (const p of parts) expect(p.length).toBeLessThanOrEqual(MAX_CUE_CHARS);
    const lengths = parts.map((p) => p.length);
    expect(Math.min(...lengths)).toBeGreaterThan(Math.max(...lengths) / 2);
  });

  for (const lang of ['en', 'fr'] as const) {
    it(`${lang}: one cue at a time, each up as long as it is spoken and readable at ≤ 17 characters a second`, () => {
      const ms = spokenMs(lang);
      const tl = timelineOf(scriptOf(all, lang, words, { title: 'T', subtitle: 'S' }, null), CHAPTERS, { spokenMs: ms });
      for (const [i, c] of tl.cues.entries()) {
        expect(cueRate(c), c.text).toBeLessThanOrEqual(17);
        expect(c.to - c.from).toBeGreaterThanOrEqual(Math.ceil((ms[c.key]! * FPS) / 1000));
        if (i > 0) expect(c.from).toBeGreaterThanOrEqual(tl.cues[i - 1]!.to);
      }
      // Chapters follow each other without gaps, and every scene lies inside the video.
      for (const [i, m] of tl.chapters.entries()) if (i > 0) expect(m.from).toBe(tl.chapters[i - 1]!.to);
      for (const s of tl.scenes) expect(s.to).toBeLessThanOrEqual(tl.frames);
      // Predict beats last 6–8 s.
      expect(tl.beats.length).toBe(CHAPTERS.filter((c) => c.checkpoint).length);
      for (const b of tl.beats) {
        expect(b.to - b.from).toBeGreaterThanOrEqual((PREDICT_MIN_MS * FPS) / 1000);
        expect(b.to - b.from).toBeLessThanOrEqual(Math.ceil((PREDICT_MAX_MS * FPS) / 1000) + 1);
      }
    });
  }

  it('starts every moving beat with the sentence that names it, for a slow voice and a fast one, in both languages', () => {
    for (const lang of ['en', 'fr'] as const) {
      const script = scriptOf(all, lang, words, { title: 'T', subtitle: 'S' }, null);
      for (const cps of [10, 14, 18]) {
        const ms = Object.fromEntries(allCues(script).map((c) => [c.key, (c.text.length / cps) * 1000]));
        const leads = motionLeads(timelineOf(script, CHAPTERS, { spokenMs: ms }));
        expect(leads.length).toBeGreaterThan(20);
        for (const m of leads) expect(m.leadS * 1000, `${lang} at ${cps} characters/s: chapter ${m.chapter}, step ${m.step} after "${m.cue}"`).toBeLessThanOrEqual(MOTION_LEAD_MAX_MS);
      }
    }
  });

  for (const lang of ['en', 'fr'] as const) {
    it(`${lang}: the captions file says every caption of every chapter, whole and in order (what the recorder writes: toVtt of the timeline's cues)`, () => {
      const tl = timelineOf(scriptOf(all, lang, words, { title: 'T', subtitle: 'S' }, null), CHAPTERS, { spokenMs: spokenMs(lang) });
      const vtt = toVtt(tl.cues.map((c) => ({ start: c.from / FPS, end: c.to / FPS, text: c.text })));
      // The cues' text as the file holds it, read back as record.spec reads it: one run of words (a caption split over cues joins again).
      const said = parseVtt(vtt).map((c) => c.text).join(' ').replace(/\s+/gu, ' ');
      let from = 0;
      for (const [i, chapter] of CHAPTERS.entries()) {
        for (const step of videoSteps(chapter)) {
          if (!('caption' in step)) continue;
          // As the screen words it (French typography: apostrophes, spaces before « : »).
          const caption = pick(lang, step.caption.en, step.caption.fr).replace(/\s+/gu, ' ');
          const at = said.indexOf(caption, from);
          expect(at, `${lang}: chapter ${i + 1}: "${caption}"`).toBeGreaterThanOrEqual(from);
          from = at + caption.length;
        }
      }
    });
  }

  it('gives French its own timings: a longer narration moves every later chapter', () => {
    const en = timelineOf(scriptOf(all, 'en', words, null, null), CHAPTERS, { spokenMs: spokenMs('en') });
    const fr = timelineOf(scriptOf(all, 'fr', words, null, null), CHAPTERS, { spokenMs: spokenMs('fr') });
    expect(fr.chapters.map((c) => c.from)).not.toEqual(en.chapters.map((c) => c.from));
  });
});

describe('what the video says', () => {
  const facts = JSON.parse(readFileSync('public/facts.json', 'utf8')) as { facts: { id: string; figures?: { key: string; value: number }[] }[] };
  const advertised = facts.facts.find((f) => f.id === 'F14')!.figures!.find((g) => g.key === 'advertisedContextTokens')!.value;
  for (const lang of ['en', 'fr'] as const) {
    const said = allCues(scriptOf(all, lang, words, null, null)).map((c) => c.text).join(' ');
    it(`${lang}: the advertised context (F14, from the facts file) and what the report does not say (F6, F25)`, () => {
      const digits = String(advertised).replace(/\B(?=(\d{3})+(?!\d))/g, '#').split('#');
      expect(said).toMatch(new RegExp(`${digits.join('[,\\s\\u202f]')}[^(]*\\(F14\\)`, 'u'));
      for (const id of ['F6', 'F25']) expect(said).toContain(`(${id})`);
    });
  }
});

describe('the chapters\' names in the video', () => {
  it('are one list: a chapter whose title answers its own question is named by its question\'s shape in the narration and the chapter files, as on its card', () => {
    for (const lang of ['en', 'fr'] as const) {
      const script = scriptOf(all, lang, words, null, null);
      for (const { n, chapter } of all) {
        const named = script.chapters.find((c) => c.n === n)!;
        const ownQuestion = chapter.checkpoint !== undefined && chapter.asked !== undefined;
        // Chapters 2, 4 and 6 hold their titles for their own questions; the video never says those titles.
        if (ownQuestion) {
          expect(named.title, `${lang}: chapter ${n}`).toBe(pick(lang, chapter.asked!.en, chapter.asked!.fr));
          expect(allCues(script).map((c) => c.text).join(' '), `${lang}: chapter ${n}'s title said`).not.toContain(pick(lang, chapter.title.en, chapter.title.fr));
        }
        expect(named.card.text, `${lang}: chapter ${n}'s card cue`).toContain(named.title);
      }
      expect(all.filter(({ chapter }) => chapter.checkpoint !== undefined && chapter.asked !== undefined).map(({ n }) => n)).toEqual([2, 4, 6]);
    }
  });
});
