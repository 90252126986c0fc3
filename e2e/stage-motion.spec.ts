import type { Page } from '@playwright/test';
import { expect, ready, settled, test } from './fixtures.ts';
import { pixelDifference } from './pixels.ts';

const hook = (page: Page, h: number) => page.evaluate((x) => (window as unknown as { __stalePages: { handoff: (h: number) => void } }).__stalePages.handoff(x), h);

/** The stage's steps as its scrubber lays them out (seconds on the handoff clock). */
async function steps(page: Page) {
  return page.locator('.hc-seg').evaluateAll((els) => els.map((e) => ({ id: (e as HTMLElement).dataset.step!, at: Number((e as HTMLElement).dataset.at), dur: Number((e as HTMLElement).dataset.dur) })));
}

/** The handoff clock put at `h` seconds, the stage showing it, the page at rest. */
async function seek(page: Page, h: number): Promise<void> {
  await hook(page, h);
  await expect(page.getByTestId('stage').first()).toHaveAttribute('data-handoff', h.toFixed(2));
  await settled(page);
}

/** The picture at `h` seconds of the handoff clock, painted afresh. */
async function shot(page: Page, h: number): Promise<Buffer> {
  await seek(page, h);
  const el = page.getByTestId('stage-main').first();
  await el.evaluate(async (e: HTMLElement) => {
    const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    e.style.opacity = '0.99';
    await frames();
    e.style.opacity = '';
    await frames();
  });
  return el.screenshot();
}

/**
 * Every step moves: at 1× the handoff clock's seconds are a viewer's, so two moments 0.5 s apart in the
 * middle of each step (where its easing moves fastest) are what a person sees in half a second. At
 * least 1 % of the picture's pixels must differ between them, on a laptop and a phone, light and dark.
 * Both moments are sought on the handoff clock (not played), each shot taken once the page is at rest.
 */
for (const { size, scheme } of [
  { size: { width: 1280, height: 900 }, scheme: 'light' as const },
  { size: { width: 1280, height: 900 }, scheme: 'dark' as const },
  { size: { width: 390, height: 1100 }, scheme: 'light' as const },
]) {
  test(`every step moves at least 1 % of the stage's pixels in 0.5 s at 1×, ${size.width} px wide, ${scheme}`, async ({ page }) => {
    test.setTimeout(240_000);
    await page.emulateMedia({ colorScheme: scheme });
    await page.setViewportSize(size);
    await page.goto('./?bench&h=0');
    await ready(page);
    await expect(page.getByTestId('stage-main').first()).toBeVisible({ timeout: 30_000 });
    await settled(page);
    // The sticky scrub bar can lie over the picture, at a place that depends on the scroll: out of the shots.
    await page.addStyleTag({ content: '.scrub-bar { visibility: hidden !important; }' });
    const list = await steps(page);
    expect(list.length).toBeGreaterThan(5);
    const still: string[] = [];
    for (const [i, s] of list.entries()) {
      const from = Math.round((s.at + s.dur / 2 - 0.25) * 100) / 100;
      const a = await shot(page, from);
      const b = await shot(page, Math.round((from + 0.5) * 100) / 100);
      const { differing, total } = await pixelDifference(page, a, b);
      const share = differing / total;
      if (share < 0.01) still.push(`step ${i + 1} (${s.id}): ${(100 * share).toFixed(3)} %`);
    }
    expect(still).toEqual([]);
  });
}

test('reuse names who claims the freed pages, and the microscope shows each page slot by slot: every slot a cell with its word', async ({ page }) => {
  await page.goto('./?bench&h=0');
  await ready(page);
  await expect(page.getByTestId('stage-main').first()).toBeVisible({ timeout: 30_000 });
  await settled(page);
  const list = await steps(page);
  const reuse = list.find((s) => s.id === 'reuse')!;
  const end = Math.round((reuse.at + reuse.dur - 0.01) * 100) / 100;
  await seek(page, end);
  // Before the next reservation, nobody is named; at its end, the new holder, from the engine's owner of the pages.
  const early = Math.round((reuse.at + 0.05) * 100) / 100;
  await seek(page, early);
  await expect(page.getByTestId('stage-claimed')).toHaveCount(0);
  await seek(page, end);
  await expect(page.getByTestId('stage-claimed').first()).toHaveText(/^claimed again by [a-z]+ \(q\d+\)$/);
  // Every slot of every page row a cell, its word and writer on hover.
  const rows = await page.locator('[data-testid="stage-microscope"] li[data-page]').count();
  expect(rows).toBeGreaterThan(0);
  const cells = page.getByTestId('stage-slot-cells').first().locator('rect');
  await expect(cells).toHaveCount(rows * 64);
  await expect(cells.first().locator('title')).toHaveText(/^slot 0: “.+”, written by /);
});
