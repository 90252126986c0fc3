import type { Page, Route } from '@playwright/test';
import { MESSAGES } from '../src/app/i18n/messages.ts';
import { expect, settled, test } from './fixtures.ts';
import { pixelDifference } from './pixels.ts';

/**
 * The page while its runs are held back (a slow network, a busy machine): it says it is preparing,
 * a press made meanwhile is kept and acts once ready, and what it then shows is what an unhindered
 * load shows. The runs are held by intercepting the prebuilt run files (the page's first run comes
 * from one) until the test lets them through. Pictures of each state go to test-results/preparing/.
 */
const en = MESSAGES.en;
const fr = MESSAGES.fr;
const SHOTS = 'test-results/preparing';

/** Holds every run file the page asks for until `release` is called. */
async function holdRuns(page: Page): Promise<() => void> {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route('**/runs/**', async (route: Route) => {
    await held;
    await route.continue();
  });
  return release;
}

/** A sentence as the page sets it: each space may be a no-break one (French typography). */
const spaced = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/[ \u00a0\u202f]/g, '[\\s\\u00a0\\u202f]')}$`);

/** The first screen's picture (story, stage and its steps) as a PNG. */
const storyShot = (page: Page) => page.getByTestId('story').screenshot({ animations: 'disabled' });

test.use({ reducedMotion: 'reduce' });

test('while the run is held back the first screen says it is preparing; Play pressed then plays once ready; the picture is then an unhindered load’s', async ({ page, context }) => {
  test.setTimeout(120_000);
  // 1. Held: the line where the picture will be, Play marked busy; a press is kept, and said to be.
  const release = await holdRuns(page);
  await page.goto('./');
  const preparing = page.getByTestId('handoff-preparing');
  await expect(preparing).toHaveAttribute('aria-busy', 'true');
  await expect(preparing).toContainText(en.hcPreparingRun);
  await expect(preparing).toContainText(en.hcPlayEarly);
  await expect(page.locator('html')).not.toHaveAttribute('data-settled', 'true');
  await page.screenshot({ path: `${SHOTS}/busy-en.png` });
  const play = page.getByTestId('handoff-play');
  await play.click();
  await expect(play).toHaveAttribute('aria-pressed', 'true');
  await expect(preparing).toContainText(en.hcPlayAsked);
  await page.screenshot({ path: `${SHOTS}/busy-play-pressed-en.png` });
  // 2. Released: the picture comes, and the kept press plays it (the button turns to Pause, the clock moves).
  release();
  await expect(page.getByTestId('stage').first()).toBeVisible({ timeout: 60_000 });
  await expect(play).toHaveAccessibleName(en.hcPause, { timeout: 60_000 });
  await expect(page.getByTestId('stage').first()).not.toHaveAttribute('data-handoff', '0.00');
  await play.click();
  await expect(play).not.toHaveAccessibleName(en.hcPause);

  // 3. A held load left alone, then released, is the same picture as an unhindered load, pixel for pixel.
  const held = await context.newPage();
  const releaseHeld = await holdRuns(held);
  await held.goto('./');
  await expect(held.getByTestId('handoff-preparing')).toBeVisible();
  releaseHeld();
  await expect(held.getByTestId('stage').first()).toBeVisible({ timeout: 60_000 });
  await settled(held);
  const afterHold = await storyShot(held);
  const free = await context.newPage();
  await free.goto('./');
  await expect(free.getByTestId('stage').first()).toBeVisible({ timeout: 60_000 });
  await settled(free);
  const unhindered = await storyShot(free);
  const { differing, total } = await pixelDifference(free, afterHold, unhindered);
  expect(total).toBeGreaterThan(100_000);
  expect(differing, 'pixels that differ between a held load and an unhindered one').toBe(0);
});

test('in the walkthrough, every press that waits or answers nothing says why: Next while a chapter prepares (kept, then pointing at its question), number keys with no question, an answered one, past the options; in English and French', async ({ page }) => {
  test.setTimeout(120_000);
  const release = await holdRuns(page);
  await page.goto('./?ch=2');
  const panel = page.getByTestId('walkthrough');
  const refusal = page.getByTestId('walk-refusal');
  await expect(panel).toHaveAttribute('data-chapter', '2', { timeout: 60_000 });
  await expect(panel).toHaveAttribute('data-status', 'running');
  // Next while the chapter's runs are computed: kept, and said to be.
  await page.keyboard.press('ArrowRight');
  await expect(refusal).toHaveText(en.walkWaitPreparing);
  await expect(panel).toHaveAttribute('data-chapter', '2');
  await page.screenshot({ path: `${SHOTS}/walk-next-preparing-en.png` });
  // Once ready, the kept press points at the question (never past it) and the line goes.
  release();
  await expect(panel).toHaveAttribute('data-status', 'checkpoint', { timeout: 60_000 });
  await expect(page.getByTestId('checkpoint').locator('legend')).toBeFocused();
  await expect(page.getByTestId('checkpoint')).toContainText(en.walkRevealHint);
  await expect(refusal).toHaveText('');
  await expect(panel).toHaveAttribute('data-chapter', '2');
  // A number past the question's options.
  const options = await page.getByTestId('checkpoint').locator('.option').count();
  await page.keyboard.press(String(options + 1));
  await expect(refusal).toHaveText(en.walkKeysRange.replaceAll('{n}', String(options)));
  await expect(page.getByTestId('checkpoint')).toHaveAttribute('data-answered', 'false');
  await page.screenshot({ path: `${SHOTS}/walk-key-range-en.png` });
  // Answered by its key; a key again says it is answered.
  await page.keyboard.press('1');
  await expect(page.getByTestId('checkpoint')).toHaveAttribute('data-answered', 'true');
  await page.keyboard.press('2');
  await expect(refusal).toHaveText(en.walkKeysAnswered);
  // Chapter 3 asks nothing: a number key says so, in the page's language as it changes.
  await page.keyboard.press('ArrowRight');
  await expect(panel).toHaveAttribute('data-chapter', '3');
  await expect(panel).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
  await expect(refusal).toHaveText('');
  await page.keyboard.press('1');
  await expect(refusal).toHaveText(en.walkKeysNoQuestion);
  await page.screenshot({ path: `${SHOTS}/walk-key-no-question-en.png` });
  await page.getByTestId('walk-lang').click();
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  // Once the French text has arrived (the page reads English until then); French spacing may be no-break.
  await expect(refusal).toHaveText(spaced(fr.walkKeysNoQuestion));
  await page.screenshot({ path: `${SHOTS}/walk-key-no-question-fr.png` });
});
