import { expect, ready, settled, test } from './fixtures.ts';

/**
 * Links stay short: a link far longer than the page's own (a 30 KB one) reaches the page and gets its
 * link notice, not the server's HTTP 431; state too long for a link stays on the page, out of its
 * address, with the notice saying so.
 */
test('a 30 KB link opens the page with a notice naming its length, not HTTP 431', async ({ page }) => {
  const junk = 'x'.repeat(30_000);
  const response = await page.goto(`./?v=1&s=demo&t=5&junk=${junk}`);
  expect(response?.status()).toBe(200);
  await ready(page);
  await expect(page.getByText(/This link is 30,0\d\d characters long/)).toBeVisible();
  expect(page.url().length).toBeLessThan(2_100);
});

test('a deployment too long for a link stays out of the address, with a notice', async ({ page }) => {
  await page.goto('./?bench');
  await ready(page);
  await page.evaluate(() => {
    const api = (window as unknown as { __stalePages: { state: () => { set: (p: object) => void } } }).__stalePages;
    api.state().set({
      deployment: {
        contextTokens: 1048576,
        prefillCapacities: Array.from({ length: 400 }, (_, i) => 681280 + i),
        decodeCapacities: Array.from({ length: 400 }, (_, i) => 1310720 + i),
        pageSize: 64,
        chunkTokens: 0,
        disaggregated: true,
        rule: 'report',
        behaviour: { buggyRejectPath: 'incident', retireWithoutSend: 'incident', transferredLengthCheck: 'incident', clearPagesOnFree: 'incident' },
      },
    });
  });
  await expect(page.getByText(/Too long for a link .*dep/)).toBeVisible();
  // The address's debounced write is part of what the page waits for before it says it is at rest.
  await settled(page);
  expect(page.url()).not.toContain('dep=');
  expect(page.url().length).toBeLessThan(2_100);
});
