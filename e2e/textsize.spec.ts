import AxeBuilder from '@axe-core/playwright';
import { expect, test } from './fixtures.ts';
import { smallestText } from './textSize.ts';

/**
 * No text on the first screen renders under 12 px at 1280×720, in English and French, light and
 * dark, and its text keeps its contrast in both themes, the stage's picture included (drawn in CSS
 * pixels of its own width). Nothing is left out.
 */
const STAGE: string[] = [];
const MIN_PX = 12;

for (const lang of ['en', 'fr'] as const) {
  for (const colorScheme of ['light', 'dark'] as const) {
    test(`${lang}, ${colorScheme}: no text under ${MIN_PX} px on the first screen at 1280×720, and enough contrast`, async ({ page }) => {
      await page.emulateMedia({ colorScheme });
      await page.goto(lang === 'en' ? './' : './?lang=fr');
      await expect(page.getByTestId('story-tokens')).toBeVisible({ timeout: 60_000 });
      await expect(page.getByTestId('leaks-so-far')).toBeVisible();
      await expect(page.getByTestId('stage')).toBeVisible();
      await page.evaluate(() => document.fonts.ready.then(() => undefined));
      const report = await smallestText(page, { exclude: STAGE, under: MIN_PX });
      console.log(`${lang} ${colorScheme}: smallest ${report.smallest?.px} px (${report.smallest?.element}: "${report.smallest?.text}") of ${report.count} texts`);
      expect(report.count).toBeGreaterThan(50);
      // One line per element and size (a token's tenant subscript repeats forty times).
      expect.soft([...new Set(report.under.map((u) => `${u.px} px ${u.element}: "${u.text}"`))], `texts under ${MIN_PX} px`).toEqual([]);
      const contrast = await new AxeBuilder({ page }).withRules(['color-contrast']).analyze();
      expect.soft(contrast.violations.flatMap((v) => v.nodes.map((n) => `${n.target.join(' ')}: ${n.failureSummary?.split('\n').slice(-1)[0] ?? ''}`))).toEqual([]);
      // The run's timeline below it (its head, chart labels and key), scrolled to the window's top.
      await page.locator('section.timeline').evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await expect(page.getByTestId('timeline-svg').locator('text').first()).toBeAttached();
      const below = await smallestText(page, { exclude: STAGE, under: MIN_PX });
      console.log(`${lang} ${colorScheme}, timeline: smallest ${below.smallest?.px} px (${below.smallest?.element}: "${below.smallest?.text}") of ${below.count} texts`);
      expect.soft([...new Set(below.under.map((u) => `${u.px} px ${u.element}: "${u.text}"`))], `timeline texts under ${MIN_PX} px`).toEqual([]);
    });
  }
}

for (const lang of ['en', 'fr'] as const) {
  test(`${lang}: the stage in the screen layout (the projector and the video) has no text under 20 px`, async ({ page }) => {
    // Chapter 6 by link, then on past its card to the stage mid-scan.
    await page.goto(`./?screen&ch=6&pm=1${lang === 'fr' ? '&lang=fr' : ''}`);
    const picture = page.locator('.screen-picture .stage-view');
    for (let i = 0; i < 6 && !(await picture.isVisible()); i++) {
      await page.keyboard.press('ArrowRight');
      await page.waitForTimeout(400);
    }
    await expect(picture.getByTestId('stage-microscope')).toBeVisible({ timeout: 30_000 });
    await page.evaluate(() => document.fonts.ready.then(() => undefined));
    const report = await smallestText(page, { within: '.screen-picture .stage-view', under: 20 });
    console.log(`${lang} screen stage: smallest ${report.smallest?.px} px (${report.smallest?.element}: "${report.smallest?.text}") of ${report.count} texts`);
    expect(report.count).toBeGreaterThan(10);
    expect([...new Set(report.under.map((u) => `${u.px} px ${u.element}: "${u.text}"`))], 'stage texts under 20 px on the screen').toEqual([]);
  });
}
