import type { Page } from '@playwright/test';
import type { Chapter } from '../src/app/walkthrough/chapters/chapter.ts';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { beatsOf, sample, stopBeat, type Situation } from '../src/app/walkthrough/timeline.ts';
import { expect, settled, test } from './fixtures.ts';
import { expectFrench } from './frenchText.ts';
import { atRest, blocked } from './pointed.ts';

/**
 * The walkthrough shows what it says: at every beat of every chapter, the part it points at is in
 * view (all of it, or as much as the window holds) and nothing covers it (the sticky scrub bar, the
 * panel, a sheet), the first time the page comes to rest there — not after some seconds of grace.
 * Every beat is reached by its link and by Next (walkthrough/timeline.ts), at a laptop's and a
 * phone's size, in English and French; each question answered by key, the chapter's end too. Pictures
 * of every chapter at its stop (and answered) go to test-results/inview/; on the French laptop walk,
 * the page at each stop reads French (what french.spec.ts checks of every other view).
 */

const panel = (page: Page) => page.getByTestId('walkthrough');

/** The part a chapter's beat points at: the timeline's own reading, no run needed. */
function pointedAt(ch: Chapter, beat: number): string | null {
  const beats = beatsOf(ch.steps);
  return sample({ steps: ch.steps, base: {} as Situation, resolved: [], beats, unplaced: [] }, beat).highlight;
}

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
      // One page for the whole walk: each stretch of beats opens by its chapter's link, the first on
      // loading, the rest followed in the page as Back and Forward follow one (the page's own history:
      // state/urlSync.ts applies the address it lands on). Every stretch changes chapter (each chapter
      // up to its stop, then the beats after each question), so each starts as its link does.
      let loaded = false;
      const open = async (url: string) => {
        if (!loaded) {
          loaded = true;
          await page.goto(url);
          return;
        }
        await page.evaluate((u) => {
          history.pushState(null, '', u);
          dispatchEvent(new PopStateEvent('popstate'));
        }, url);
      };
      const stretches = [
        ...CHAPTERS.map((_, i) => ({ n: i + 1, after: false })),
        ...CHAPTERS.flatMap((ch, i) => (ch.checkpoint ? [{ n: i + 1, after: true }] : [])),
      ];
      for (const { n, after } of stretches) {
        const ch = CHAPTERS[n - 1]!;
        const beats = beatsOf(ch.steps);
        const check = async (beat: number) => {
          const highlight = pointedAt(ch, beat);
          if (!highlight) return;
          // Once the views have drawn it (a replay or a lazy load can take seconds on a loaded
          // machine) and the page has stopped moving: a problem then is one a person sees.
          await atRest(page, highlight);
          const p = await blocked(page);
          if (p) problems.push(`chapter ${n}, beat ${beat}: ${p}`);
        };
        const stop = stopBeat(beats, false);
        // Up to the stop by Next from the first beat; after a question, from the beat after it.
        const from = after ? stop + 1 : 0;
        await open(`./?ch=${n}&beat=${from}&lang=${lang}`);
        await expect(panel(page)).toHaveAttribute('data-chapter', String(n));
        const last = from === 0 ? stop : beats.length - 1;
        for (let b = from; b <= last; b++) {
          if (b > from) await page.keyboard.press('PageDown');
          if (b < last) await expect(panel(page)).toHaveAttribute('data-beat', String(b), { timeout: 90_000 });
          else await expect(panel(page)).toHaveAttribute('data-status', /^(checkpoint|done)$/, { timeout: 90_000 });
          await check(b);
        }
        if (after) continue;
        // At the stop, a picture of each chapter for a person to look at; a question is then answered
        // by its number key, as a room's presenter does, and what the chapter points at once it has
        // played on to its end is in view and uncovered too.
        // In French the whole page reads French there (frenchText.ts), the question's result too: the
        // first option is taken, right or wrong (the English walk takes the right one).
        const picture = (suffix = '') => (lang === 'en' ? page.screenshot({ path: `test-results/inview/${w}x${h}-ch${String(n).padStart(2, '0')}-${ch.id}${suffix}.png` }) : null);
        const french = async (what: string) => {
          if (lang !== 'fr' || w !== 1280) return;
          await settled(page);
          await expectFrench(page, what);
        };
        await picture();
        await french(`chapter ${n}`);
        // The chapter names the run on screen (the one the header's Scenario shows), and announces it
        // where it changes: the incident window at chapter 7, the demo again at 9.
        const scene = page.getByTestId('walk-scene');
        await expect(scene).toContainText((await page.getByTestId('scenario').locator('option:checked').textContent())!);
        await expect(scene).toHaveAttribute('data-new', n === 7 || n === 9 ? 'true' : 'false');
        // Chapter 1 ends saying three customers wrote their KV: the grids' key names the three.
        if (n === 1) for (const tenant of ['acme', 'borealis', 'cobalt']) await expect(page.getByTestId('grid-legend')).toContainText(tenant);
        if (ch.checkpoint) {
          const option = lang === 'fr' ? 0 : ch.checkpoint.options.findIndex((o) => o.id === ch.checkpoint!.answer);
          await page.keyboard.press(String(option + 1));
          await expect(panel(page)).toHaveAttribute('data-status', 'done', { timeout: 90_000 });
          const end = beats.length - 1;
          const highlight = pointedAt(ch, end);
          if (highlight) {
            await atRest(page, highlight);
            const p = await blocked(page);
            if (p) problems.push(`chapter ${n}, answered: ${p}`);
          }
          await picture('-answered');
          await french(`chapter ${n}, answered`);
        }
        if (n === CHAPTERS.length) {
          // The list the last chapter sends to: scrolled to and focused.
          await page.getByTestId('walk-evidence').click();
          await expect(page.locator('#evidence-h')).toBeFocused();
          await expect(page.locator('#evidence-h')).toBeInViewport();
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
  // Beats 0 to 3 all point at the stage; beat 3 changes the situation, so the stage is replaced while
  // its run is computed and comes back with a shorter caption above it (24 px higher on the page).
  expect([0, 1, 2, 3].map((b) => pointedAt(CHAPTERS[4]!, b))).toEqual(['stage', 'stage', 'stage', 'stage']);
  // The page's clock flows, but the test jumps it: the walkthrough keeps a part in view for 3 s of
  // quiet after each beat (Walkthrough.tsx), and a presenter talks longer than that before clicking.
  await page.clock.install();
  await page.goto('./?ch=5&beat=0&lang=fr');
  for (let b = 0; b <= 3; b++) {
    if (b > 0) await page.keyboard.press('PageDown');
    await expect(panel(page)).toHaveAttribute('data-beat', String(b), { timeout: 90_000 });
    await atRest(page, 'stage');
    // Long after the page settled at this beat, as a presenter who talks before the next click.
    if (b < 3) await page.clock.fastForward(4000);
  }
  await page.clock.fastForward(1000);
  await settled(page);
  expect(await blocked(page)).toBeNull();
});
