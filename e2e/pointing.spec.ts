import { pick } from '../src/app/i18n/messages.ts';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { shownTitle } from '../src/app/walkthrough/chapters/spoilers.ts';
import { expect, nextChapter, test } from './fixtures.ts';

/**
 * The "Now:" box says something from a chapter's first frame, reached by its link and by Next: the
 * page itself looks at every change of its document, from the chapter's first frame to its stop.
 * By link (in French) every chapter also opens as itself: its id, its title as shown before its
 * question is revealed, no notice. (What a chapter points at is in view at every beat: inview.spec.ts.)
 */

/**
 * The page's own observer: the chapters it looked at, each chapter and status at which the "Now:" box
 * was empty, and the chapters the test has seen come to their stop (no longer looked at).
 */
declare global {
  interface Window {
    __nowBox?: { looked: string[]; empty: string[]; stopped: string[] };
  }
}

/** By link, a page load per chapter: two tests of five chapters, so that workers share them. By Next, one page. */
const RUNS = [
  { by: 'link', from: 1, to: 5 },
  { by: 'link', from: 6, to: CHAPTERS.length },
  { by: 'Next', from: 1, to: CHAPTERS.length },
] as const;

for (const { by, from, to } of RUNS) {
  const which = from === 1 && to === CHAPTERS.length ? 'every chapter' : `chapters ${from}–${to}`;
  test(`the "Now:" box says something from a chapter's first frame (${which} by ${by}${by === 'link' ? ', in French: each opens as itself' : ''})`, async ({ page }) => {
    test.setTimeout(180_000);
    await page.emulateMedia({ reducedMotion: 'reduce' });
    // Every state the page can paint comes after a batch of DOM changes: the page's observer looks at
    // each (no sampling in time to miss one), from the chapter's first frame (the panel names it)
    // until the test has seen the chapter at its stop (its question, its end).
    await page.addInitScript(() => {
      const seen = { looked: [] as string[], empty: [] as string[], stopped: [] as string[] };
      window.__nowBox = seen;
      const look = () => {
        const p = document.querySelector('[data-testid="walkthrough"]');
        const n = p?.getAttribute('data-chapter');
        if (!p || !n || seen.stopped.includes(n)) return;
        const caption = document.querySelector('[data-testid="walk-caption"]')?.textContent?.trim() ?? '';
        if (!seen.looked.includes(n)) seen.looked.push(n);
        if (caption === '') seen.empty.push(`chapter ${n}, ${p.getAttribute('data-status') ?? ''}`);
      };
      new MutationObserver(look).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    });
    const empty: string[] = [];
    const looked: string[] = [];
    const panel = page.getByTestId('walkthrough');
    for (let n = from; n <= to; n++) {
      if (by === 'link') await page.goto(`./?ch=${n}&lang=fr`);
      else if (n === from) await page.goto(`./?ch=${n}`);
      else await nextChapter(page);
      // The walkthrough's code loads after the page (seconds on a busy machine).
      await expect(panel).toHaveAttribute('data-chapter', String(n), { timeout: 90_000 });
      // The chapter's own beat shown (not the chapter before's status, in the render that changes
      // the chapter), then its stop: looked at up to here, and no further.
      await expect(panel).toHaveAttribute('data-beat', /^\d+$/, { timeout: 90_000 });
      await expect(panel).toHaveAttribute('data-status', /^(checkpoint|done)$/, { timeout: 90_000 });
      if (by === 'link') {
        // Opened from its deep link: the chapter itself; no question revealed yet, so a title that would
        // answer one shows the question's shape; nothing in the link refused.
        await expect(panel).toHaveAttribute('data-chapter-id', CHAPTERS[n - 1]!.id);
        const title = shownTitle(n, () => false);
        await expect(page.getByRole('heading', { level: 2, name: pick('fr', title.en, title.fr) })).toBeVisible();
        await expect(page.getByTestId('notices')).toHaveCount(0);
      }
      const seen = await page.evaluate((ch) => {
        const box = window.__nowBox!;
        box.stopped.push(ch);
        const now = { looked: [...box.looked], empty: [...box.empty] };
        box.looked.length = 0;
        box.empty.length = 0;
        return now;
      }, String(n));
      looked.push(...seen.looked);
      empty.push(...seen.empty);
    }
    expect(looked, 'the chapters the page looked at').toEqual(CHAPTERS.slice(from - 1, to).map((_, i) => String(from + i)));
    expect([...new Set(empty)]).toEqual([]);
  });
}
