import type { Page } from '@playwright/test';
import { expect, ready, settled, test } from './fixtures.ts';

/**
 * The Cluster view as a link opens it (its default selection: the story's request, just after its
 * answer, its block table already freed) shows what its legend promises: not a relation legend over
 * grey pages, but the pages by their writer's tenant, the tenants' colours on the grids.
 */
async function colours(page: Page, node: string): Promise<{ distinct: number; share: number }> {
  return page.locator(`.cluster-view canvas[data-node="${node}"]`).evaluate((c: HTMLCanvasElement) => {
    const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
    const seen = new Set<number>();
    let coloured = 0;
    for (let i = 0; i < d.length; i += 4) {
      const [r, g, b] = [d[i]!, d[i + 1]!, d[i + 2]!];
      // Greys (every state's "other" colour, the ground) have no hue.
      if (Math.max(r, g, b) - Math.min(r, g, b) < 24) continue;
      coloured++;
      seen.add((r << 16) | (g << 8) | b);
    }
    return { distinct: seen.size, share: coloured / (d.length / 4) };
  });
}

test('the Cluster view\u2019s default shows its legend\u2019s colours: the pages by tenant while the request holds none', async ({ page }) => {
  await page.goto('./?view=cluster');
  await ready(page);
  const legend = page.getByTestId('grid-legend');
  await expect(legend.getByTestId('legend-none-held')).toContainText('holds no page at this instant');
  await expect(legend.locator('.tenant-keys li').first()).toBeVisible();
  // Drawn once the page is at rest (the grid's repaint marks its canvas, which unsettles the page).
  await settled(page);
  const drawn = await colours(page, 'decode-0');
  expect(drawn.distinct).toBeGreaterThanOrEqual(3);
  expect(drawn.share).toBeGreaterThan(0.3);
});

test('while the request holds its block table the grids show it by relation, as the legend says', async ({ page }) => {
  await page.goto('./?view=cluster&bench');
  await ready(page);
  // The handoff clock in the middle of decode's read (the stage's scan step): the block table is held.
  const scan = await page.locator('.hc-seg[data-step="scan"]').first().evaluate((e) => Number((e as HTMLElement).dataset.at) + Number((e as HTMLElement).dataset.dur) / 2);
  await page.evaluate((h) => (window as unknown as { __stalePages: { handoff: (h: number) => void } }).__stalePages.handoff(h), scan);
  await expect(page.getByTestId('grid-legend').locator('[data-relation="foreign"]')).toBeVisible();
  await expect(page.getByTestId('legend-none-held')).toHaveCount(0);
  // The request's pages, held by it and written for other tenants: the foreign colour on the grid.
  await settled(page);
  expect((await colours(page, 'decode-0')).distinct).toBeGreaterThanOrEqual(1);
});
