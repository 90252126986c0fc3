/**
 * The outcome matrix as a workshop reads it: a grid of defect combinations × mitigations as the
 * registry declares them, each cell a link that sets its switches (mouse or keyboard), the current
 * switches' cell marked, axe-clean in light and dark, and on a phone a grid that scrolls in its
 * own box while the page does not. Screenshots go to test-results/workshop/matrix-*.png.
 *
 * The matrix is measured (a dozen runs in a worker) each time a page opens its section: the checks on
 * one page's matrix share that page, light then dark (the drawer is drawn by CSS, which follows the
 * colour scheme as it changes), each taken once the page is at rest (`settled`).
 */
import type { Locator, Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { DEFECT_COMBINATIONS, GRID_MITIGATIONS, MATRIX_ROWS, SWITCH_TEXT, switchSpec } from '../src/engine/index.ts';
import { expect as baseExpect, openExplore, ready, settled, test } from './fixtures.ts';

/** Upper bounds for a loaded machine: every wait is for a state the page declares. */
const expect = baseExpect.configure({ timeout: 60_000 });
const shots = 'test-results/workshop';

/** Opens the Explore drawer and the matrix in it, and waits for the matrix worker's rows. */
async function openMatrix(page: Page, summary = 'Outcome matrix') {
  await openExplore(page);
  const details = page.locator('details.matrix-section');
  if ((await details.getAttribute('open')) === null) await details.locator('summary', { hasText: summary }).click();
  await expect(page.getByTestId('matrix')).toBeVisible({ timeout: 90_000 });
  return page.getByTestId('matrix');
}

const cellLink = (page: Page, label: string) => page.locator(`[data-testid="matrix"] a[data-row="${label}"], [data-testid="matrix-other"] a[data-row="${label}"]`);
const rowOf = (combination: string, mitigation: string | null) => MATRIX_ROWS.find((r) => r.cell?.combination === combination && r.cell.mitigation === mitigation)!;

const SIZES = [
  { name: 'laptop', width: 1280, height: 720 },
  { name: 'phone', width: 390, height: 844 },
] as const;

/**
 * On the page as it stands, light then dark: (with `axe`) axe finds nothing in the Explore drawer, the
 * French labels where the page is French, and the pictures of the matrix's section and of the window.
 */
async function lightAndDark(page: Page, table: Locator, size: string, lang: 'en' | 'fr', { axe }: { axe: boolean }) {
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    // At rest: what axe reads and the pictures show is the drawer, not a moment of its loading.
    await settled(page);
    if (axe) {
      const results = await new AxeBuilder({ page }).include('[data-testid="explore"]').analyze();
      expect(results.violations.map((v) => `${colorScheme} ${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`)).toEqual([]);
    }
    if (lang === 'fr') {
      await expect(table.locator('thead th').nth(1)).toHaveText('Aucune protection');
      await expect(table.locator('.mx-mark.ok').first()).toHaveText('✓ attendu');
    }
    await page.locator('details.matrix-section').scrollIntoViewIfNeeded();
    await settled(page);
    await page.locator('details.matrix-section').screenshot({ path: `${shots}/matrix-${size}-${colorScheme}-${lang}.png` });
    await table.scrollIntoViewIfNeeded();
    await settled(page);
    await page.screenshot({ path: `${shots}/matrix-${size}-${colorScheme}-${lang}-viewport.png` });
  }
}

test.describe('the outcome matrix', () => {
  // Upper bounds for a loaded machine, where the matrix alone can take a minute.
  test.describe.configure({ timeout: 180_000 });

  test('is a grid of the registered defect combinations × mitigations, every cell measured and a link; axe-clean in light and dark (laptop pictures)', async ({ page }) => {
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto('./?s=demo');
    await ready(page);
    const table = await openMatrix(page);
    // Columns: the corner, no mitigation, then each mitigation of the registry's incident design, by its label.
    await expect(table.locator('thead th')).toHaveCount(2 + GRID_MITIGATIONS.length);
    for (const [i, key] of GRID_MITIGATIONS.entries()) await expect(table.locator('thead th').nth(2 + i)).toHaveText(SWITCH_TEXT[key].label.en);
    await expect(table.locator('tbody tr')).toHaveCount(DEFECT_COMBINATIONS.length);
    for (const [i, c] of DEFECT_COMBINATIONS.entries()) {
      const tr = table.locator('tbody tr').nth(i);
      await expect(tr.locator('th[scope="row"]')).toHaveText(new RegExp(`^${c.title.en}$`, 'i'));
      await expect(tr.locator('td')).toHaveCount(1 + GRID_MITIGATIONS.length);
      await expect(tr.locator('td a[data-testid="matrix-link"]')).toHaveCount(1 + GRID_MITIGATIONS.length);
    }
    await expect(table.locator('td.not-measured')).toHaveCount(0);
    // What a cell says is the engine's measurement: the incident leaks, the integrity check fails closed.
    await expect(cellLink(page, rowOf('both', null).label)).toContainText('4 × 200');
    await expect(cellLink(page, rowOf('both', null).label)).toContainText('4 leaked');
    await expect(cellLink(page, rowOf('both', 'perReadIntegrityCheck').label)).toContainText('4 × 500');
    await expect(cellLink(page, rowOf('both', 'perReadIntegrityCheck').label)).toContainText('no leak');
    await expect(cellLink(page, rowOf('gap-only', 'deploymentCapacityCheck').label)).toContainText('Deployment refused');
    // Every cell is as the registry expects, said in words and not only by colour.
    await expect(table.locator('.mx-mark.unexpected')).toHaveCount(0);
    await expect(table.locator('.mx-mark.ok').first()).toHaveText('✓ expected');
    // The rows the grid has no place for, grouped and labelled apart.
    const other = page.getByTestId('matrix-other');
    await expect(other.locator('tbody[data-group="abort-race"] th[scope="rowgroup"]')).toContainText('Abort race');
    await expect(other.locator('tbody[data-group="mechanisms"] tr')).toHaveCount(1 + MATRIX_ROWS.filter((r) => r.cell === null && r.design === 'incident').length);
    await lightAndDark(page, table, 'laptop', 'en', { axe: true });
  });

  test('marks the current cell; a click or Tab and Enter on a cell sets its switches, in the URL and the controls', async ({ page }) => {
    await page.goto('./?s=demo');
    await ready(page);
    const table = await openMatrix(page);
    // The page opens on the incident: both defects, no mitigation.
    const incident = cellLink(page, rowOf('both', null).label);
    await expect(table.locator('a[aria-current="true"]')).toHaveCount(1);
    await expect(incident).toHaveAttribute('aria-current', 'true');
    await expect(incident).toContainText(/current/i);

    // A click: capacity gap only, with the per-read integrity check.
    const target = rowOf('gap-only', 'perReadIntegrityCheck');
    await cellLink(page, target.label).click();
    await expect(cellLink(page, target.label)).toHaveAttribute('aria-current', 'true');
    await expect(incident).not.toHaveAttribute('aria-current', 'true');
    await expect.poll(() => new URL(page.url()).searchParams.get('d')).toBe('gap');
    expect(new URL(page.url()).searchParams.get('m')).toBe('integrity');
    await expect(page.locator('input[data-switch="buggyRejectPath"]')).not.toBeChecked();
    await expect(page.locator('input[data-switch="capacityGap"]')).toBeChecked();
    await expect(page.locator('input[data-switch="perReadIntegrityCheck"]')).toBeChecked();

    // The keyboard: Tab goes from cell to cell along a row, Enter sets that cell's switches.
    const first = rowOf('neither', null);
    await cellLink(page, first.label).focus();
    await page.keyboard.press('Tab');
    const next = rowOf('neither', GRID_MITIGATIONS[0]!);
    await expect(cellLink(page, next.label)).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(cellLink(page, next.label)).toHaveAttribute('aria-current', 'true');
    await expect.poll(() => new URL(page.url()).searchParams.get('d')).toBe('');
    expect(new URL(page.url()).searchParams.get('m')).toBe(switchSpec(GRID_MITIGATIONS[0]!).code);
    await expect(page.locator(`input[data-switch="${GRID_MITIGATIONS[0]}"]`)).toBeChecked();

    // A combination that is no cell (two mitigations) marks none, and says so.
    await page.locator('input[data-switch="transferredLengthCheck"]').check();
    await expect(table.locator('a[aria-current="true"]')).toHaveCount(0);
    await expect(page.getByTestId('matrix-no-current')).toBeVisible();

    // A cell's address is the URL codec's: opened in a new tab it shows the same switches.
    const href = await cellLink(page, rowOf('both', 'clearPagesOnFree').label).getAttribute('href');
    const url = new URL(href!, page.url());
    expect(url.searchParams.get('d')).toBe('gap,buggy');
    expect(url.searchParams.get('m')).toBe('clear');
  });

  test('on a phone the grid scrolls inside its own box and the page does not scroll sideways (phone pictures)', async ({ page }) => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.emulateMedia({ colorScheme: 'light' });
    await page.goto('./?s=demo');
    await ready(page);
    const table = await openMatrix(page);
    const box = page.locator('.matrix-scroll').first();
    await box.scrollIntoViewIfNeeded();
    // Measured at rest: a part still loading is not the page a phone keeps.
    await settled(page);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    const scroll = await box.evaluate((e) => ({ scrollWidth: e.scrollWidth, clientWidth: e.clientWidth }));
    expect(scroll.scrollWidth).toBeGreaterThan(scroll.clientWidth);
    // Scrolled to its far side the row headers stay beside the cells.
    await box.evaluate((e) => e.scrollTo({ left: e.scrollWidth }));
    const header = page.getByTestId('matrix').locator('tbody th[scope="row"]').first();
    const boxLeft = (await box.boundingBox())!.x;
    expect(Math.abs((await header.boundingBox())!.x - boxLeft)).toBeLessThanOrEqual(2);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    // The pictures show the grid from its start, as a phone opens it.
    await box.evaluate((e) => e.scrollTo({ left: 0 }));
    await lightAndDark(page, table, 'phone', 'en', { axe: false });
  });

  for (const size of SIZES) {
    test(`in French, light and dark (${size.name} pictures)`, async ({ page }) => {
      await page.setViewportSize({ width: size.width, height: size.height });
      await page.emulateMedia({ colorScheme: 'light' });
      await page.goto('./?s=demo&lang=fr');
      await ready(page);
      const table = await openMatrix(page, 'Tableau des issues');
      await lightAndDark(page, table, size.name, 'fr', { axe: false });
    });
  }
});
