import type { Page } from '@playwright/test';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { expect, ready, settled, test } from './fixtures.ts';
import { inRoom, open, ROOM } from './roomHarness.ts';

/**
 * The inner loop's three smoke tests (`npm run test:quick`, the Playwright project `smoke`): the first
 * screen, the walkthrough and a workshop room each work end to end. Everything here is also checked,
 * more thoroughly, by the full suite (`npm test`), which does not run this file.
 */

const panel = (page: Page) => page.getByTestId('walkthrough');

test('the first screen tells the leak and comes to rest', async ({ page }) => {
  await page.goto('./');
  await ready(page);
  await expect(page.getByTestId('story-numbers')).toHaveAttribute('data-outcome', 'leaked');
  await expect(page.getByTestId('story-status')).toHaveText('200');
  await settled(page);
  // The handoff starts at its beginning: nothing counted yet.
  await expect(page.getByTestId('leaks-so-far')).toHaveAttribute('data-count', '0');
});

test('the walkthrough: a chapter to its end, Next, a question answered by key, revealed', async ({ page }) => {
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.goto('./?ch=1');
  await expect(panel(page)).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
  await page.getByTestId('walk-next').click();
  await expect(panel(page)).toHaveAttribute('data-chapter', '2');
  await expect(panel(page)).toHaveAttribute('data-status', 'checkpoint', { timeout: 60_000 });
  const q = CHAPTERS[1]!.checkpoint!;
  await page.keyboard.press(String(q.options.findIndex((o) => o.id === q.answer) + 1));
  await expect(panel(page)).toHaveAttribute('data-status', 'done', { timeout: 60_000 });
  await expect(panel(page).getByTestId('checkpoint-result')).toHaveAttribute('data-correct', 'true');
  await settled(page);
});

test('a room: a phone follows the presenter to a question, answers, and sees the reveal', async ({ browser }) => {
  await inRoom(async ({ base, key, people }) => {
    const phone = await open(browser, base, `./?room=${ROOM}`, 'phone', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    people.push(phone);
    const presenter = await open(browser, base, `./?room=${ROOM}&ch=2#key=${key()}`, 'presenter', { reducedMotion: 'reduce' });
    people.push(presenter);
    await expect(panel(presenter.page)).toHaveAttribute('data-status', 'checkpoint', { timeout: 60_000 });
    const question = panel(phone.page).getByTestId('room-question');
    await expect(panel(phone.page)).toHaveAttribute('data-chapter', '2', { timeout: 30_000 });
    await expect(question).toHaveAttribute('data-open', 'true', { timeout: 30_000 });
    await question.getByTestId('room-option').first().tap();
    await expect(question).toHaveAttribute('data-state', 'acked');
    await expect(panel(presenter.page).getByTestId('room-tally')).toHaveAttribute('data-count', '1');
    // Next points at the question, Next again reveals it.
    await presenter.page.getByTestId('walk-next').click();
    await presenter.page.getByTestId('walk-next').click();
    await expect(panel(phone.page).getByTestId('checkpoint-result')).toBeVisible();
    for (const p of people) expect(p.foreign, `${p.name}: requests to other origins`).toEqual([]);
  });
});
