import { expect, settled, test } from './fixtures.ts';

/**
 * The first screen (`/`, no parameters): it says at its top what happened and where (GLM 5.3 on
 * Workers AI, F1, then the count, F2); the handoff's steps are listed beside the stage, the current
 * one marked by more than colour, a click on one seeking the stage to it; on a phone the stage begins
 * on the first screen. Screenshots go to SHOTS_DIR when it is set. Places and screenshots are taken
 * once the page is at rest.
 */

const SHOTS = process.env.SHOTS_DIR;

test('at 1280×720 the top names GLM 5.3 and Workers AI with the fact\'s id, before the count', async ({ page }) => {
  await page.goto('./');
  const where = page.getByTestId('headline-where');
  await expect(where).toBeVisible({ timeout: 30_000 });
  await expect(where).toContainText('GLM 5.3');
  await expect(where).toContainText('Workers AI');
  await expect(where).toContainText("Cloudflare's infrastructure");
  await expect(where.locator('.badge')).toHaveText(/F1/);
  await settled(page);
  const box = (await where.boundingBox())!;
  expect(box.y + box.height).toBeLessThan(160);
  // The count follows it, with its own id.
  await expect(page.getByTestId('headline')).toContainText('155 affected responses');
});

test('the handoff\'s steps beside the stage: the current one marked (aria-current, bold and framed), a click seeks to it', async ({ page }) => {
  await page.goto('./');
  const stage = page.locator('.story-picture [data-testid=stage]');
  const list = page.getByTestId('story-steps');
  await expect(stage).toBeVisible({ timeout: 30_000 });
  await expect(list).toBeVisible();
  await settled(page);
  const label = (await page.locator('.story-picture [data-testid=stage-step-label]').textContent())!;
  const count = Number(/of (\d+)/.exec(label)![1]);
  await expect(list.locator('li')).toHaveCount(count);
  // Beside the picture: to its right, level with it, on the first screen.
  const s = (await stage.boundingBox())!;
  const l = (await list.boundingBox())!;
  expect(l.x).toBeGreaterThanOrEqual(s.x + s.width - 1);
  expect(l.y).toBeLessThan(s.y + s.height);
  expect(l.y).toBeLessThan(720);
  const current = list.locator('li[aria-current="step"]');
  await expect(current).toHaveCount(1);
  const index = await stage.getAttribute('data-step-index');
  expect(await current.evaluate((li) => [...li.parentElement!.children].indexOf(li))).toBe(Number(index));
  // The current step is in view in the list, above the sticky scrub bar.
  const bar = (await page.getByTestId('scrub-bar').boundingBox())!;
  const c = (await current.boundingBox())!;
  expect(c.y).toBeGreaterThanOrEqual(l.y - 1);
  expect(c.y + c.height).toBeLessThanOrEqual(bar.y);
  // Marked by more than colour: bold and framed, unlike the others.
  const look = (el: Element) => ({ weight: Number(getComputedStyle(el).fontWeight), outline: getComputedStyle(el).outlineStyle });
  expect(await current.evaluate(look)).toEqual({ weight: 700, outline: 'solid' });
  expect(await list.locator('li:not([aria-current])').first().evaluate(look)).toEqual({ weight: 400, outline: 'none' });
  // A click on step 3 seeks the stage there, and the mark follows.
  await list.locator('li').nth(2).getByRole('button').click();
  await expect(stage).toHaveAttribute('data-step-index', '2');
  await expect(list.locator('li').nth(2)).toHaveAttribute('aria-current', 'step');
  await expect(list.locator('li[aria-current="step"]')).toHaveCount(1);
  await settled(page);
  // The Transfer view lists the same steps (one list, the moment's).
  const texts = await list.locator('li').allTextContents();
  await page.getByRole('tab', { name: 'Transfer' }).click();
  await expect(page.locator('.transfer-view ol.steps li')).toHaveText(texts);
  if (SHOTS) {
    await page.goto('./');
    await expect(stage).toBeVisible({ timeout: 30_000 });
    await settled(page);
    await page.screenshot({ path: `${SHOTS}/first-screen-light-1280x720.png` });
  }
});

for (const lang of ['en', 'fr'] as const) {
  test(`at 1280×720 the handoff starts at its beginning and is whole in view at every step, its answer included (${lang})`, async ({ page }) => {
    test.setTimeout(120_000);
    await page.goto(lang === 'en' ? './' : './?lang=fr');
    const stage = page.locator('.story-picture [data-testid=stage]');
    await expect(stage).toBeVisible({ timeout: 30_000 });
    // The beginning: step 1, paused, nothing answered yet.
    await expect(stage).toHaveAttribute('data-step-index', '0');
    await expect(page.getByTestId('handoff-play')).toHaveAttribute('aria-label', /Play|Lire/);
    await expect(page.getByTestId('story-when')).toHaveAttribute('data-phase', 'in-flight');
    const steps = page.getByTestId('story-steps').locator('li');
    const count = await steps.count();
    expect(count).toBeGreaterThan(10);
    await settled(page);
    const bar = (await page.getByTestId('scrub-bar').boundingBox())!;
    // Each step's button clicked in the page itself (one call for all of them): once the stage shows
    // the step and the page is at rest, the flow (client to decode, the canvas its pools are drawn on)
    // and the answer (every chip written by this step, and the answer's heading) are measured.
    const seen = await page.evaluate(async (count) => {
      const frame = () => new Promise((r) => requestAnimationFrame(r));
      const stage = document.querySelector('.story-picture [data-testid=stage]')!;
      const out: { step: string | null; boxes: DOMRect[]; scrollY: number }[] = [];
      for (let i = 0; i < count; i++) {
        document.querySelectorAll<HTMLElement>('[data-testid="story-steps"] li')[i]!.querySelector('button')!.click();
        while (stage.getAttribute('data-step-index') !== String(i) || document.documentElement.dataset.settled !== 'true') await frame();
        const parts = [...document.querySelectorAll('[data-testid="stage-canvas-main"]'), stage.querySelector('.hp-response > text'), ...stage.querySelectorAll('.hp-token')];
        out.push({ step: stage.getAttribute('data-step-index'), boxes: parts.flatMap((p) => (p ? [p.getBoundingClientRect().toJSON() as DOMRect] : [])), scrollY: window.scrollY });
      }
      return out;
    }, count);
    for (const [i, at] of seen.entries()) {
      expect(at.step).toBe(String(i));
      for (const box of at.boxes) {
        expect(box.top, `step ${i + 1}: below the top`).toBeGreaterThanOrEqual(0);
        expect(box.bottom, `step ${i + 1}: above the sticky bar`).toBeLessThanOrEqual(bar.y);
      }
      expect(at.scrollY, `step ${i + 1}: nothing scrolled`).toBe(0);
    }
    // The last step written every chip of the answer: all of them were checked in view.
    expect(await stage.locator('.hp-token').count()).toBeGreaterThan(0);
  });
}

test.describe('dark', () => {
  test.use({ colorScheme: 'dark' });
  test('the first screen in the dark scheme (screenshot)', async ({ page }) => {
    test.skip(!SHOTS, 'screenshots only');
    await page.goto('./');
    await expect(page.locator('.story-picture [data-testid=stage]')).toBeVisible({ timeout: 30_000 });
    await settled(page);
    await page.screenshot({ path: `${SHOTS}/first-screen-dark-1280x720.png` });
  });
});

test.describe('a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  test('on a phone the stage begins on the first screen, the steps under it', async ({ page }) => {
    await page.goto('./');
    const stage = page.locator('.story-picture .stage-view');
    await expect(page.locator('.story-picture [data-testid=stage]')).toBeVisible({ timeout: 30_000 });
    await settled(page);
    const s = (await stage.boundingBox())!;
    expect(s.y).toBeLessThan(844 * 0.6);
    const l = (await page.getByTestId('story-steps').boundingBox())!;
    expect(l.y).toBeGreaterThan(s.y);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/first-screen-phone-390x844.png` });
  });
});
