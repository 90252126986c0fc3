/**
 * Playback in real time, once per clock that plays: every other test seeks its clocks or drives them
 * with Playwright's, so these prove that the page's own frames move them (the walkthrough's chapter
 * playing in real time is `walkthrough.spec.ts`'s "left in the middle of its animation"). Each waits
 * for the clock to have moved, not for a set time, then pauses it and finds it held.
 */
import type { Locator, Page } from '@playwright/test';
import { expect, ready, settled, test } from './fixtures.ts';

const valueOf = async (slider: Locator) => Number(await slider.getAttribute('aria-valuenow'));

/** Play moves the slider on by itself; Pause holds it where it is, the page at rest. */
async function playsThenHolds(page: Page, slider: Locator, play: Locator) {
  const before = await valueOf(slider);
  await play.click();
  await expect.poll(() => valueOf(slider), { message: 'the clock moves on while playing' }).toBeGreaterThan(before);
  await play.click();
  await settled(page);
  const paused = await valueOf(slider);
  expect(paused).toBeGreaterThan(before);
  // Held: the next rest of the page (a few frames later) finds the same value.
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
  await settled(page);
  expect(await valueOf(slider)).toBe(paused);
}

test('the timeline\u2019s Play moves the incident\u2019s instant on in real time, and Pause holds it', async ({ page }) => {
  await page.goto('./?s=demo&t=0');
  await ready(page);
  const slider = page.getByRole('slider', { name: 'Simulated time (UTC)' });
  await playsThenHolds(page, slider, page.locator('section.timeline').getByRole('button', { name: /^(Play|Pause)$/ }));
});

test('the handoff\u2019s Play moves its clock on in real time, and Pause holds it', async ({ page }) => {
  await page.goto('./?s=demo&view=transfer&req=8&t=0');
  await ready(page);
  await playsThenHolds(page, page.getByTestId('handoff-scrubber'), page.getByTestId('handoff-play'));
});
