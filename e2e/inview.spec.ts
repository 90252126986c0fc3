import type { Page } from '@playwright/test';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { beatsOf, stopBeat } from '../src/app/walkthrough/timeline.ts';
import { expect, test } from './fixtures.ts';

/**
 * The walkthrough shows what it says: at every beat of every chapter, the part it points at is in
 * view (all of it, or as much as the window holds) and nothing covers it (the sticky scrub bar, the
 * panel, a sheet). Every beat is reached by its link and by Next (walkthrough/timeline.ts).
 */

const panel = (page: Page) => page.getByTestId('walkthrough');

/** What covers or hides the highlighted part, or null when it is in view and uncovered. */
async function blocked(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    const id = document.body.dataset.walkHighlight;
    if (!id) return null;
    const rule = document.getElementById('walk-highlight')?.textContent ?? '';
    const selector = rule.slice(0, rule.indexOf(' {')).trim();
    const el = selector ? document.querySelector<HTMLElement>(selector) : null;
    if (!el) return `${id}: not on the page`;
    const r = el.getBoundingClientRect();
    // The region the page shows: the window less the panel beside it or the sheet below it, and
    // the sticky scrub bar at its foot.
    let left = 0;
    let bottom = window.innerHeight;
    const right = window.innerWidth;
    const sheet = document.querySelector<HTMLElement>('[data-testid="walkthrough"]')?.getBoundingClientRect();
    if (sheet && sheet.top > 1) bottom = Math.min(bottom, sheet.top);
    else if (sheet) left = Math.max(left, sheet.right);
    const bar = document.querySelector<HTMLElement>('.scrub-bar');
    if (bar && !bar.contains(el) && !el.contains(bar) && getComputedStyle(bar).position === 'sticky') {
      const b = bar.getBoundingClientRect();
      if (b.bottom >= bottom - 1 && b.top < bottom) bottom = Math.min(bottom, b.top);
    }
    // All of it in the region; or, taller than the region, its top at the region's top and the region full of it.
    const tall = r.height > bottom;
    const fitsV = tall ? r.top >= -1 && r.top <= 24 && r.bottom >= bottom - 1 : r.top >= -1 && r.bottom <= bottom + 1;
    const fitsH = r.width > right - left ? r.left <= left + 1 : r.left >= left - 1 && r.right <= right + 1;
    if (!fitsV || !fitsH) return `${id}: ${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}×${Math.round(r.height)} outside the region ${Math.round(left)}–${Math.round(right)} × 0–${Math.round(bottom)}`;
    const w = right;
    const h = bottom;
    const x0 = Math.max(r.left, left) + 3;
    const x1 = Math.min(r.right, w) - 3;
    const y0 = Math.max(r.top, 0) + 3;
    const y1 = Math.min(r.bottom, h) - 3;
    for (const [x, y] of [[x0, y0], [x1, y0], [x0, y1], [x1, y1], [(x0 + x1) / 2, (y0 + y1) / 2]] as const) {
      const hit = document.elementFromPoint(x, y);
      if (hit && hit !== el && !el.contains(hit)) {
        const name = hit.closest('[data-testid]')?.getAttribute('data-testid') ?? hit.className ?? hit.tagName;
        return `${id}: covered at (${Math.round(x)}, ${Math.round(y)}) by ${String(name).slice(0, 40)}`;
      }
    }
    return null;
  });
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
