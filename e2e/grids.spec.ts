import { MESSAGES } from '../src/app/i18n/messages.ts';
import AxeBuilder from '@axe-core/playwright';
import { expect, openExplore, ready, settled, test } from './fixtures.ts';

/** The canvas pixel (RGBA) under a page's top-left corner (the checkerboard's coloured square). */
async function pixelOfPage(page: import('@playwright/test').Page, selector: string, p: number): Promise<number[]> {
  return page.evaluate(
    ({ selector, p }) => {
      const c = document.querySelector(selector) as HTMLCanvasElement;
      const cell = Number(c.dataset.cell);
      const cols = Number(c.dataset.cols);
      const ctx = c.getContext('2d')!;
      return [...ctx.getImageData((p % cols) * cell, Math.floor(p / cols) * cell, 1, 1).data];
    },
    { selector, p },
  );
}

const FOREIGN = [213, 94, 0, 255];
const PLACEHOLDER = [0, 158, 115, 255];

test.describe('grids by what a page is to the selected request', () => {
  test('inside a leaking request: a page it holds with another tenant\u2019s KV says so, and is drawn foreign-held; the placeholder is magnified', async ({ page }) => {
    await page.goto('./?s=demo&t=120100&req=8');
    await ready(page);
    const grid = page.locator('canvas[data-node="decode-0"]');
    await expect(grid).toHaveAttribute('data-focus', '8');
    // The overlay's pixels are read once the page has drawn and come to rest.
    await settled(page);
    // The placeholder page: named by the grid, magnified on the overlay to at least 9 px, in its colour.
    const placeholder = Number(await grid.getAttribute('data-placeholder-page'));
    expect(placeholder).toBeGreaterThanOrEqual(0);
    expect(Number(await grid.getAttribute('data-placeholder-px'))).toBeGreaterThanOrEqual(9);
    const centre = await page.evaluate((p) => {
      const c = document.querySelector('canvas[data-overlay="decode-0"]') as HTMLCanvasElement;
      const g = document.querySelector('canvas[data-node="decode-0"]') as HTMLCanvasElement;
      const size = Number(g.dataset.placeholderPx);
      // The magnifier is centred on the page: the page's own corner lies inside it.
      const cell = Number(g.dataset.cell);
      const cols = Number(g.dataset.cols);
      const x = (p % cols) * cell;
      const y = Math.floor(p / cols) * cell;
      const ctx = c.getContext('2d')!;
      return { size, px: [...ctx.getImageData(x + 3, y + 3, 1, 1).data] };
    }, placeholder);
    expect(centre.px).toEqual(PLACEHOLDER);
    await grid.focus();
    await page.keyboard.press('Home');
    // Page 0 is never handed out (SGLang's free list starts at 1); page 1 is the table's first, the
    // placeholder's; page 2 holds another tenant's KV.
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expect(page.getByTestId('inspector')).toContainText('page #2');
    await expect(page.getByTestId('cross-read')).toContainText('A request of delta holds this page');
    const relation = page.getByTestId('inspector-relation');
    await expect(relation).toHaveAttribute('data-relation', 'foreign');
    await expect(relation).toContainText('held by it, written for another tenant (acme)');
    await settled(page);
    expect(await pixelOfPage(page, 'canvas[data-node="decode-0"]', 2)).toEqual(FOREIGN);

    // The legend names every relation, "reserved, never written" included.
    const legend = page.getByTestId('grid-legend');
    for (const rel of ['own', 'placeholder', 'foreign', 'reserved', 'other']) await expect(legend.locator(`[data-relation="${rel}"]`)).toBeVisible();
    await expect(legend).toContainText('reserved, never written');

    // Hover: the writer's tenant as the second cue.
    const box = (await grid.boundingBox())!;
    const cell = Number(await grid.getAttribute('data-cell'));
    await page.mouse.move(box.x + 2 * cell + 1, box.y + 1);
    await expect(page.getByTestId('hover-card')).toContainText('acme');

    // The block-table strip: the placeholder page is wide enough to see, in the placeholder colour.
    await page.getByRole('tab', { name: 'Transfer' }).click();
    const strip = page.getByTestId('block-table');
    await expect(strip).toBeVisible();
    expect(Number(await strip.getAttribute('data-placeholder-px'))).toBeGreaterThanOrEqual(12);
    await expect(page.getByTestId('block-table-legend')).toContainText('reserved, never written');
  });

  test('at start-up, with no request selected, the pages decode has reserved but nobody has written are drawn dotted grey and the legend names them', async ({ page }) => {
    await page.goto('./?s=demo&view=cluster&t=3');
    await ready(page);
    await openExplore(page);
    const grid = page.locator('canvas[data-node="decode-0"]');
    await expect(grid).toBeVisible();
    await settled(page);
    // The first warm-up request's pages are reserved once its handshake is done (2 ms in); no KV has arrived yet.
    const reservedCorners = await grid.evaluate((c: HTMLCanvasElement) => {
      const cell = Number(c.dataset.cell);
      const cols = Number(c.dataset.cols);
      const ctx = c.getContext('2d')!;
      const data = ctx.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let p = 0; p < cols * 4; p++) {
        const i = (Math.floor(p / cols) * cell * c.width + (p % cols) * cell) * 4;
        if (data[i] === 150 && data[i + 1] === 150 && data[i + 2] === 150) n++;
      }
      return n;
    });
    expect(reservedCorners).toBeGreaterThan(0);
    const legend = page.getByTestId('grid-legend');
    await expect(legend).toContainText('reserved, never written');
    await expect(legend.locator('.key.reserved')).toBeVisible();
  });

  test('hovering or focusing a response token lights the page it drew on; Enter selects the request that wrote it', async ({ page }) => {
    await page.goto('./?s=demo&t=120100&req=8');
    await ready(page);
    const tokens = page.getByTestId('story-tokens');
    const foreign = tokens.locator('[data-writer="acme"]').first();
    await expect(foreign).toBeVisible();
    const node = (await foreign.getAttribute('data-node'))!;
    const pageId = (await foreign.getAttribute('data-page'))!;
    const writer = Number(await foreign.getAttribute('data-writer-request'));
    await foreign.hover();
    const grid = page.locator(`canvas[data-node="${node}"]`);
    await expect(grid).toHaveAttribute('data-linked-page', pageId);
    await settled(page);
    // The linked page is ringed on the overlay, in the page's own place: its pixels changed from clear.
    const ringed = await page.evaluate(
      ({ node, p }) => {
        const g = document.querySelector(`canvas[data-node="${node}"]`) as HTMLCanvasElement;
        const o = document.querySelector(`canvas[data-overlay="${node}"]`) as HTMLCanvasElement;
        const cell = Number(g.dataset.cell);
        const cols = Number(g.dataset.cols);
        const x = (p % cols) * cell;
        const y = Math.floor(p / cols) * cell;
        const d = o.getContext('2d')!.getImageData(Math.max(0, x - 6), y, 1, cell).data;
        return Array.from(d).some((v, i) => i % 4 === 3 && v > 0);
      },
      { node, p: Number(pageId) },
    );
    expect(ringed).toBe(true);
    // The stage on the first screen rings it too, named by node and page.
    await expect(page.getByTestId('stage-linked')).toContainText(`${node} #${Number(pageId).toLocaleString('en-US')}`);
    const source = page.getByTestId('story-tokens-source');
    // Named by its block in the request's table and its page id (the one numbering).
    await expect(source).toContainText(new RegExp(`${node}, block [\\d,]+ → page #${Number(pageId).toLocaleString('en-US')}:`));
    await expect(source).toContainText('of acme');
    await page.mouse.move(0, 0);
    await expect(grid).toHaveAttribute('data-linked-page', '');

    // By keyboard: one tab stop, arrows move, focus links, Enter selects the writer.
    await foreign.focus();
    await expect(grid).toHaveAttribute('data-linked-page', pageId);
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(new RegExp(`req=${writer}(&|$)`));
    // Selected at the middle of its time in flight: the story says its answer has not gone out yet.
    await expect(page.getByTestId('story')).toContainText(/The answer request warm-\d+ of acme gets when it goes out/);
    await expect(page.getByTestId('story-when')).toHaveAttribute('data-phase', 'in-flight');
  });

  test('the probe flips from served to leaking across the prefill KV cache’s 681,280 tokens, and is refused past the advertised context', async ({ page }) => {
    await page.goto('./?s=demo');
    await ready(page);
    const length = page.getByTestId('probe-tokens');
    const outcome = page.getByTestId('probe-outcome');
    for (const [tokens, expected] of [
      ['681280', 'served'],
      ['681281', 'leaking'],
      ['600000', 'served'],
      ['1048577', 'refused'],
    ] as const) {
      await length.fill(tokens);
      await length.press('Enter');
      await expect(outcome).toHaveAttribute('data-tokens', tokens);
      await expect(outcome).toHaveAttribute('data-outcome', expected, { timeout: 90_000 });
    }
    await expect(outcome).toContainText('HTTP 400');
    // Its own request, named, in a run of its own: not the one the first screen tells.
    await expect(page.getByTestId('probe-intro')).toHaveText(MESSAGES.en.probeIntro.replace('{id}', 'you'));
    await expect(outcome).toContainText('“you”');
    // Its own handoff, from its own run: the 1,048,577 tokens it sent, refused at the tokenizer.
    const handoff = page.getByTestId('probe-handoff');
    await handoff.locator('summary').click();
    await expect(handoff.locator('summary')).toContainText('“you”');
    await expect(handoff.locator('li').first()).toContainText('1,048,577 tokens');
    await expect(handoff.locator('li').last()).toContainText('HTTP 400');
    // A bad length is named and the last good one kept.
    await length.fill('lots');
    await length.press('Enter');
    await expect(page.getByTestId('probe-error')).toContainText('"lots" is not a prompt length');
    await expect(outcome).toHaveAttribute('data-tokens', '1048577');
    // The slider drives the same probe.
    await page.getByTestId('probe-range').focus();
    await page.getByTestId('probe-range').fill('700000');
    await expect(outcome).toHaveAttribute('data-outcome', 'leaking', { timeout: 90_000 });
  });

  test('the Explore drawer opens by key and by button, keeps focus inside, and Escape closes it and returns focus', async ({ page }) => {
    await page.goto('./?s=demo');
    await ready(page);
    const drawer = page.getByTestId('explore');
    await expect(drawer).toBeHidden();
    await page.getByTestId('scrubber').focus();
    await page.keyboard.press('e');
    await expect(drawer).toBeVisible();
    await expect(page.locator('#explore-drawer-h')).toBeFocused();
    await expect(drawer.getByRole('switch', { name: /Buggy reject path/ })).toBeVisible();
    // Shift+Tab from the first stop wraps to the last inside the drawer; Tab from the last wraps back.
    await page.keyboard.press('Shift+Tab');
    expect(await page.evaluate(() => document.getElementById('explore-drawer')!.contains(document.activeElement))).toBe(true);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.getElementById('explore-drawer')!.contains(document.activeElement))).toBe(true);
    await page.keyboard.press('Escape');
    await expect(drawer).toBeHidden();
    await expect(page.getByTestId('scrubber')).toBeFocused();
    // Typing "e" in a field does not open it.
    await page.getByTestId('probe-tokens').focus();
    await page.keyboard.press('e');
    await expect(drawer).toBeHidden();
    // The button, then Escape: focus back on the button.
    const button = page.getByTestId('explore-open');
    await button.click();
    await expect(button).toHaveAttribute('aria-expanded', 'true');
    await expect(drawer).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(drawer).toBeHidden();
    await expect(button).toBeFocused();
  });

  test('the first screen: the leaked response from the run, the counter climbing to the run’s total; axe finds nothing serious', async ({ page }) => {
    // axe over the whole page, Explore open, on two loaded cores.
    test.setTimeout(120_000);
    await page.goto('./?s=demo');
    await ready(page);
    // Where things lie on the first screen is read once the page has come to rest (fonts, lazy parts).
    await settled(page);
    await expect(page.getByTestId('story-sent')).toHaveText('800,000');
    await expect(page.getByTestId('story-computed')).toHaveText('1');
    await expect(page.getByTestId('story-status')).toHaveText('200');
    await expect(page.getByTestId('story-leak')).toContainText('Leaked: data of acme, borealis');
    await expect(page.locator('.story-explain dfn')).toHaveCount(4);
    // At 1280×720, before any scrolling: the story's numbers, the stage, and the scrub bar's counter,
    // clock and scrubber are all on the first screen.
    for (const id of ['story-sent', 'stage', 'leaks-so-far', 'current-time', 'scrubber']) {
      const box = (await page.getByTestId(id).boundingBox())!;
      expect(box.y, id).toBeGreaterThanOrEqual(0);
      expect(Math.min(box.y + box.height, box.y + 40), id).toBeLessThanOrEqual(720);
    }
    // A control under the sticky bar, reached by keyboard, is scrolled clear of the bar.
    await page.getByTestId('stage-next').focus();
    await settled(page);
    const next = (await page.getByTestId('stage-next').boundingBox())!;
    const bar = (await page.getByTestId('scrub-bar').boundingBox())!;
    expect(next.y + next.height).toBeLessThanOrEqual(bar.y);
    const counter = page.getByTestId('leaks-so-far');
    await page.getByTestId('scrubber').focus();
    await page.keyboard.press('Home');
    await expect(counter).toHaveAttribute('data-count', '0');
    await page.keyboard.press('End');
    await expect(counter).toHaveAttribute('data-count', '1');
    await page.getByTestId('explore-open').click();
    // Run in the page (legacy mode): the default opens a second, blank page to merge the results of
    // frames, which this page has none of, and that costs seconds on a loaded machine.
    const results = await new AxeBuilder({ page }).setLegacyMode(true).analyze();
    const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
  });
});

for (const width of [1280, 390]) {
  test(`the probe holds its height while its own run lands, so the views below it stay put (${width} px)`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 });
    await page.emulateMedia({ reducedMotion: 'reduce' });
    // Every height the outcome line takes, by the outcome it shows, sampled every frame from the first paint.
    await page.addInitScript(() => {
      const heights: Record<string, number[]> = {};
      (window as unknown as { probeHeights: typeof heights }).probeHeights = heights;
      const sample = () => {
        const el = document.querySelector<HTMLElement>('[data-testid=probe-outcome]');
        if (el) {
          const h = Math.round(el.getBoundingClientRect().height * 10) / 10;
          const seen = (heights[el.dataset.outcome ?? '?'] ??= []);
          if (!seen.includes(h)) seen.push(h);
        }
        requestAnimationFrame(sample);
      };
      requestAnimationFrame(sample);
    });
    // The incident's chapter 10: the probe runs its 925,349-token request after the main run. That
    // run is prebuilt (a file, so "pending" may last a frame or none), so the probe is then moved to
    // 925,350 tokens, which no file holds: its own run computes in a worker, for seconds pending, then leaking.
    await page.goto('./?ch=10');
    await ready(page);
    const outcome = page.getByTestId('probe-outcome');
    await expect(outcome).toHaveAttribute('data-outcome', 'leaking', { timeout: 90_000 });
    await page.getByTestId('probe-range').fill('925350');
    await expect(outcome).toHaveAttribute('data-tokens', '925350');
    await expect(outcome).toHaveAttribute('data-outcome', 'leaking', { timeout: 90_000 });
    const heights = await page.evaluate(() => (window as unknown as { probeHeights: Record<string, number[]> }).probeHeights);
    expect(heights.pending, 'the pending sentence was seen').toBeDefined();
    expect(heights, 'one height, pending and leaking').toEqual({ pending: heights.leaking, leaking: heights.leaking });
    expect(heights.leaking).toHaveLength(1);
  });
}
