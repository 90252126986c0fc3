import type { Page } from '@playwright/test';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { beatsOf, sample, type Situation } from '../src/app/walkthrough/timeline.ts';
import { expect, test } from './fixtures.ts';
import { blocked } from './pointed.ts';

/**
 * What a chapter points at is in view once the page has come to rest there: at every beat that
 * points (a highlight), reached by its link, at a laptop's and a phone's size, in English and French,
 * the part is in view and clear of the sticky scrub bar (and the phone's sheet) the first time the
 * page stops scrolling — not only after the page has settled for seconds (inview.spec.ts gives it
 * ten). And the "Now:" box says something from a chapter's first frame.
 */

const panel = (page: Page) => page.getByTestId('walkthrough');

/** Every beat of every chapter that points at a part, with the part (the timeline's own reading, no run needed). */
const POINTING = CHAPTERS.flatMap((ch, i) => {
  const beats = beatsOf(ch.steps);
  const tl = { steps: ch.steps, base: {} as Situation, resolved: [], beats, unplaced: [] };
  return beats.flatMap((_, b) => {
    const highlight = sample(tl, b).highlight;
    return highlight ? [{ n: i + 1, beat: b, highlight }] : [];
  });
});

/**
 * Waits until the page is at rest with the part pointed at drawn: the window's scroll and the
 * part's box unchanged over three looks a frame-clock tenth of a second apart.
 */
async function atRest(page: Page, highlight: string): Promise<void> {
  await expect.poll(() => page.evaluate(() => document.body.dataset.walkHighlight), { timeout: 90_000 }).toBe(highlight);
  let last = '';
  let same = 0;
  for (let i = 0; i < 300 && same < 3; i++) {
    const now = await page.evaluate(() => {
      const rule = document.getElementById('walk-highlight')?.textContent ?? '';
      const selector = rule.slice(0, rule.indexOf(' {')).trim();
      const el = selector ? document.querySelector(selector) : null;
      const r = el?.getBoundingClientRect();
      // Still being placed: no part yet, or the views still computing the run it shows.
      if (!r || document.querySelector('[aria-busy="true"]')) return `busy ${Math.random()}`;
      return `${Math.round(window.scrollY)}/${Math.round(r.top)}/${Math.round(r.height)}`;
    });
    same = now === last ? same + 1 : 0;
    last = now;
    await page.waitForTimeout(100);
  }
}

// Two of the four size × language pairs (inview.spec.ts walks all four with its grace of ten seconds):
// a laptop in English and a phone in French, the longer words, each a walk of three minutes or more.
for (const [w, h, lang] of [
  [1280, 720, 'en'],
  [390, 844, 'fr'],
] as const) {
  test(`every pointing beat shows its part clear of the scrub bar once the page rests (${w}×${h}, ${lang})`, async ({ page }) => {
    test.setTimeout(600_000);
    await page.setViewportSize({ width: w, height: h });
    const problems: string[] = [];
    for (const { n, beat, highlight } of POINTING) {
      await page.goto(`./?ch=${n}&beat=${beat}&lang=${lang}`);
      await expect(panel(page)).toHaveAttribute('data-chapter', String(n));
      await atRest(page, highlight);
      const p = await blocked(page);
      if (p) problems.push(`chapter ${n}, beat ${beat}: ${p}`);
    }
    expect(POINTING.length).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });
}

for (const by of ['link', 'Next'] as const) {
  test(`the "Now:" box says something from a chapter's first frame (every chapter by ${by})`, async ({ page }) => {
    test.setTimeout(300_000);
    await page.emulateMedia({ reducedMotion: 'reduce' });
    const empty: string[] = [];
    for (let n = 1; n <= CHAPTERS.length; n++) {
      if (by === 'link') await page.goto(`./?ch=${n}`);
      else if (n === 1) await page.goto('./?ch=1');
      else {
        // Past the chapter before: its question revealed, then Next.
        await expect(panel(page)).toHaveAttribute('data-status', /^(checkpoint|done)$/, { timeout: 90_000 });
        if ((await panel(page).getAttribute('data-status')) === 'checkpoint') {
          await page.keyboard.press('PageDown');
          await page.keyboard.press('PageDown');
          await expect(panel(page)).toHaveAttribute('data-status', 'done', { timeout: 90_000 });
        }
        await page.getByTestId('walk-next').click();
      }
      // Every 100 ms from the chapter's first frame to its stop (its question, its end).
      for (let i = 0; i < 900; i++) {
        const seen = await page.evaluate(() => {
          const p = document.querySelector('[data-testid="walkthrough"]');
          return { chapter: p?.getAttribute('data-chapter'), status: p?.getAttribute('data-status'), caption: document.querySelector('[data-testid="walk-caption"]')?.textContent?.trim() ?? '' };
        });
        if (seen.chapter !== String(n)) continue;
        if (seen.caption === '') empty.push(`chapter ${n}, ${seen.status}`);
        if (seen.status === 'checkpoint' || seen.status === 'done') break;
        await page.waitForTimeout(100);
      }
    }
    expect([...new Set(empty)]).toEqual([]);
  });
}
