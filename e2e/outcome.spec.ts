import { expect, test } from '@playwright/test';

test.describe('outcome summary', () => {
  test('the engine runs in the browser and the leak follows the switches', async ({ page, baseURL }) => {
    const origin = new URL(baseURL!).origin;
    const foreign: string[] = [];
    page.on('request', (r) => {
      const url = new URL(r.url());
      if (url.origin !== origin && url.protocol !== 'data:' && url.protocol !== 'blob:') foreign.push(r.url());
    });
    await page.goto('./');
    const summary = page.getByTestId('outcome-summary');
    await expect(summary).toBeVisible();
    // Both defects on: the over-long prompt is answered 200 and draws on other tenants' KV.
    await expect(page.getByTestId('count-leaked')).toHaveText('1');
    await expect(page.getByTestId('leak')).toContainText('HTTP 200');
    await expect(page.getByTestId('leak')).toContainText('prefill computed 1');
    const leakyHash = await page.getByTestId('log-hash').textContent();

    // Fix the reject path: the same request now gets a 400 and nothing leaks.
    await page.getByRole('switch', { name: /Buggy reject path/ }).uncheck();
    await expect(page.getByTestId('count-rejected')).toHaveText('1');
    await expect(page.getByTestId('count-leaked')).toHaveText('0');
    await expect(page.getByTestId('no-leak')).toBeVisible();
    await expect(page.getByTestId('log-hash')).not.toHaveText(leakyHash ?? '');

    // Buggy path again, but clear pages on free: still 200, no foreign content, wrong output.
    await page.getByRole('switch', { name: /Buggy reject path/ }).check();
    await page.getByRole('switch', { name: /Clear pages on free/ }).check();
    await expect(page.getByTestId('count-leaked')).toHaveText('0');
    await expect(page.getByTestId('count-wrong')).toHaveText('1');
    await expect(page.getByTestId('count-served')).toHaveText('10');

    expect(foreign).toEqual([]);
  });
});
