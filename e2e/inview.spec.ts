import type { Page } from '@playwright/test';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { beatsOf, stopBeat } from '../src/app/walkthrough/timeline.ts';
import { expect, test } from './fixtures.ts';
import { blocked } from './pointed.ts';

/**
 * The walkthrough shows what it says: at every beat of every chapter, the part it points at is in
 * view (all of it, or as much as the window holds) and nothing covers it (the sticky scrub bar, the
 * panel, a sheet). Every beat is reached by its link and by Next (walkthrough/timeline.ts).
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
      const check = async (n: number, beat: number) => {
        // The highlight is brought into view once the views have drawn it (a replay or a view's lazy
        // load can take seconds on a loaded machine): a problem counts if it is still there after 10 s.
        await page.waitForTimeout(600);
        let p = await blocked(page);
        for (let waited = 0; p && waited < 10_000; waited += 500) {
          await page.waitForTimeout(500);
          p = await blocked(page);
        }
        if (p) problems.push(`chapter ${n}, beat ${beat}: ${p}`);
      };
      for (const [i, ch] of CHAPTERS.entries()) {
        const n = i + 1;
        const beats = beatsOf(ch.steps);
        const stop = stopBeat(beats, false);
        // Up to the stop by Next from the first beat; after a question, from the beat after it.
        for (const from of ch.checkpoint ? [0, stop + 1] : [0]) {
          await page.goto(`./?ch=${n}&beat=${from}&lang=${lang}`);
          const last = from === 0 ? stop : beats.length - 1;
          for (let b = from; b <= last; b++) {
            if (b > from) await page.keyboard.press('PageDown');
            if (b < last) await expect(panel(page)).toHaveAttribute('data-beat', String(b), { timeout: 90_000 });
            else await expect(panel(page)).toHaveAttribute('data-status', /^(checkpoint|done)$/, { timeout: 90_000 });
            await check(n, b);
          }
        }
      }
      expect(problems).toEqual([]);
    });
  }
}
