import { writeFileSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { MESSAGES } from '../src/app/i18n/messages.ts';
import { scriptOf, timelineOf } from '../src/app/render/schedule.ts';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { beatsOf } from '../src/app/walkthrough/timeline.ts';
import { expect, ready, settled, test } from './fixtures.ts';

/** A chapter's beats (walkthrough/timeline.ts): ?ch=N&beat=K, the presenter's keys, the link notice. */

const panel = (page: Page) => page.getByTestId('walkthrough');

async function status(page: Page, n: number, st: RegExp) {
  // The walkthrough's code loads after the page (seconds on a busy machine).
  await expect(panel(page)).toHaveAttribute('data-chapter', String(n), { timeout: 90_000 });
  await expect(panel(page)).toHaveAttribute('data-status', st, { timeout: 90_000 });
}

/**
 * One picture of the viewport (or `clip`) once the page says it is at rest (state/settled.ts: runs
 * landed, grids drawn, the part pointed at brought into view), nothing focused, no pointer over it.
 * Wait for the state the action leads to (the beat, the status) first.
 */
async function picture(page: Page, clip?: { x: number; y: number; width: number; height: number }): Promise<Buffer> {
  await page.mouse.move(0, 719);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur?.());
  await settled(page);
  // Painted all afresh: a part repainted alone can differ in its last bit along an antialiased
  // edge from the same part painted whole (stage.spec.ts). The style it sets and takes back is a
  // change of the document, so the page is waited for at rest again before the one picture.
  await page.evaluate(async () => {
    const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    document.body.style.opacity = '0.99';
    await frames();
    document.body.style.opacity = '';
    await frames();
  });
  await settled(page);
  return page.screenshot({ clip, animations: 'disabled' });
}

test.describe('beats', () => {
  test.use({ reducedMotion: 'reduce' });

  test('a link to a chapter or beat there is not gets the link notice, not a chapter chosen for it', async ({ page }) => {
    const notices = page.getByTestId('notices');
    await page.goto('./?ch=99');
    await ready(page);
    await expect(notices).toContainText('ch=99');
    await expect(panel(page)).toHaveCount(0);
    expect(new URL(page.url()).searchParams.get('ch')).toBeNull();

    const last = beatsOf(CHAPTERS[2]!.steps).length - 1;
    await page.goto(`./?ch=3&beat=${last + 1}`);
    await expect(notices).toContainText(`beat=${last + 1}`);
    await status(page, 3, /^done$/);
    await expect(page).not.toHaveURL(/[?&]beat=/);

    // Malformed, or a beat without a chapter: the codec's notice.
    await page.goto('./?ch=x2');
    await expect(notices).toContainText('ch=x2');
    await page.goto('./?beat=2');
    await expect(notices).toContainText('beat=2');
    await expect(panel(page)).toHaveCount(0);
  });

  // Two tests (a beat, a stop), four page loads in all: workers share them.
  test('?ch=N&beat=K is the picture Next reaches, pixel for pixel (a beat: chapter 5, beat 3)', async ({ page }, testInfo) => {
    test.setTimeout(180_000);
    // Chapter 5 held at its fourth beat: by link, and from its first beat by Next three times.
    await page.goto('./?ch=5&beat=3');
    await status(page, 5, /^held$/);
    await expect(panel(page)).toHaveAttribute('data-beat', '3');
    const byLink = await picture(page);

    await page.goto('./?ch=5&beat=0');
    await status(page, 5, /^held$/);
    for (const key of ['PageDown', 'ArrowRight', ' ']) await page.keyboard.press(key);
    await expect(panel(page)).toHaveAttribute('data-beat', '3');
    await expect(page).toHaveURL(/[?&]beat=3(&|$)/);
    const byNext = await picture(page);
    writeFileSync(testInfo.outputPath('by-link.png'), byLink);
    writeFileSync(testInfo.outputPath('by-next.png'), byNext);
    expect(byNext.equals(byLink), 'chapter 5, beat 3: by link and by Next differ').toBe(true);
  });

  test('?ch=N&beat=K is the picture Next reaches, pixel for pixel (a stop: chapter 2\'s question)', async ({ page }, testInfo) => {
    test.setTimeout(180_000);
    // A chapter's stop (chapter 2's question) by link, and by Next from the chapter before.
    await page.goto('./?ch=2&beat=0');
    await status(page, 2, /^checkpoint$/);
    const stopByLink = await picture(page);
    await page.goto('./?ch=1');
    await status(page, 1, /^done$/);
    await page.keyboard.press('PageDown');
    await status(page, 2, /^checkpoint$/);
    const stopByNext = await picture(page);
    writeFileSync(testInfo.outputPath('stop-by-link.png'), stopByLink);
    writeFileSync(testInfo.outputPath('stop-by-next.png'), stopByNext);
    expect(stopByNext.equals(stopByLink), 'chapter 2, its question: by link and by Next differ').toBe(true);
  });

  test('held at a beat, Next steps beat by beat to the chapter\'s stop, which then plays as usual', async ({ page }) => {
    const beats = beatsOf(CHAPTERS[4]!.steps);
    await page.goto(`./?ch=5&beat=${beats.length - 3}`);
    await status(page, 5, /^held$/);
    await page.keyboard.press('PageDown');
    await expect(panel(page)).toHaveAttribute('data-beat', String(beats.length - 2));
    await page.keyboard.press('PageDown');
    await status(page, 5, /^done$/);
    await expect(page).not.toHaveURL(/[?&]beat=/);
  });

  test('a presenter\'s keys mean one thing wherever focus is; outside the walkthrough the slider keeps its own', async ({ page }) => {
    await page.goto('./?ch=1');
    await status(page, 1, /^done$/);
    // Focus on the timeline's slider: Page Down is next (the slider would move the time back).
    const scrubber = page.getByTestId('scrubber');
    await scrubber.focus();
    await page.keyboard.press('PageDown');
    await status(page, 2, /^checkpoint$/);
    await page.keyboard.press('PageUp');
    await status(page, 1, /^done$/);
    await scrubber.focus();
    await page.keyboard.press(' ');
    await status(page, 2, /^checkpoint$/);

    // The walkthrough closed: the slider's Page Up moves the time forward, as a slider's does.
    await page.goto('./?s=demo');
    await ready(page);
    await scrubber.focus();
    const before = Number(await scrubber.getAttribute('aria-valuenow'));
    await page.keyboard.press('PageUp');
    await expect.poll(async () => Number(await scrubber.getAttribute('aria-valuenow'))).toBeGreaterThan(before);
    expect(new URL(page.url()).searchParams.get('ch')).toBeNull();
  });

  test('the live screen at a beat and the video\'s frame at that beat are the same picture', async ({ page }, testInfo) => {
    test.setTimeout(180_000);
    const n = 5;
    const beat = 3;
    // The live screen layout, held at the beat.
    await page.goto(`./?screen&ch=${n}&beat=${beat}`);
    await expect(page.getByTestId('screen-live')).toHaveAttribute('data-scene', 'body', { timeout: 90_000 });
    // The runner held at the beat (its runs computed, the beat shown), as the link asks.
    await expect(page.getByTestId('screen-body')).toHaveAttribute('data-beat', String(beat), { timeout: 90_000 });
    await expect(page.getByTestId('screen-body')).toHaveAttribute('data-status', 'held');
    const box = page.locator('.screen-picture-box');
    await expect(box).toBeVisible();
    const clip = (await box.boundingBox())!;
    const live = await picture(page, clip);

    // The video's driver at the frame where that beat starts.
    const words = { chapter: MESSAGES.en.screenChapter, predict: MESSAGES.en.screenPredict, answer: MESSAGES.en.screenAnswer };
    const script = scriptOf([{ n, chapter: CHAPTERS[n - 1]! }], 'en', words, null, null);
    const timeline = timelineOf(script, [CHAPTERS[n - 1]!], { spokenMs: {} });
    await page.goto('./?screen=render&lang=en');
    await page.waitForFunction(() => !!(window as unknown as { __render?: unknown }).__render, null, { timeout: 60_000 });
    type Api = { load(t: unknown): Promise<unknown>; show(f: number): Promise<void>; frameOfBeat(c: number, b: number): number | null };
    await page.evaluate((tl) => (window as unknown as { __render: Api }).__render.load(tl), timeline as unknown);
    const frame = await page.evaluate(([c, b]) => (window as unknown as { __render: Api }).__render.frameOfBeat(c!, b!), [n, beat]);
    expect(frame).not.toBeNull();
    await page.evaluate((f) => (window as unknown as { __render: Api }).__render.show(f), frame!);
    await expect(page.locator('.screen-picture-box')).toBeVisible();
    const renderClip = (await page.locator('.screen-picture-box').boundingBox())!;
    expect(renderClip).toEqual(clip);
    const video = await page.screenshot({ clip, animations: 'disabled' });
    writeFileSync(testInfo.outputPath('live.png'), live);
    writeFileSync(testInfo.outputPath('video.png'), video);
    expect(video.equals(live), `chapter ${n}, beat ${beat}: the live screen and the video's frame differ`).toBe(true);
  });
});
