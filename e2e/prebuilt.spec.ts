import { MESSAGES } from '../src/app/i18n/messages.ts';
import { expect, openExplore, test } from './fixtures.ts';

test.describe('the opening run', () => {
  // Each test waits for one live replay of the two weeks, shared with the other specs' two cores.
  test.setTimeout(240_000);

  test('comes from the prebuilt file, with no replay; one switch flipped loads its own file; two replay live and keep the last result on screen meanwhile', async ({ page }) => {
    const file = page.waitForResponse((r) => /\/runs\/[0-9a-f]+\.run$/.test(r.url()));
    await page.goto('./');
    expect((await file).status()).toBe(200);
    await expect(page.getByTestId('count-leaked')).toHaveText('155', { timeout: 90_000 });
    await expect(page.getByTestId('replay-progress')).toHaveCount(0);

    // The switches live in the Explore drawer. One switch from the opening run: its run was built too.
    await openExplore(page);
    const flipped = page.waitForResponse((r) => /\/runs\/[0-9a-f]+\.run$/.test(r.url()));
    await page.getByRole('switch', { name: /Clear pages on free/ }).check();
    expect((await flipped).status()).toBe(200);
    // Clear-on-free leaves no stale KV to read, but the answers are still read from memory the requests did not write.
    await expect(page.getByTestId('count-leaked')).toHaveText('0', { timeout: 60_000 });
    await expect(page.getByTestId('count-breach')).toHaveText('155');
    await expect(page.locator('main.layout')).toHaveAttribute('aria-busy', 'false');

    // A second switch: no file holds that run, so the worker replays it, with progress; meanwhile
    // the previous result stays, marked as being recomputed.
    await page.getByRole('switch', { name: /Zero pages on allocate/ }).check();
    await expect(page.getByTestId('replay-progress')).toBeVisible();
    await expect(page.getByTestId('replay-progress')).toContainText('the previous result stays on screen');
    await expect(page.locator('main.layout')).toHaveAttribute('aria-busy', 'true');
    await expect(page.getByTestId('count-breach')).toHaveText('155');
    await expect(page.getByTestId('replay-progress')).toHaveCount(0, { timeout: 120_000 });
    await expect(page.locator('main.layout')).toHaveAttribute('aria-busy', 'false');
  });

  test('one switch flipped from the opening run starts no worker while its file loads: the probe waits for the new picture', async ({ page }) => {
    await page.goto('./');
    await expect(page.getByTestId('count-leaked')).toHaveText('155', { timeout: 90_000 });
    // The probe has run for the opening switches.
    await expect(page.getByTestId('probe-outcome')).not.toHaveAttribute('data-outcome', 'pending', { timeout: 60_000 });
    await openExplore(page);
    // The flipped run's file is held until the page has been looked at while it loads.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let asked!: () => void;
    const fileAsked = new Promise<void>((resolve) => (asked = resolve));
    await page.route('**/runs/*.run', async (route) => {
      asked();
      await released;
      await route.continue();
    });
    const started: string[] = [];
    page.on('worker', (w) => started.push(w.url()));
    await page.getByRole('switch', { name: /Clear pages on free/ }).check();
    await fileAsked;
    await expect(page.getByTestId('replay-progress')).toBeVisible();
    // The probe says it waits for the main run: it has no run of its own to start.
    await expect(page.getByTestId('probe-outcome')).toHaveText(MESSAGES.en.probeWaiting);
    // Two frames after the flip's render: a probe run started beside the file would have its worker by now.
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    expect(started).toEqual([]);
    release();
    await expect(page.getByTestId('count-leaked')).toHaveText('0', { timeout: 60_000 });
    await expect(page.getByTestId('count-breach')).toHaveText('155');
    await expect(page.getByTestId('replay-progress')).toHaveCount(0);
  });

  test('is replayed live in the worker, with progress, when the file cannot be had', async ({ page }) => {
    await page.route('**/runs/*.run', (route) => route.abort());
    await page.goto('./');
    await expect(page.getByTestId('replay-progress')).toBeVisible({ timeout: 90_000 });
    await expect(page.getByTestId('count-leaked')).toHaveText('155', { timeout: 120_000 });
  });
});
