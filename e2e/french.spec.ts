import { MESSAGES } from '../src/app/i18n/messages.ts';
import { expect, openExplore, ready, settled, test } from './fixtures.ts';
import { expectFrench } from './frenchText.ts';

const EN = MESSAGES.en;
const FR = MESSAGES.fr;

/**
 * The French page, view by view (what French means: frenchText.ts). Each view is read once the page
 * is at rest; views that one page reaches by its own controls (the demo's three views) share that
 * page. The walkthrough's chapters are read in French at their stop and once answered by the in-view
 * walk (inview.spec.ts), which stops at each.
 */

test.describe('the French page', () => {
  test.beforeEach(async ({ page }) => {
    await page.emulateMedia({ reducedMotion: 'reduce' });
  });

  test('the incident window: timeline, clock, controls, matrix and the evidence panel', async ({ page }) => {
    test.setTimeout(240_000);
    await page.goto('./?lang=fr&view=cluster');
    await expect(page.getByTestId('scrubber')).toBeVisible({ timeout: 90_000 });
    await ready(page);
    // The clock and every lane are the model's; the milestones of day-only facts are bands.
    await expect(page.locator('.scrub-bar-clock .badge.model')).toBeVisible();
    await expect(page.locator('[data-testid="timeline-svg"] g.lane[data-evidence="model"]')).toHaveCount(5);
    await expect(page.locator('[data-testid="timeline-svg"] g.day-band').first()).toBeAttached();
    await page.getByTestId('milestone-list').locator('summary').click();
    await openExplore(page);
    await page.locator('details.assumptions summary').click();
    await page.getByText('Tableau des issues', { exact: true }).click();
    // The matrix is measured once its section opens (a dozen runs in its worker, after the page's own).
    await expect(page.getByTestId('matrix')).toBeVisible({ timeout: 120_000 });
    await expect(page.getByTestId('evidence-panel')).toContainText('N9');
    // English titles quoted in French texts are marked as English; every assumption is listed by its id range.
    await expect(page.getByTestId('evidence-panel').locator('[lang="en"]', { hasText: 'Retire aborted disaggregated prefill results' }).first()).toBeAttached();
    await expect(page.getByTestId('evidence-panel')).toContainText('Les hypothèses A1 à A15');
    await expect(page.getByTestId('evidence-panel')).not.toContainText('comble )');
    await settled(page);
    await expectFrench(page, 'incident, cluster view');
    // Every public source shown carries its address.
    for (const ref of await page.locator('[data-background]').all()) {
      await expect(ref.locator('a[href^="https://"]').first()).toBeAttached();
    }
  });

  test('the demo: the transfer view and the exhaustive check of the protocol, the response view and the decode backend panel, the cluster view with a page inspected', async ({ page }) => {
    // The exhaustive check and a decode, each in a worker, on two loaded cores.
    test.setTimeout(180_000);
    // One request selected (the over-long one, which the demo's first screen tells), its three views by their tabs.
    await page.goto('./?s=demo&view=transfer&req=8&lang=fr');
    await ready(page);
    await expect(page.getByTestId('computed-tokens')).toBeVisible();
    await settled(page);
    await expectFrench(page, 'transfer view');
    await page.getByTestId('protocol-check').locator('summary').click();
    await page.getByRole('button', { name: 'Lancer la vérification' }).click();
    await expect(page.getByTestId('verify-panel').locator('.vp-status')).toContainText('Terminé', { timeout: 60_000 });
    await page.getByRole('button', { name: /^Rejouer le contre-exemple de/ }).first().click();
    const forward = page.getByTestId('verify-panel').getByRole('button', { name: 'Étape suivante' });
    for (let i = 0; i < 13; i++) await forward.click();
    await expect(page.locator('.vp-violation')).toBeVisible();
    await settled(page);
    await expectFrench(page, 'transfer view, protocol check');

    await page.getByRole('tab', { name: FR.viewResponse }).click();
    await expect(page.getByTestId('response-tokens')).toBeVisible();
    await expect(page.getByTestId('response-model-note')).toContainText('F6');
    await expect(page.getByTestId('backend-running')).not.toHaveText(/démarrage/, { timeout: 30_000 });
    await page.getByRole('button', { name: /^Générer 24 jetons/ }).click();
    await expect(page.getByTestId('decode-result')).toBeVisible({ timeout: 60_000 });
    await settled(page);
    await expectFrench(page, 'response view and decode panel');

    await page.getByRole('tab', { name: FR.viewCluster }).click();
    await expect(page.getByTestId('inspector')).toBeVisible();
    await page.locator('canvas[data-node="decode-0"]').click({ position: { x: 10, y: 10 } });
    await expect(page.getByTestId('inspector-state')).toBeVisible();
    await settled(page);
    await expectFrench(page, 'demo, cluster view');
  });
});

test('switching to French live fetches the French text then, and the page reads French', async ({ page }) => {
  const scripts: string[] = [];
  page.on('request', (r) => {
    if (r.url().endsWith('.js')) scripts.push(new URL(r.url()).pathname);
  });
  await page.goto('./');
  await ready(page);
  await expect(page.locator('.tagline')).toHaveText(EN.tagline);
  // An English page has not asked for the French catalogue.
  const french = (s: string) => s.includes(FR.language);
  const before = await Promise.all(scripts.map((s) => page.evaluate(async (u) => (await fetch(u)).text(), s)));
  expect(before.some(french)).toBe(false);
  const count = scripts.length;
  await page.getByLabel(EN.language).selectOption('fr');
  await expect(page.locator('.tagline')).toHaveText(FR.tagline);
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  const after = await Promise.all(scripts.slice(count).map((s) => page.evaluate(async (u) => (await fetch(u)).text(), s)));
  expect(after.some(french)).toBe(true);
  await settled(page);
  await expectFrench(page, 'the first screen, switched live');
});
