import AxeBuilder from '@axe-core/playwright';
import { expect, settled, test } from './fixtures.ts';
import { smallestText } from './textSize.ts';

/**
 * No text on the first screen renders under 12 px at 1280×720, in English and French, light and
 * dark, and its text keeps its contrast in both themes, the stage's picture included (drawn in CSS
 * pixels of its own width). Nothing is left out.
 */
const STAGE: string[] = [];
const MIN_PX = 12;

/** Every text under `px`, one line per element and size (a token's tenant subscript repeats forty times). */
const lines = (under: { px: number; element: string; text: string }[]) => [...new Set(under.map((u) => `${u.px} px ${u.element}: "${u.text}"`))];

for (const lang of ['en', 'fr'] as const) {
  for (const colorScheme of ['light', 'dark'] as const) {
    test(`${lang}, ${colorScheme}: no text under ${MIN_PX} px on the first screen at 1280×720, and enough contrast`, async ({ page }) => {
      // A contrast pass of axe over the whole page, on two loaded cores.
      test.setTimeout(120_000);
      await page.emulateMedia({ colorScheme });
      await page.goto(lang === 'en' ? './' : './?lang=fr');
      await expect(page.getByTestId('story-tokens')).toBeVisible({ timeout: 90_000 });
      await expect(page.getByTestId('leaks-so-far')).toBeVisible();
      await expect(page.getByTestId('stage')).toBeVisible();
      // Measured once the page has come to rest (its fonts loaded, its lazy parts in place).
      await settled(page);
      const report = await smallestText(page, { exclude: STAGE, under: MIN_PX });
      console.log(`${lang} ${colorScheme}: smallest ${report.smallest?.px} px (${report.smallest?.element}: "${report.smallest?.text}") of ${report.count} texts`);
      expect(report.count).toBeGreaterThan(50);
      expect.soft(lines(report.under), `texts under ${MIN_PX} px`).toEqual([]);
      // Run in the page (legacy mode): the default opens a second, blank page to merge the results of
      // frames, which this page has none of, and that costs seconds on a loaded machine.
      const contrast = await new AxeBuilder({ page }).setLegacyMode(true).withRules(['color-contrast']).analyze();
      expect.soft(contrast.violations.flatMap((v) => v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(-1)[0] ?? ''}`))).toEqual([]);
      // The run's timeline below it (its head, chart labels and key), scrolled to the window's top.
      await page.locator('section.timeline').evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await expect(page.getByTestId('timeline-svg').locator('text').first()).toBeAttached();
      await settled(page);
      const below = await smallestText(page, { exclude: STAGE, under: MIN_PX });
      console.log(`${lang} ${colorScheme}, timeline: smallest ${below.smallest?.px} px (${below.smallest?.element}: "${below.smallest?.text}") of ${below.count} texts`);
      expect.soft(lines(below.under), `timeline texts under ${MIN_PX} px`).toEqual([]);
    });
  }
}

for (const lang of ['en', 'fr'] as const) {
  test(`${lang}: the stage in the screen layout (the projector and the video) has no text under 20 px`, async ({ page }) => {
    // Chapter 6's body by link, held at its beat 2: the stage mid-scan (decode reading the pages, the
    // microscope's slots lit), the screen's picture and caption at full size.
    await page.goto(`./?screen&ch=6&beat=2&pm=1${lang === 'fr' ? '&lang=fr' : ''}`);
    const picture = page.locator('.screen-picture .stage-view');
    await expect(page.getByTestId('screen-live')).toHaveAttribute('data-scene', 'body', { timeout: 90_000 });
    await expect(picture.getByTestId('stage-microscope')).toBeVisible({ timeout: 90_000 });
    await settled(page);
    const report = await smallestText(page, { within: '.screen-picture .stage-view', under: 20 });
    console.log(`${lang} screen stage: smallest ${report.smallest?.px} px (${report.smallest?.element}: "${report.smallest?.text}") of ${report.count} texts`);
    expect(report.count).toBeGreaterThan(10);
    expect(lines(report.under), 'stage texts under 20 px on the screen').toEqual([]);
  });
}
