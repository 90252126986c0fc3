import AxeBuilder from '@axe-core/playwright';
import { expect, ready, test } from './fixtures.ts';

test('the protocol check runs in a worker and plays the shortest counterexample step by step', async ({ page }) => {
  // The exhaustive check runs in a worker beside the page, on two loaded cores.
  test.setTimeout(120_000);
  await page.goto('./?s=demo&view=transfer');
  await ready(page);
  await page.getByTestId('protocol-check').locator('summary').click();
  await page.getByRole('button', { name: 'Run the check' }).click();
  const table = page.getByRole('table', { name: 'Verdicts per configuration' });
  await expect(table).toBeVisible({ timeout: 90_000 });
  await expect(table.getByRole('row', { name: /the incident/ })).toContainText('fails in 13 steps');
  await expect(table.getByRole('row', { name: /^Fixed reject path, capacity gap/ })).toContainText('safe: no reachable state violates');

  await page.getByRole('button', { name: /Play the counterexample of/ }).first().click();
  const step = page.locator('#vp-step');
  await expect(step).toContainText('Step 0 of');
  // Drive it by keyboard to the end: the last step shows the violation.
  const panel = page.locator('.vp');
  await panel.getByRole('button', { name: 'Step forward' }).focus();
  await page.keyboard.press('End');
  await expect(step).toContainText(/Step (\d+) of \1\./);
  await expect(page.locator('.vp-violation')).toContainText('broken');
  await panel.getByRole('button', { name: 'Step back' }).click();
  await expect(page.locator('.vp-violation')).toHaveCount(0);

  // Run in the page (legacy mode): the default opens a second, blank page to merge the results of
  // frames, which this page has none of, and that costs seconds on a loaded machine.
  const results = await new AxeBuilder({ page }).setLegacyMode(true).include('.vp').analyze();
  expect(results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
});
