import AxeBuilder from '@axe-core/playwright';
import { MESSAGES } from '../src/app/i18n/messages.ts';
import { expect, settled, test } from './fixtures.ts';
import { smallestText } from './textSize.ts';

/**
 * The microscope scenario: the trained transformer decoding over pages other tenants left. The run
 * worker fetches the weights from the site itself (the fixture fails any request to another
 * origin); the over-long prompt's answer is labelled as the transformer's, and each of its words
 * says, in text, how much of its attention came from whose pages.
 */
const LONG = 7; // long-1 in the microscope's trace: seven warm-up requests, then the over-long prompt

test('the microscope: a leaked answer from the trained transformer, with attention shares per word', async ({ page }) => {
  // The transformer's run (its weights fetched, its prefill and decode in a worker) and two contrast checks, on two loaded cores.
  test.setTimeout(120_000);
  const weights = page.waitForRequest((r) => r.url().endsWith('/model/stale-pages-lm.bin'));
  await page.goto(`./?v=1&s=microscope&req=${LONG}&view=response`);
  expect(new URL((await weights).url()).origin).toBe(new URL(page.url()).origin);
  const table = page.getByTestId('response-attention');
  await expect(table).toBeVisible({ timeout: 90_000 });
  await expect(page.getByTestId('response-tokens-model')).toHaveText('(trained transformer)');
  await expect(page.getByTestId('response-leak')).toContainText('Leaked: data of delta');
  const rows = table.getByTestId('attention-row');
  expect(await rows.count()).toBeGreaterThan(10);
  // Prefill's token read no page; later words draw most of their attention from delta's pages.
  await expect(rows.first()).toContainText('prefill’s token');
  const second = rows.nth(1);
  expect(Number(await second.getAttribute('data-foreign'))).toBeGreaterThan(0.5);
  await expect(second).toContainText(/\d+% from delta’s pages \(most from page #[\d,]+\)/);
  await expect(second).toContainText('leaked');
  // The stage says the same for the word it shows, in text, once its handoff (opened at its
  // beginning) is at the answer's step.
  await page.getByTestId('story-steps').locator('li[data-step="response"]').getByRole('button').click();
  await expect(page.getByTestId('stage-model')).toHaveText('(trained transformer)');
  await expect(page.getByTestId('stage-attention')).toContainText(/from delta’s pages/);

  // Legible, in both schemes: no text under 12 px in the table, and enough contrast.
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await table.scrollIntoViewIfNeeded();
    await settled(page);
    const report = await smallestText(page, { under: 12 });
    expect([...new Set(report.under.map((u) => `${u.px} px ${u.element}: "${u.text}"`))]).toEqual([]);
    // Run in the page (legacy mode): the default opens a second, blank page to merge the results of
    // frames, which this page has none of, and that costs seconds on a loaded machine.
    const contrast = await new AxeBuilder({ page }).setLegacyMode(true).include('[data-testid=response-attention]').withRules(['color-contrast']).analyze();
    expect(contrast.violations.flatMap((v) => v.nodes.map((n) => n.target.join(' ')))).toEqual([]);
  }

  // In French, switched on the same page: the run does not depend on the language, so the
  // transformer's answer is not computed a second time.
  await page.getByLabel(MESSAGES.en.language).selectOption('fr');
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  await expect(page.getByTestId('response-tokens-model')).toHaveText('(transformeur entraîné)');
  await expect(page.getByTestId('response-attention').getByTestId('attention-row').nth(1)).toContainText(/\d+\s?% depuis les pages du client delta \(surtout la page #[\d\s\u202f]+\)/);
  await expect(page.getByTestId('response-attention')).toContainText('Où est allée l’attention de chaque mot');
});

test('the demo keeps the compressed model, and says so where its answer is shown', async ({ page }) => {
  await page.goto('./?v=1&s=demo&req=8&view=response');
  await expect(page.getByTestId('response-tokens-model')).toHaveText('(compressed model)', { timeout: 90_000 });
  await expect(page.getByTestId('response-attention')).toHaveCount(0);
});
