import type { Page } from '@playwright/test';
import { expect, settled, test } from './fixtures.ts';
import { smallestText } from './textSize.ts';

/**
 * The screen layout on a projector (`?screen`), every chapter, at 1280×720 and at 1920×1080: nothing
 * sits over the chapter's picture and none of it is cut off by the window or the caption band; no text
 * under 20 px at 1280×720, and the same frame grown with the window at 1920×1080 (×1.5). Each chapter is
 * looked at as it starts and four seconds on, the page's clock (Playwright's) moved on instead of
 * waited for. Screenshots go to SHOTS when it is set.
 */

const SHOTS = process.env.SHOTS_DIR;
const CHAPTERS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
const WINDOWS = [
  { width: 1280, height: 720, scale: 1 },
  { width: 1920, height: 1080, scale: 1.5 },
];
const MIN_PX = 20;

/** The parts that draw a chapter's picture: a node's grid, the stage, the big counter, the day, the comparison, the chart. */
const PARTS = '.screen-picture :is(.node-grid, [data-testid=stage], .screen-counter.big, .screen-day, .screen-compare, .timeline-chart, .screen-gauge, .response-tokens)';

/**
 * What is wrong with the picture now: a part cut off (outside the picture's box, or under the caption
 * band) or covered (a point sampled over it hits an element that is not the part's own).
 */
async function pictureProblems(page: Page): Promise<{ parts: number; problems: string[] }> {
  return page.evaluate((selector) => {
    const name = (el: Element | null): string => {
      if (!el) return 'nothing';
      const id = el.getAttribute('data-testid');
      const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
      return `${el.tagName.toLowerCase()}${id ? `[data-testid=${id}]` : ''}${cls}`;
    };
    const box = document.querySelector('.screen-picture-box')!.getBoundingClientRect();
    const band = document.querySelector('.screen-band')!.getBoundingClientRect();
    const problems: string[] = [];
    let parts = 0;
    for (const part of document.querySelectorAll(selector)) {
      if (!part.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
      const r = part.getBoundingClientRect();
      if (r.width < 2 || r.height < 2) continue;
      parts++;
      const label = `${name(part)}${part.querySelector('figcaption b') ? ` (${part.querySelector('figcaption b')!.textContent})` : ''}`;
      if (r.top < box.top - 1 || r.left < box.left - 1 || r.right > box.right + 1 || r.bottom > box.bottom + 1) problems.push(`${label} cut off by the picture's box: ${Math.round(r.top)}–${Math.round(r.bottom)} in ${Math.round(box.top)}–${Math.round(box.bottom)}`);
      if (r.bottom > band.top + 1) problems.push(`${label} under the caption band: its foot at ${Math.round(r.bottom)}, the band at ${Math.round(band.top)}`);
      // Points over the part, inside the window: each must hit the part or something inside it.
      const covered = new Map<string, number>();
      for (let i = 0; i < 9; i++) {
        for (let j = 0; j < 6; j++) {
          const x = r.left + 3 + ((r.width - 6) * i) / 8;
          const y = r.top + 3 + ((r.height - 6) * j) / 5;
          if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) continue;
          const hit = document.elementFromPoint(x, y);
          if (hit && part.contains(hit)) continue;
          const who = name(hit);
          covered.set(who, (covered.get(who) ?? 0) + 1);
        }
      }
      for (const [who, n] of covered) problems.push(`${label} covered at ${n} of 54 points by ${who}`);
    }
    return { parts, problems };
  }, PARTS);
}

/** Opens a chapter on the screen layout and plays its body from the start. */
async function openChapter(page: Page, n: number): Promise<void> {
  await page.goto(`?screen&ch=${n}`);
  const live = page.getByTestId('screen-live');
  // The screen's code loads after the page (seconds on a busy machine).
  await expect(live).toHaveAttribute('data-scene', 'card', { timeout: 90_000 });
  await page.keyboard.press('ArrowRight');
  await expect(live).toHaveAttribute('data-scene', 'body');
  await expect(page.getByTestId('screen-caption')).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('[data-picture]')).toBeVisible({ timeout: 30_000 });
}

async function expectPictureClear(page: Page, what: string): Promise<void> {
  // The picture sizes itself after its data arrives: it has a moment to settle, then nothing may cover it.
  await expect.poll(async () => {
    const p = await pictureProblems(page);
    return p.parts === 0 ? ['no part of the picture drawn yet'] : p.problems;
  }, { message: `${what}: the picture is whole and uncovered`, timeout: 15_000 }).toEqual([]);
}

/** Chapter 1 at 1280×720: both nodes' grids, decode's included, whole above the caption band and uncovered. */
async function expectBothGridsAboveBand(page: Page): Promise<void> {
  const band = (await page.locator('.screen-band').boundingBox())!;
  for (const node of ['prefill-0', 'decode-0']) {
    const grid = page.locator('.screen-picture .node-grid').filter({ hasText: node });
    await expect(grid).toBeVisible({ timeout: 30_000 });
    await expect.poll(async () => {
      const b = (await grid.boundingBox())!;
      // Whole above the band, and what is at its middle is the grid itself (nothing laid over it).
      const own = await grid.evaluate((el, [x, y]) => el.contains(document.elementFromPoint(x!, y!)), [b.x + b.width / 2, b.y + b.height / 2]);
      return b.height > 40 && b.y >= 0 && b.y + b.height <= band.y && own;
    }, { message: `${node}'s grid is whole above the band and uncovered` }).toBe(true);
  }
}

for (const win of WINDOWS) {
  test.describe(`the projector at ${win.width}×${win.height}`, () => {
    test.use({ viewport: { width: win.width, height: win.height } });
    for (const n of CHAPTERS) {
      const title = `chapter ${n}: nothing over the picture, nothing cut off, no text under ${MIN_PX * win.scale} px${n === 1 && win.scale === 1 ? '; both nodes\' grids, decode\'s included, are on screen above the caption band' : ''}`;
      test(title, async ({ page }) => {
        // The page's time is Playwright's clock: it flows as usual, and the test moves it on at will.
        await page.clock.install();
        await openChapter(page, n);
        await expectPictureClear(page, `chapter ${n}, as it starts`);
        if (n === 1 && win.scale === 1) await expectBothGridsAboveBand(page);
        // Later in the chapter (a view changes, a timeline or a question comes in): still whole. Four
        // seconds of the chapter in one move of the clock (the runner shows every beat it passes).
        await page.clock.fastForward(4000);
        await expectPictureClear(page, `chapter ${n}, four seconds on`);
        const text = await smallestText(page, { within: '[data-testid=screen]', under: MIN_PX * win.scale });
        expect(text.count).toBeGreaterThan(5);
        expect(text.under, `text under ${MIN_PX * win.scale} px at ${win.width}×${win.height}`).toEqual([]);
        if (SHOTS) await page.screenshot({ path: `${SHOTS}/projector-ch${n}-${win.width}x${win.height}.png` });
      });
    }
  });
}

test('the same frame grows with the window: every text at 1920×1080 is 1.5× its size at 1280×720', async ({ page }) => {
  // One page, its window resized: the frame is sized from the window alone (screen.css's zoom).
  const sizes: number[] = [];
  await page.setViewportSize({ width: WINDOWS[0]!.width, height: WINDOWS[0]!.height });
  await openChapter(page, 4);
  await expect(page.locator('.screen-picture [data-testid=stage]')).toBeVisible({ timeout: 30_000 });
  for (const win of WINDOWS) {
    await page.setViewportSize({ width: win.width, height: win.height });
    expect(await page.evaluate(() => [innerWidth, innerHeight])).toEqual([win.width, win.height]);
    const px = await page.evaluate(() => {
      const el = document.querySelector('.screen-title')!;
      return parseFloat(getComputedStyle(el).fontSize) * ((el as HTMLElement & { currentCSSZoom?: number }).currentCSSZoom ?? 1);
    });
    sizes.push(px);
  }
  expect(sizes[1]).toBeCloseTo(sizes[0]! * 1.5, 1);
});

test(`presenter mode (pm=1) at ${WINDOWS.map((w) => `${w.width}×${w.height}`).join(' and ')}: no text under ${WINDOWS.map((w) => `${MIN_PX * w.scale} px`).join(', ')}`, async ({ page }) => {
  // One page, its window resized; the chapter lands at its question at once (the text is what is measured, not motion).
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.setViewportSize({ width: WINDOWS[0]!.width, height: WINDOWS[0]!.height });
  await page.goto('?ch=4&pm=1');
  await expect(page.locator('[data-testid=stage]').first()).toBeVisible({ timeout: 90_000 });
  await expect(page.getByTestId('walkthrough')).toBeVisible();
  for (const win of WINDOWS) {
    await page.setViewportSize({ width: win.width, height: win.height });
    expect(await page.evaluate(() => [innerWidth, innerHeight])).toEqual([win.width, win.height]);
    // Laid out again for the window (a resize unsettles the page) and at rest.
    await settled(page);
    const text = await smallestText(page, { under: MIN_PX * win.scale });
    expect(text.count, `${win.width}×${win.height}`).toBeGreaterThan(20);
    expect(text.under.map((s) => `${s.px} px ${s.element}: ${s.text}`), `text under ${MIN_PX * win.scale} px at ${win.width}×${win.height}`).toEqual([]);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/presenter-ch4-${win.width}x${win.height}.png` });
  }
});
