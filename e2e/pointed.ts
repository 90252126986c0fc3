import { expect, type Page } from '@playwright/test';
import { settled } from './fixtures.ts';

/** What covers or hides the highlighted part, or null when it is in view and uncovered. */
export async function blocked(page: Page): Promise<string | null> {
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

/**
 * Waits until the walkthrough points at `highlight` and the page says it is at rest with that part
 * drawn (state/settled.ts counts a part pointed at but not on the page as not at rest).
 */
export async function atRest(page: Page, highlight: string): Promise<void> {
  await expect.poll(() => page.evaluate(() => document.body.dataset.walkHighlight), { timeout: 90_000 }).toBe(highlight);
  try {
    await settled(page);
  } catch (e) {
    // The page does not settle while the part it points at is missing: say so, rather than only "not settled".
    const why = await blocked(page).catch(() => null);
    throw why ? new Error(`never at rest pointing at ${highlight}: ${why}`, { cause: e }) : e;
  }
}
