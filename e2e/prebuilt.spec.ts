import { expect, openExplore, test } from './fixtures.ts';

test.describe('the opening run', () => {
  // Each test waits for one live replay of the two weeks, shared with the other specs' two cores.
  test.setTimeout(240_000);

  test('comes from the prebuilt file, with no replay; switching a mitigation replays live and keeps the last result on screen meanwhile', async ({ page }) => {
    const file = page.waitForResponse((r) => /\/runs\/[0-9a-f]+\.run$/.test(r.url()));
    await page.goto('./');
    expect((await file).status()).toBe(200);
    await expect(page.getByTestId('count-leaked')).toHaveText('155');
    await expect(page.getByTestId('replay-progress')).toHaveCount(0);

    // The switches live in the Explore drawer.
    await openExplore(page);
    await page.getByRole('switch', { name: /Clear pages on free/ }).check();
    // While the worker replays, the previous result stays, marked as being recomputed.
    await expect(page.getByTestId('replay-progress')).toBeVisible();
    await expect(page.getByTestId('replay-progress')).toContainText('the previous result stays on screen');
    await expect(page.locator('main.layout')).toHaveAttribute('aria-busy', 'true');
    await expect(page.getByTestId('count-leaked')).toHaveText('155');
    // Then the new run: clear-on-free leaves no stale KV to read.
    await expect(page.getByTestId('count-leaked')).toHaveText('0', { timeout: 120_000 });
    await expect(page.locator('main.layout')).toHaveAttribute('aria-busy', 'false');
    await expect(page.getByTestId('replay-progress')).toHaveCount(0);
  });

  test('is replayed live in the worker, with progress, when the file cannot be had', async ({ page }) => {
    await page.route('**/runs/*.run', (route) => route.abort());
    await page.goto('./');
    await expect(page.getByTestId('replay-progress')).toBeVisible();
    await expect(page.getByTestId('count-leaked')).toHaveText('155', { timeout: 120_000 });
  });
});
