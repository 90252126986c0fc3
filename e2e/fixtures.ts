import { test as base, expect } from '@playwright/test';

/** Every test also asserts that its pages (the test's page and any tab it opens beside it) asked nothing of any other origin. */
export const test = base.extend<{ foreignRequests: string[] }>({
  foreignRequests: [
    async ({ context, baseURL }, use) => {
      const origin = new URL(baseURL!).origin;
      const foreign: string[] = [];
      context.on('request', (r) => {
        const url = new URL(r.url());
        if (url.origin !== origin && url.protocol !== 'data:' && url.protocol !== 'blob:') foreign.push(r.url());
      });
      await use(foreign);
      expect(foreign, 'requests to other origins').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };

/**
 * Waits until the page says it is at rest (src/app/state/settled.ts: nothing loading, nothing
 * playing, the layout and the part the walkthrough points at unchanged over several frames). Wait for
 * the state an action leads to first (a beat, a chapter, a view), then for this: the page unsettles in
 * the same task as the change it makes.
 */
export async function settled(page: import('@playwright/test').Page, timeout = 90_000): Promise<void> {
  await expect(page.locator('html')).toHaveAttribute('data-settled', 'true', { timeout });
}

/** Waits until the run is simulated and the page grids are drawn. */
export async function ready(page: import('@playwright/test').Page): Promise<void> {
  await expect(page.getByTestId('count-requests')).not.toHaveText('', { timeout: 30_000 });
  await expect(page.getByTestId('scrubber')).toBeVisible({ timeout: 30_000 });
}

/** Opens the Explore drawer (switches, counters, assumptions, matrix, exports) unless it is open. */
export async function openExplore(page: import('@playwright/test').Page): Promise<void> {
  const button = page.getByTestId('explore-open');
  if ((await button.getAttribute('aria-expanded')) !== 'true') await button.click();
  await expect(page.getByTestId('explore')).toBeVisible();
}

/**
 * On to the next walkthrough chapter as a presenter goes: once the chapter has come to its stop, its
 * question (if it asks one) revealed by the clicker's two presses, then Next.
 */
export async function nextChapter(page: import('@playwright/test').Page): Promise<void> {
  const panel = page.getByTestId('walkthrough');
  await expect(panel).toHaveAttribute('data-status', /^(checkpoint|done)$/, { timeout: 90_000 });
  if ((await panel.getAttribute('data-status')) === 'checkpoint') {
    await page.keyboard.press('PageDown');
    await page.keyboard.press('PageDown');
    await expect(panel).toHaveAttribute('data-status', 'done', { timeout: 90_000 });
  }
  await page.getByTestId('walk-next').click();
}
