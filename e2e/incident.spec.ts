import { expect, openExplore, test } from './fixtures.ts';

test.describe('the incident window', () => {
  test('the page opens on the replayed window: 155 leaks measured in the browser, facts cited, a leak in every view', async ({ page }) => {
    await page.goto('./?view=cluster');
    // The opening run comes from the build's prebuilt file (e2e/prebuilt.spec.ts: that, and the live replay).
    await expect(page.getByTestId('count-leaked')).toHaveText('155', { timeout: 90_000 });
    await expect(page.getByTestId('count-canary')).toHaveText('155');
    await expect(page.getByTestId('count-403')).not.toHaveText('0');

    // The headline is F2, from the facts file; its badge shows the French source sentence.
    await expect(page.locator('.headline')).toContainText('155 affected responses');
    await page.getByTestId('fact-F2').first().focus();
    await expect(page.getByTestId('fact-F2').first().getByRole('tooltip')).toContainText('155 réponses touchées entre le 27 août et le 9 septembre 2026');
    // Milestones on the timeline carry their fact ids: the report's minutes as lines, its days (F7) as bands.
    // At two weeks' scale 9 September's labels gather into "F… +n", whose tooltip names each of them.
    for (const id of ['F10', 'F11', 'F12', 'F13']) await expect(page.locator('g.milestones title', { hasText: id }).first()).toBeAttached();
    for (const id of ['F7', 'F8', 'F9', 'F10', 'F11', 'F12', 'F13']) await expect(page.locator('g.milestone-labels g', { hasText: id }).first()).toBeAttached();
    for (const id of ['F7', 'F8', 'F9']) await expect(page.locator('g.day-bands title', { hasText: id }).first()).toBeAttached();

    // Opened without a time, the page starts just after the first leaked response went out, request selected.
    await expect(page.getByTestId('scrubber')).toHaveAttribute('aria-valuetext', /Aug 2026/);
    await expect(page.locator('canvas[data-node="decode-0"]')).toBeVisible();
    await page.getByRole('tab', { name: 'Transfer' }).click();
    await expect(page.getByTestId('computed-tokens')).toHaveText('1');
    await expect(page.getByTestId('transfer-status')).toHaveText('200');
    await page.getByRole('tab', { name: 'Response' }).click();
    await expect(page.getByTestId('response-leak')).toContainText('Leaked: data of');

    // Jump through the violations: the last leak comes before the model went private (9 Sep 14:00).
    await page.getByTestId('next-violation').click();
    await expect(page.getByTestId('response-leak')).toContainText('Leaked');
    await page.getByTestId('scrubber').focus();
    await page.keyboard.press('End');
    await expect(page.getByTestId('scrubber')).toHaveAttribute('aria-valuetext', '10 Sep 2026 00:00:00 UTC'); // the window's end, exclusive

    // Assumptions are labelled as such, with their reason.
    await openExplore(page);
    await page.getByText('What is assumed').click();
    const a2 = page.locator('.assumptions li').getByTestId('assumption-A2');
    await a2.focus();
    await expect(a2.getByRole('tooltip')).toContainText('600 ordinary requests per day');
    // The volume it names is adjustable; the replay runs again at the new volume.
    await expect(page.getByTestId('traffic-volume')).toHaveValue('600');
  });

  test('the replay follows the switches: the fixed reject path answers 400 and nothing leaks', async ({ page }) => {
    await page.goto('./?d=gap');
    await expect(page.getByTestId('count-leaked')).toHaveText('0', { timeout: 90_000 });
    await expect(page.getByTestId('count-rejected')).not.toHaveText('0');
    await expect(page.getByTestId('first-violation')).toBeDisabled();
  });
});
