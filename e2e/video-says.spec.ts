import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { allCues, timelineOf, type TimedCue } from '../src/app/render/schedule.ts';
import { scriptFor } from '../scripts/record/script.ts';
import { TENANT_NAMES } from '../src/engine/core/vocab.ts';
import { figuresIn } from '../tools/figures.ts';
import { expect, test } from './fixtures.ts';

/**
 * The video says what it shows, at the level of its schedule: every cue of the whole video (title,
 * chapter cards, captions, questions, answers, end card), in English and French, is held to the
 * picture of its frames as the renderer draws them (`?screen=render`, the recorder's page):
 *
 * - by the cue's last frame (a chapter says a sentence, then plays what it names), the picture shows
 *   every number the cue says, every customer it names and every fact id it cites; a count said in
 *   words ("three customers") is there as a figure or as that many customers named;
 * - at its first, middle and last frame, no part of the picture reaches under the caption band;
 * - the leak counter, read at each cue's end, never goes down within a chapter while the switches
 *   stay the same (it counts leaked responses up to the instant shown: it did, showing a request
 *   served after delta's leak, then delta's transfer again).
 *
 * The picture is what a viewer sees: the screen's visible text less the caption band (no aria-label,
 * no title). The frames are laid out with a stand-in voice (14 characters a second, as the
 * schedule's own tests): a cue's frames then end where its beat's motion ends as with the recorder's
 * voices, since the schedule stretches a beat to what is said over it; a render with real voices is
 * `npm run record`.
 */

const facts = JSON.parse(readFileSync('public/facts.json', 'utf8')) as { facts: { id: string; en: string; fr: string }[] };
const fact = (id: string) => facts.facts.find((f) => f.id === id) ?? { en: id, fr: id };

const factIds = (s: string) => [...s.matchAll(/\b[FAB]\d+\b/gu)].map((m) => m[0]);
const names = (s: string) => TENANT_NAMES.filter((n) => new RegExp(`(?<!\\p{L})${n}(?!\\p{L})`, 'iu').test(s));

const UNITS: Record<string, number> = { two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10, eleven: 11, twelve: 12, deux: 2, trois: 3, quatre: 4, cinq: 5, sept: 7, huit: 8, neuf: 9, dix: 10, onze: 11, douze: 12 };
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, vingt: 20, trente: 30, quarante: 40, cinquante: 50 };
/** Counts said in words ("three customers", « vingt-cinq minutes »); "one"/« un » are left out (an article as often as a count). */
function wordCounts(s: string): { word: string; n: number; ofCustomers: boolean }[] {
  const out: { word: string; n: number; ofCustomers: boolean }[] = [];
  const re = new RegExp(`(?<!\\p{L})(?:(${Object.keys(TENS).join('|')})(?:-(\\p{L}+))?|(${Object.keys(UNITS).join('|')}))(?!\\p{L})(\\s+\\p{L}+)?`, 'giu');
  for (const m of s.matchAll(re)) {
    const tens = m[1] ? TENS[m[1].toLowerCase()]! : 0;
    const unit = m[2] ? (UNITS[m[2].toLowerCase()] ?? (/^(one|un)$/i.test(m[2]) ? 1 : NaN)) : m[3] ? UNITS[m[3].toLowerCase()]! : 0;
    if (!Number.isFinite(unit)) continue;
    const after = (m[4] ?? '').trim().toLowerCase();
    out.push({ word: m[0].trim(), n: tens + unit, ofCustomers: /^(customers?|tenants?|clients?|locataires?)/.test(after) });
  }
  return out;
}

/** What the cue says that its picture must show, and what of it the picture `shows` lacks. */
function missingFrom(cue: TimedCue, shows: string, lang: 'en' | 'fr'): string[] {
  const figures = (text: string) => figuresIn(text, lang, { all: true });
  const shown = new Set(figures(shows));
  const lower = shows.toLowerCase();
  const missing = [
    ...figures(cue.text).filter((f) => !shown.has(f)),
    ...names(cue.text).filter((n) => !names(shows).includes(n)),
    ...factIds(cue.text).filter((id) => !factIds(shows).includes(id)),
  ];
  for (const c of wordCounts(cue.text)) {
    const ok = lower.includes(c.word.toLowerCase()) || shown.has(String(c.n)) || (c.ofCustomers && names(shows).length >= c.n);
    if (!ok) missing.push(`${c.word} (${c.n})`);
  }
  return missing;
}

for (const lang of ['en', 'fr'] as const) {
  test(`every cue of the whole video (${lang}): its numbers, customers and fact ids in the picture by its last frame, nothing under the caption band`, async ({ page }, testInfo) => {
    test.setTimeout(300_000);
    const script = scriptFor(lang, CHAPTERS.map((_, i) => i + 1), true, fact);
    const spokenMs = Object.fromEntries(allCues(script).map((c) => [c.key, (c.text.length / 14) * 1000]));
    const timeline = timelineOf(script, CHAPTERS, { spokenMs });
    await page.goto(`./?screen=render&lang=${lang}`);
    await page.waitForFunction(() => !!window.__render, null, { timeout: 60_000 });
    const { unplaced } = await page.evaluate((tl) => window.__render!.load(tl), timeline);
    expect(unplaced).toEqual([]);

    const problems: string[] = [];
    /** The leak counter at the last cue's end, with the chapter and the switches it counted under. */
    let counted: { chapter: string; switches: string; n: number; key: string } | null = null;
    for (const cue of timeline.cues) {
      const frames = [...new Set([cue.from, Math.floor((cue.from + cue.to) / 2), cue.to - 1])];
      let shows = '';
      for (const frame of frames) {
        const under = await page.evaluate((f) => window.__render!.show(f), frame);
        if (under.length > 0) problems.push(`${cue.key} (frame ${frame}): under the caption band: ${under.join('; ')}`);
        if (frame !== cue.to - 1) continue;
        // The screen's visible words, text node by text node (so that "800,000" and the label after
        // it stay two words), less the caption band.
        shows = await page.evaluate(() => {
          const screen = document.querySelector('[data-testid="screen"]');
          if (!screen) return '';
          const walker = document.createTreeWalker(screen, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT, {
            acceptNode: (n) => (n.nodeType === Node.TEXT_NODE ? NodeFilter.FILTER_ACCEPT : (n as Element).matches('.screen-band, style, script') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_SKIP),
          });
          const words: string[] = [];
          for (let n = walker.nextNode(); n; n = walker.nextNode()) {
            const el = n.parentElement;
            if (el && el.closest('[aria-hidden="true"]') === null && getComputedStyle(el).visibility !== 'hidden') words.push((n as Text).data);
          }
          return words.join(' ');
        });
      }
      // The counter counts leaked responses up to the instant shown: within a chapter, under the same
      // switches, it never goes back (a picture that jumps past a leak and back would count it, then not).
      const now = await page.evaluate(() => ({
        n: document.querySelector('.screen-counter-n')?.textContent ?? null,
        switches: document.querySelector('.screen-situation')?.textContent ?? '',
      }));
      const chapter = cue.key.split('.')[0]!;
      if (now.n !== null) {
        const n = Number(figuresIn(now.n, lang, { all: true })[0]);
        if (counted && counted.chapter === chapter && counted.switches === now.switches && n < counted.n) problems.push(`${cue.key}: the leak counter reads ${n} after ${counted.n} at ${counted.key}, the switches unchanged`);
        counted = { chapter, switches: now.switches, n, key: cue.key };
      }
      const missing = missingFrom(cue, shows, lang);
      // The frame that lacks them, for a person to look at (the last one shown); with SHOTS_DIR, every cue's.
      if (missing.length > 0) await page.screenshot({ path: testInfo.outputPath(`${cue.key}.png`) });
      else if (process.env.SHOTS_DIR) await page.screenshot({ path: join(process.env.SHOTS_DIR, `video-${lang}`, `${String(cue.to - 1).padStart(5, '0')}-${cue.key}.png`) });
      if (missing.length > 0) problems.push(`${cue.key} "${cue.text}" (frames ${cue.from}–${cue.to - 1}): the picture at its last frame lacks ${missing.join(', ')}`);
    }
    expect(problems).toEqual([]);
  });
}
