import { expect, ready, test } from './fixtures.ts';

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
    await page.keyboard.press('ArrowRight');
    await expect(page.getByTestId('inspector')).toContainText('page 1');
    await expect(page.getByTestId('cross-read')).toContainText('A request of delta holds this page');
    const relation = page.getByTestId('inspector-relation');
    await expect(relation).toHaveAttribute('data-relation', 'foreign');
    await expect(relation).toContainText('held by it, written for another tenant (acme)');
    expect(await pixelOfPage(page, 'canvas[data-node="decode-0"]', 1)).toEqual(FOREIGN);

    // The legend names every relation, "reserved, never written" included.
    const legend = page.getByTestId('grid-legend');
    for (const rel of ['own', 'placeholder', 'foreign', 'reserved', 'other']) await expect(legend.locator(`[data-relation="${rel}"]`)).toBeVisible();
    await expect(legend).toContainText('reserved, never written');

    // Hover: the writer's tenant as the second cue.
    const box = (await grid.boundingBox())!;
    const cell = Number(await grid.getAttribute('data-cell'));
    await page.mouse.move(box.x + cell + 1, box.y + 1);
    await expect(page.getByTestId('hover-card')).toContainText('acme');

    // The block-table strip: the placeholder page is wide enough to see, in the placeholder colour.
    await page.getByRole('tab', { name: 'Transfer' }).click();
    const strip = page.getByTestId('block-table');
    await expect(strip).toBeVisible();
    expect(Number(await strip.getAttribute('data-placeholder-px'))).toBeGreaterThanOrEqual(12);
    await expect(page.getByTestId('block-table-legend')).toContainText('reserved, never written');
  });
});
