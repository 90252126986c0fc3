import type { Page } from '@playwright/test';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { beatsOf, sample, stopBeat, type Situation } from '../src/app/walkthrough/timeline.ts';
import { expect, test } from './fixtures.ts';
import { atRest, blocked } from './pointed.ts';

/**
 * The walkthrough shows what it says: at every beat of every chapter, the part it points at is in
 * view (all of it, or as much as the window holds) and nothing covers it (the sticky scrub bar, the
 * panel, a sheet), once the page has come to rest there (and, on a loaded machine, within 10 s).
 * Every beat is reached by its link and by Next (walkthrough/timeline.ts), at a laptop's and a
 * phone's size, in English and French.
 */

const panel = (page: Page) => page.getByTestId('walkthrough');

for (const [w, h] of [
  [1280, 720],
  [390, 844],
] as const) {
  for (const lang of ['en', 'fr'] as const) {
    test(`every beat of every chapter shows what it points at, uncovered (${w}×${h}, ${lang})`, async ({ page }) => {
      test.setTimeout(600_000);
      await page.setViewportSize({ width: w, height: h });
      await page.emulateMedia({ reducedMotion: 'reduce' });
      const problems: string[] = [];
      for (const [i, ch] of CHAPTERS.entries()) {
        const n = i + 1;
        const beats = beatsOf(ch.steps);
        // The part each beat points at (the timeline's own reading, no run needed).
        const tl = { steps: ch.steps, base: {} as Situation, resolved: [], beats, unplaced: [] };
        const check = async (beat: number) => {
          const highlight = sample(tl, beat).highlight;
          if (!highlight) return;
          // Once the views have drawn it (a replay or a lazy load can take seconds on a loaded
          // machine) and the page has stopped moving. A problem counts if it is still there 10 s
          // later: on a loaded machine the page can come to rest before a late resize brings the part
          // back.
          await atRest(page, highlight);
          let p = await blocked(page);
          for (let waited = 0; p && waited < 10_000; waited += 500) {
            await page.waitForTimeout(500);
            p = await blocked(page);
          }
          if (p) problems.push(`chapter ${n}, beat ${beat}: ${p}`);
        };
        const stop = stopBeat(beats, false);
        // Up to the stop by Next from the first beat; after a question, from the beat after it.
        for (const from of ch.checkpoint ? [0, stop + 1] : [0]) {
          await page.goto(`./?ch=${n}&beat=${from}&lang=${lang}`);
          const last = from === 0 ? stop : beats.length - 1;
          for (let b = from; b <= last; b++) {
            if (b > from) await page.keyboard.press('PageDown');
            if (b < last) await expect(panel(page)).toHaveAttribute('data-beat', String(b), { timeout: 90_000 });
            else await expect(panel(page)).toHaveAttribute('data-status', /^(checkpoint|done)$/, { timeout: 90_000 });
            await check(b);
          }
        }
      }
      expect(problems).toEqual([]);
    });
  }
}

test('a later beat pointing at the same part brings it back when the page has moved meanwhile (chapter 5, 390×844)', async ({ page }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.emulateMedia({ reducedMotion: 'reduce' });
  const ch = CHAPTERS[4]!;
  const beats = beatsOf(ch.steps);
  const tl = { steps: ch.steps, base: {} as Situation, resolved: [], beats, unplaced: [] };
  // Beats 0 to 3 all point at the stage; beat 3 changes the situation, so the stage is replaced while
  // its run is computed and comes back with a shorter caption above it (24 px higher on the page).
  expect([0, 1, 2, 3].map((b) => sample(tl, b).highlight)).toEqual(['stage', 'stage', 'stage', 'stage']);
  await page.goto('./?ch=5&beat=0&lang=fr');
  for (let b = 0; b <= 3; b++) {
    if (b > 0) await page.keyboard.press('PageDown');
    await expect(panel(page)).toHaveAttribute('data-beat', String(b), { timeout: 90_000 });
    await atRest(page, 'stage');
    // Long after the page settled at this beat, as a presenter who talks before the next click.
    if (b < 3) await page.waitForTimeout(4000);
  }
  await page.waitForTimeout(1000);
  expect(await blocked(page)).toBeNull();
});
