import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { expect, nextChapter, test } from './fixtures.ts';

/**
 * The "Now:" box says something from a chapter's first frame, reached by its link and by Next.
 * (What a chapter points at is in view at every beat: inview.spec.ts.)
 */


for (const by of ['link', 'Next'] as const) {
  test(`the "Now:" box says something from a chapter's first frame (every chapter by ${by})`, async ({ page }) => {
    test.setTimeout(300_000);
    await page.emulateMedia({ reducedMotion: 'reduce' });
    const empty: string[] = [];
    for (let n = 1; n <= CHAPTERS.length; n++) {
      if (by === 'link') await page.goto(`./?ch=${n}`);
      else if (n === 1) await page.goto('./?ch=1');
      else await nextChapter(page);
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
