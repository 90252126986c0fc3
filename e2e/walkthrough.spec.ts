import type { Page } from '@playwright/test';
import { MESSAGES, pick } from '../src/app/i18n/messages.ts';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { shownTitle } from '../src/app/walkthrough/chapters/spoilers.ts';
import { expect, ready, settled as atRest, test } from './fixtures.ts';

const panel = (page: Page) => page.getByTestId('walkthrough');

/** Where a test's fake clock starts: any fixed instant (the page shows the incident's dates, never today's). */
const CLOCK_START = new Date('2025-01-06T09:00:00Z').getTime();

/** Waits until the chapter's steps have run to its checkpoint or its end. */
async function settled(page: Page, n: number) {
  // The walkthrough's code loads after the page (seconds on a busy machine).
  await expect(panel(page)).toHaveAttribute('data-chapter', String(n), { timeout: 90_000 });
  // Chapters on the incident window wait for its replay in the browser: seconds, more on a busy machine.
  await expect(panel(page)).toHaveAttribute('data-status', /^(checkpoint|done)$/, { timeout: 90_000 });
}

test.describe('walkthrough', () => {
  for (const lang of ['en', 'fr'] as const) {
    test(`every chapter by keyboard alone (${lang})`, async ({ page }) => {
      test.setTimeout(180_000);
      // Reduced motion: the chapters land in their final state at once, as with "skip animations".
      await page.emulateMedia({ reducedMotion: 'reduce' });
      await page.goto(`./?lang=${lang}`);
      await ready(page);
      // From the top of the page, Tab to the walkthrough button: the header's first control, after
      // the skip link and the headline's fact badges.
      for (let i = 0; i < 8; i++) {
        await page.keyboard.press('Tab');
        if (await page.getByTestId('walkthrough-toggle').evaluate((el) => el === document.activeElement)) break;
      }
      await expect(page.getByTestId('walkthrough-toggle')).toBeFocused();
      await page.keyboard.press('Enter');
      await expect(page.getByTestId('walk-skip')).toHaveAttribute('aria-pressed', 'true');
      for (let n = 1; n <= CHAPTERS.length; n++) {
        const ch = CHAPTERS[n - 1]!;
        await settled(page, n);
        // Its question not yet revealed (the ones before it are): a title that would answer it waits.
        const title = shownTitle(n, (k) => k < n);
        await expect(page.getByRole('region', { name: pick(lang, title.en, title.fr) })).toBeVisible();
        await expect(page.locator('html')).toHaveAttribute('lang', lang);
        expect(new URL(page.url()).searchParams.get('ch')).toBe(String(n));
        if (ch.checkpoint) {
          await expect(panel(page)).toHaveAttribute('data-status', 'checkpoint');
          if (lang === 'en') {
            // Answer with the option's number key.
            const i = ch.checkpoint.options.findIndex((o) => o.id === ch.checkpoint!.answer);
            await page.keyboard.press(String(i + 1));
            await expect(page.getByTestId('checkpoint-result')).toHaveAttribute('data-correct', 'true');
          } else {
            // A clicker: the first press points at the question, the second reveals without an answer.
            await page.keyboard.press('PageDown');
            await expect(panel(page)).toHaveAttribute('data-status', 'checkpoint');
            await page.keyboard.press('PageDown');
            await expect(page.getByTestId('checkpoint-result')).toContainText('Révélée sans réponse');
          }
          await expect(panel(page)).toHaveAttribute('data-status', 'done');
        }
        if (n < CHAPTERS.length) await page.keyboard.press(lang === 'en' ? 'ArrowRight' : 'PageDown');
      }
      // Back through every chapter to the first.
      for (let n = CHAPTERS.length; n > 1; n--) await page.keyboard.press(lang === 'en' ? 'ArrowLeft' : 'PageUp');
      await settled(page, 1);
    });
  }

  test('a checkpoint waits for an answer before revealing', async ({ page }) => {
    test.setTimeout(120_000);
    // The page's time is Playwright's clock (flowing as usual, but moved on by the test at will).
    await page.clock.install();
    await page.goto('./?ch=6');
    await settled(page, 6);
    await expect(panel(page)).toHaveAttribute('data-status', 'checkpoint');
    // Nothing moves on by itself: the response view is not shown until the room has answered
    // (a second and a half of the page's time, every frame of it run).
    await page.clock.runFor(1500);
    await expect(panel(page)).toHaveAttribute('data-status', 'checkpoint');
    await expect(page.getByRole('tab', { name: 'Stage' })).toHaveAttribute('aria-selected', 'true');
    // The story beside the question holds back whose words the answer carries, and its status.
    await expect(page.getByTestId('story-held')).toBeVisible();
    await expect(page.getByTestId('story-leak')).toHaveCount(0);
    await expect(page.getByTestId('story-status')).toHaveCount(0);
    // So does the panel: the paragraph saying the response was composed from the mixture, and its source.
    const text = panel(page).locator('.walk-text');
    await expect(page.getByTestId('walk-held')).toHaveCount(1);
    await expect(text).not.toContainText('mixture');
    await expect(panel(page).locator('.walk-sources li[data-fact="F21"]')).toHaveCount(0);
    // The tagline asks while a question waits: it would answer it.
    await expect(page.getByTestId('tagline')).toHaveText(MESSAGES.en.taglineAsked);
    // Next does not leave: it points at the question.
    await page.getByTestId('walk-next').click();
    await expect(panel(page)).toHaveAttribute('data-chapter', '6');
    await expect(page.getByTestId('checkpoint')).toContainText('press Next again to reveal');
    // Checking with no choice asks for one.
    await page.getByTestId('checkpoint-submit').click();
    await expect(page.getByTestId('checkpoint')).toContainText('Choose an answer first');
    await page.getByRole('radio', { name: /Only delta/ }).check();
    await page.getByTestId('checkpoint-submit').click();
    await expect(page.getByTestId('checkpoint-result')).toHaveAttribute('data-correct', 'false');
    await expect(page.getByTestId('checkpoint-result')).toContainText("Acme's and borealis's");
    // The reveal plays (the scan, the token stream and the status on the handoff clock, about 20 s at
    // a viewer's pace), then the response with other tenants' words: the page's clock moved on a
    // second at a time, as a machine too busy for more than a frame a second would play it.
    for (let s = 0; s < 60 && (await panel(page).getAttribute('data-status')) !== 'done'; s++) await page.clock.fastForward(1000);
    await expect(panel(page)).toHaveAttribute('data-status', 'done');
    await expect(page.getByRole('tab', { name: 'Response' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByTestId('response-leak')).toContainText('Leaked: data of acme, borealis ·');
    await expect(page.getByTestId('story-held')).toHaveCount(0);
    await expect(page.getByTestId('story-leak')).toContainText('Leaked: data of acme, borealis');
    await expect(page.getByTestId('walk-held')).toHaveCount(0);
    await expect(text).toContainText('mixture');
    await expect(panel(page).locator('.walk-sources li[data-fact="F21"]')).toHaveCount(1);
    await expect(page.getByTestId('tagline')).toHaveText(MESSAGES.en.tagline);
  });

  // The one test of a chapter playing in real time (the others skip animations or move the clock).
  test('a chapter can be left in the middle of its animation', async ({ page }) => {
    await page.clock.install();
    await page.goto('./?ch=1');
    await ready(page);
    await expect(panel(page)).toHaveAttribute('data-status', 'running');
    await page.getByTestId('walk-next').click();
    await settled(page, 2);
    // Chapter 1's tween stopped: the scrubber sits where chapter 2 put it (the third tenant's first
    // request reaching decode, 7.76 s into the demo) and stays there.
    await expect(page.getByTestId('scrubber')).toHaveAttribute('aria-valuenow', '7760');
    // A second of the page's time, every frame of it run.
    await page.clock.runFor(1000);
    await expect(page.getByTestId('scrubber')).toHaveAttribute('aria-valuenow', '7760');
    // Back and forth through history steps between chapters.
    await page.goBack();
    await settled(page, 1);
  });

  test('skip animations lands a chapter in its final state at once', async ({ page }) => {
    await page.clock.install({ time: CLOCK_START });
    await page.goto('./?ch=5');
    await expect(panel(page)).toHaveAttribute('data-status', 'running', { timeout: 90_000 });
    // The page's clock stands still until the button is pressed: however slow the machine, the
    // chapter (19 s long) has not played on to its end by itself.
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1000);
    await expect(panel(page)).toHaveAttribute('data-status', 'running');
    await page.getByTestId('walk-skip').click();
    await page.clock.resume();
    await settled(page, 5);
    await expect(page.getByTestId('walk-caption')).toContainText('RDMA writes one page');
    // The demo run and the request's details come from the engine worker: allow for a busy machine.
    await expect(page.getByTestId('stage-step-label')).toHaveText('Step 10 of 15', { timeout: 30_000 });
    await expect(page.getByTestId('stage')).toHaveAttribute('data-step', 'done');
  });

  test('presenter mode: large type, blank screen, notes, clicker keys', async ({ page }) => {
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.goto('./?ch=3&pm=1&lang=fr');
    await settled(page, 3);
    await expect(page.locator('html')).toHaveClass(/presenter/);
    const size = await page.getByRole('heading', { level: 2, name: pick('fr', CHAPTERS[2]!.title.en, CHAPTERS[2]!.title.fr) }).evaluate((el) => parseFloat(getComputedStyle(el).fontSize));
    expect(size).toBeGreaterThanOrEqual(26); // 1.3rem outside presenter mode
    await page.keyboard.press('b');
    await expect(page.getByTestId('walk-blank')).toBeVisible();
    // While blank, the clicker does not move the story on.
    await page.keyboard.press('PageDown');
    await expect(panel(page)).toHaveAttribute('data-chapter', '3');
    await page.keyboard.press('b');
    await expect(page.getByTestId('walk-blank')).toHaveCount(0);
    await page.keyboard.press('n');
    await expect(page.getByTestId('speaker-notes')).toContainText('Basculer l\u2019interrupteur');
    await page.keyboard.press('PageDown');
    await settled(page, 4);
    await expect(page.getByTestId('speaker-notes')).toContainText('jeton provisoire');
    expect(new URL(page.url()).searchParams.get('pm')).toBe('1');
    // The notes open in a second window too, and follow the chapter.
    const popupPromise = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Notes dans une seconde fenêtre' }).click();
    const popup = await popupPromise;
    await expect(popup.getByTestId('speaker-notes')).toContainText('jeton provisoire');
    await page.keyboard.press('PageUp');
    await expect(popup.getByTestId('speaker-notes')).toContainText('Basculer l\u2019interrupteur');
  });

  test('a presenter who clicked an option reveals with it on Next', async ({ page }) => {
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await page.goto('./?ch=2');
    await settled(page, 2);
    await page.getByTestId('checkpoint').getByRole('radio').nth(1).check();
    await page.keyboard.press('PageDown');
    await page.keyboard.press('PageDown');
    await expect(page.getByTestId('checkpoint-result')).toHaveAttribute('data-correct', 'true');
  });
});
