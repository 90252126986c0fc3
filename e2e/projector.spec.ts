import type { Page } from '@playwright/test';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { beatsOf, CARD_MIN_MS } from '../src/app/walkthrough/timeline.ts';
import { expect, settled, test } from './fixtures.ts';
import { framedTextProblems } from './framedText.ts';
import { smallestText } from './textSize.ts';

/**
 * The screen layout on a projector (`?screen`), the whole talk at 1280×720 and at 1920×1080, walked by
 * the clicker's keys in one page per window: the title, every chapter's card and every beat of its
 * body, its question asked and then revealed by keys, its end, and the end card. At each of these, and
 * every half second of the page's time through a beat (mid-animation), no text is under 20 px at
 * 1280×720 (30 px at 1920×1080: the same frame, grown), cut or hidden by the window or a box, under the
 * caption band or covered, and no part of the chapter's picture is cut off or covered. The page's time
 * is Playwright's clock, stopped: it moves only in the walk's steps (the runs are computed in real
 * time meanwhile). Screenshots go to SHOTS_DIR when it is set.
 */

const SHOTS = process.env.SHOTS_DIR;
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
    const pictureBox = document.querySelector('.screen-picture-box');
    const bandEl = document.querySelector('.screen-band');
    // A card has no picture.
    if (!pictureBox || !bandEl) return { parts: 0, problems: [] };
    const box = pictureBox.getBoundingClientRect();
    const band = bandEl.getBoundingClientRect();
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

/** The page's time between two looks inside a beat. */
const STEP_MS = 500;
/** A look waits this long for the page to catch up with the clock's step (a render, a run's data) before it counts what is wrong. */
const CATCH_UP_MS = 3000;

/**
 * The talk walked by keys, looked at as it goes: what each look found wrong, by place. The clock is
 * stopped, so what a look sees can change only as the page catches up with the last step: it is read
 * until it is right, for a moment, else what is wrong is kept.
 */
function walker(page: Page, win: { width: number; height: number; scale: number }) {
  const found: string[] = [];
  let looks = 0;
  let wrong = 0;
  const minPx = MIN_PX * win.scale;
  const look = async (what: string): Promise<void> => {
    looks++;
    let last: string[] = [];
    const read = async () => (last = [...(await framedTextProblems(page, { minPx })), ...(await pictureProblems(page)).problems]).length;
    // After a few wrong looks, one reading each (a page with many faults is not waited for at each).
    if (wrong < 5) await expect.poll(read, { timeout: CATCH_UP_MS }).toBe(0).catch(() => undefined);
    else await read();
    if (last.length) {
      wrong++;
      found.push(...last.map((p) => `${what}: ${p}`));
    }
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/projector-${win.width}x${win.height}-${String(looks).padStart(3, '0')}-${what.replace(/[^\w]+/g, '-')}.png` });
  };
  return { found, look, count: () => looks };
}

for (const win of WINDOWS) {
  test.describe(`the projector at ${win.width}×${win.height}`, () => {
    test.use({ viewport: { width: win.width, height: win.height } });
    test(`the whole talk by keys, every beat, question and card: no text under ${MIN_PX * win.scale} px, nothing cut, hidden, covered or under the caption band`, async ({ page }) => {
      // An upper bound: ten chapters' runs computed on a busy machine, and a look every half second of the talk.
      test.setTimeout(900_000);
      const { found, look, count } = walker(page, win);
      const live = page.getByTestId('screen-live');
      const body = page.getByTestId('screen-body');
      /** Moves the page's clock on in small steps until `reached` holds (each poll a step: the page renders between). */
      const stepUntil = async (reached: () => Promise<boolean>, message: string, ms = 50) =>
        expect.poll(async () => (await reached()) || (await page.clock.fastForward(ms), false), { message, timeout: 90_000 }).toBe(true);
      const at = async () => ({ status: (await body.getAttribute('data-status')) ?? '', beat: (await body.getAttribute('data-beat')) ?? '' });
      const card = async (what: string) => {
        await look(`${what}, as it rises`);
        await page.clock.fastForward(CARD_MIN_MS);
        await look(what);
      };

      await page.clock.install({ time: new Date('2025-01-06T09:00:00Z').getTime() });
      await page.goto('?screen');
      // The screen's code loads after the page (seconds on a busy machine).
      await expect(live).toHaveAttribute('data-scene', 'title', { timeout: 90_000 });
      // From here the page's time moves only in the walk's steps.
      await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1000);
      await card('the title');

      for (let n = 1; n <= CHAPTERS.length; n++) {
        await page.keyboard.press('ArrowRight');
        await expect(live).toHaveAttribute('data-scene', 'card');
        await expect(live).toHaveAttribute('data-chapter', String(n));
        // The card names the run the chapter shows, and says so as a new scene where it changes (demo → incident window → demo).
        await expect(page.getByTestId('card-scene')).toHaveAttribute('data-scenario', n === 7 || n === 8 ? 'incident' : 'demo');
        await expect(page.getByTestId('card-scene')).toHaveAttribute('data-new', n === 7 || n === 9 ? 'true' : 'false');
        await card(`chapter ${n}'s card`);
        await page.keyboard.press('ArrowRight');
        await expect(live).toHaveAttribute('data-scene', 'body');
        // The chapter's runs are computed (real time, in workers); its first beat shows on the next frame after.
        await stepUntil(async () => /^\d+$/.test((await at()).beat), `chapter ${n}'s first beat`, 100);
        const beats = beatsOf(CHAPTERS[n - 1]!.steps);
        let beat = -1;
        /** The page's time left in the beat on, as the schedule has it. */
        let left = 0;
        for (let guard = 0; guard < 1000; guard++) {
          const now = await at();
          if (now.status === 'checkpoint') {
            await look(`chapter ${n}, its question`);
            await page.keyboard.press('PageDown');
            await expect(page.getByTestId('screen-predict').locator('li.right')).toHaveCount(1);
            await look(`chapter ${n}, its answer shown`);
            await page.keyboard.press('PageDown');
            await stepUntil(async () => (await at()).status !== 'checkpoint', `chapter ${n} goes on after its answer`);
            continue;
          }
          if (now.status === 'done') {
            await look(`chapter ${n}, at its end`);
            if (n === 1 && win.scale === 1) await expectBothGridsAboveBand(page);
            break;
          }
          if (Number(now.beat) !== beat) {
            beat = Number(now.beat);
            left = beats[beat]?.ms ?? 0;
            await look(`chapter ${n}, beat ${beat} as it starts`);
          } else if (left <= 0) {
            // A frame or two past the schedule's end of the beat (the runner's first frame): on to the next.
            await page.clock.fastForward(50);
            continue;
          } else {
            await look(`chapter ${n}, beat ${beat}, ${beats[beat]!.ms - left} ms in`);
          }
          const step = Math.min(STEP_MS, Math.max(left, 16));
          left -= step;
          await page.clock.fastForward(step);
        }
      }
      await page.keyboard.press('ArrowRight');
      await expect(live).toHaveAttribute('data-scene', 'end');
      await card('the end card');
      expect(count(), 'looks along the talk').toBeGreaterThan(200);
      expect(found, `what a projector at ${win.width}×${win.height} shows cut, hidden, covered or too small`).toEqual([]);
    });
  });
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
