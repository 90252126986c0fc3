import AxeBuilder from '@axe-core/playwright';
import type { Locator, Page } from '@playwright/test';
import { expect, test } from './fixtures.ts';

/**
 * The live screen layout (`?screen`): a person moves through a chapter with clicker keys. The page's
 * time is Playwright's clock, installed before the page loads: it flows as usual, and where a test
 * waits for the chapter to play on (to its question, a countdown's second) the test moves it on.
 */

/**
 * Plays the chapter on until `reached` holds, half a second of the page's clock at a time: its runs
 * are computed in real time meanwhile (workers), its beats take no real time. The assertions that
 * follow say what was to be reached.
 */
async function playUntil(page: Page, reached: () => Promise<boolean>): Promise<void> {
  while (!(await reached())) await page.clock.fastForward(500);
}

const shows = (target: Locator) => () => target.isVisible();
const says = (target: Locator, text: RegExp) => async () => text.test((await target.textContent().catch(() => null)) ?? '');

test('the screen layout plays a chapter live: keys step it, the predict beat counts down, the answer shows on a key, Escape returns to the page', async ({ page }) => {
  // An upper bound: a page load, a chapter's runs and an accessibility scan on a busy machine.
  test.setTimeout(120_000);
  await page.clock.install();
  await page.goto('?screen&ch=4');
  const live = page.getByTestId('screen-live');
  // The screen's code loads after the page (seconds on a busy machine).
  await expect(live).toHaveAttribute('data-scene', 'card', { timeout: 90_000 });
  await expect(page.locator('[data-card="chapter-4"]')).toBeVisible();
  // No app chrome: no play controls, no switch panel.
  await expect(page.getByTestId('scrubber')).toHaveCount(0);

  await page.keyboard.press('ArrowRight');
  await expect(live).toHaveAttribute('data-scene', 'body');
  const caption = page.getByTestId('screen-caption');
  await expect(caption).toHaveText(/800,000-token prompt arrives at the router/, { timeout: 30_000 });

  // The checkpoint: the question with a countdown from the frame clock.
  const predict = page.getByTestId('screen-predict');
  await playUntil(page, shows(predict));
  const countdown = predict.locator('.countdown-n');
  await expect(countdown).toBeVisible();
  const first = Number(await countdown.textContent());
  expect(first).toBeGreaterThan(0);
  // A second of the frame clock later, it counts less.
  await page.clock.fastForward(1000);
  await expect(countdown).not.toHaveText(String(first));
  await expect(predict.locator('li.right')).toHaveCount(0);

  // Next reveals the answer, in the panel and in the caption band.
  await page.keyboard.press('PageDown');
  await expect(predict.locator('li.right')).toHaveCount(1);
  await expect(predict.locator('.countdown')).toHaveCount(0);
  await expect(caption).toHaveAttribute('data-cue', /answer$/);
  // The answer stays up until the next key; then the runner resumes and the next caption follows.
  await expect(caption).toContainText('Answer:');
  await page.keyboard.press('ArrowRight');
  await expect(predict).toHaveCount(0);
  await playUntil(page, says(caption, /Marked aborted/));
  await expect(caption).toHaveText(/Marked aborted/);

  // B blanks the screen and B brings it back.
  await page.keyboard.press('b');
  await expect(page.getByTestId('screen-blank')).toBeVisible();
  await page.keyboard.press('b');
  await expect(page.getByTestId('screen-blank')).toHaveCount(0);

  // Back goes to the chapter's card; next plays it again.
  await page.keyboard.press('ArrowLeft');
  await expect(live).toHaveAttribute('data-scene', 'card');
  await page.keyboard.press(' ');
  await expect(live).toHaveAttribute('data-scene', 'body');

  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.length}`)).toEqual([]);

  await page.keyboard.press('Escape');
  await expect(live).toHaveCount(0);
  await expect(page.getByTestId('walkthrough')).toHaveAttribute('data-chapter', '4');
  expect(page.url()).not.toContain('screen=');
});

test('presenter mode offers the screen layout for the current chapter; French; chapter 10 shows the two outcomes', async ({ page }) => {
  // An upper bound: a page load, a chapter's runs and an accessibility scan on a busy machine.
  test.setTimeout(120_000);
  await page.goto('?ch=10&pm=1&lang=fr');
  const link = page.getByTestId('walk-screen-layout');
  await expect(link).toHaveText('Mise en page écran', { timeout: 90_000 });
  await expect(link).toHaveAttribute('href', /screen=1/);
  await expect(link).toHaveAttribute('href', /ch=10/);
  await link.click();
  const live = page.getByTestId('screen-live');
  await expect(live).toHaveAttribute('data-chapter', '10');
  await expect(page.locator('[data-card="chapter-10"]')).toContainText('Chapitre 10');
  await page.keyboard.press('ArrowRight');
  await expect(page.getByTestId('screen-caption')).toContainText('HTTP 500', { timeout: 30_000 });
  // The picture shows what the caption says: the selected request answered with a leak, and stopped with the check.
  await expect(page.getByTestId('screen-outcome-actual')).toHaveAttribute('data-status', '200', { timeout: 30_000 });
  await expect(page.getByTestId('screen-outcome-actual')).toContainText('réponse tirée du KV d’acme, borealis');
  await expect(page.getByTestId('screen-outcome-fixed')).toHaveAttribute('data-status', '500');
  await expect(page.getByTestId('screen-outcome-fixed')).toContainText('contrôle d’intégrité à chaque lecture');
  await expect(page.getByTestId('screen')).toHaveAttribute('lang', 'fr');
  const results = await new AxeBuilder({ page }).analyze();
  expect(results.violations.map((v) => `${v.id}: ${v.nodes.length}`)).toEqual([]);
  await page.keyboard.press('Escape');
  await expect(page.getByTestId('walkthrough')).toBeVisible();
});

test('the answer\'s reveal plays the steps after the checkpoint, as the video does: the answer is said over the picture it describes', async ({ page }) => {
  // An upper bound: a page load and a chapter's runs on a busy machine.
  test.setTimeout(120_000);
  await page.clock.install();
  await page.goto('?screen&ch=9');
  const live = page.getByTestId('screen-live');
  await expect(live).toHaveAttribute('data-scene', 'card', { timeout: 90_000 });
  await page.keyboard.press('ArrowRight');
  const predict = page.getByTestId('screen-predict');
  await playUntil(page, shows(predict));
  const screen = page.getByTestId('screen');
  const fixes = page.locator('.screen-situation .sw.fix');
  // The question is asked over the incident as it happened: no mitigation on, nothing pointed at.
  await expect(fixes).toHaveCount(0);
  await expect(screen).toHaveAttribute('data-highlight', '');

  // The reveal: freed pages are cleared and the case asked about plays on the stage (the same handoff
  // over zeroed pages) while the answer is up.
  await page.keyboard.press('3');
  const caption = page.getByTestId('screen-caption');
  await expect(caption).toHaveAttribute('data-cue', /answer$/);
  await expect(predict.locator('li.right')).toHaveCount(1);
  await expect(fixes).toHaveCount(1);
  await expect(fixes).toContainText('Clear pages on free', { ignoreCase: true });
  await expect(screen).toHaveAttribute('data-highlight', 'stage');
  await expect(page.locator('.screen [data-hl="stage"]')).toBeVisible({ timeout: 30_000 });

  // The next key resumes the runner after them: the same case, the chapter's next caption, and the
  // response it ends in pointed at.
  await page.keyboard.press('ArrowRight');
  await playUntil(page, says(caption, /Pages cleared on free/));
  await expect(caption).toHaveText(/Pages cleared on free/);
  await expect(fixes).toHaveCount(1);
  await playUntil(page, async () => (await screen.getAttribute('data-highlight')) === 'response-leak');
  await expect(screen).toHaveAttribute('data-highlight', 'response-leak');
  await expect(page.locator('.screen [data-hl="response-leak"]')).toBeVisible({ timeout: 30_000 });
});
