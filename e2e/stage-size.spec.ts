import type { Page } from '@playwright/test';
import { expect, ready, settled, test } from './fixtures.ts';

/**
 * The stage keeps its size: across every step of the handoff and on play and pause, the stage's box
 * (its controls, caption and picture) neither grows nor moves, at 1280×720 and on a phone, in English
 * and in French: the caption's lines and the controls' height are reserved. The steps are sought in
 * the page itself (each measured once the stage has committed it); the handoff plays on Playwright's
 * clock, for a set time whatever the machine's load.
 */
const hook = (page: Page, h: number) => page.evaluate((x) => (window as unknown as { __stalePages: { handoff: (h: number) => void } }).__stalePages.handoff(x), h);

async function boxes(page: Page) {
  return page.evaluate(() => {
    const r = (el: Element | null) => {
      const b = el?.getBoundingClientRect();
      return b ? { x: b.x, y: b.y + window.scrollY, w: b.width, h: b.height } : null;
    };
    // The stage's own box (its size) and where its picture sits in it: what lies above the stage on the
    // first screen (the story's sentences) is not the stage's.
    const view = r(document.querySelector('.stage-view'))!;
    const picture = r(document.querySelector('[data-testid="stage"]'))!;
    // Rounded after subtracting: the stage's top itself can sit at a fraction of a pixel.
    return { w: Math.round(view.w), h: Math.round(view.h), pictureTop: Math.round(picture.y - view.y), pictureH: Math.round(picture.h) };
  });
}

for (const size of [{ width: 1280, height: 720 }, { width: 390, height: 844 }]) {
  for (const lang of ['en', 'fr'] as const) {
    test(`the stage keeps its box through every step and on play and pause, ${size.width}×${size.height}, ${lang}`, async ({ page }) => {
      await page.setViewportSize(size);
      await page.clock.install();
      await page.goto(`./?bench&h=0${lang === 'fr' ? '&lang=fr' : ''}`);
      await ready(page);
      await expect(page.getByTestId('stage-main').first()).toBeVisible({ timeout: 30_000 });
      await settled(page);
      const steps = await page.locator('.hc-seg').evaluateAll((els) => els.map((e) => ({ id: (e as HTMLElement).dataset.step!, at: Number((e as HTMLElement).dataset.at), dur: Number((e as HTMLElement).dataset.dur) })));
      expect(steps.length).toBeGreaterThan(5);
      // The middle of every step, after its beginning: each box against the first.
      const seen = await page.evaluate(async (steps) => {
        const hook = (window as unknown as { __stalePages: { handoff: (h: number) => void } }).__stalePages;
        const at = async (h: number) => {
          hook.handoff(h);
          while (document.querySelector('[data-testid="stage"]')?.getAttribute('data-handoff') !== h.toFixed(2)) await new Promise((r) => requestAnimationFrame(r));
          const r = (el: Element | null) => {
            const b = el!.getBoundingClientRect();
            return { x: b.x, y: b.y + window.scrollY, w: b.width, h: b.height };
          };
          const view = r(document.querySelector('.stage-view'));
          const picture = r(document.querySelector('[data-testid="stage"]'));
          return JSON.stringify({ w: Math.round(view.w), h: Math.round(view.h), pictureTop: Math.round(picture.y - view.y), pictureH: Math.round(picture.h) });
        };
        const first = await at(0);
        const out: string[] = [];
        for (const s of steps) {
          const b = await at(Math.round((s.at + s.dur / 2) * 100) / 100);
          if (b !== first) out.push(`${s.id}: ${b} vs ${first}`);
        }
        return out;
      }, steps);
      // Play for 300 ms of the page's clock, then pause: the box while playing and once paused.
      await hook(page, steps[2]!.at);
      await expect(page.getByTestId('stage').first()).toHaveAttribute('data-handoff', steps[2]!.at.toFixed(2));
      await settled(page);
      const before = await boxes(page);
      await page.clock.pauseAt(await page.evaluate(() => Date.now() + 1000));
      await page.getByTestId('handoff-play').first().click();
      await page.clock.runFor(300);
      const playing = await boxes(page);
      await page.getByTestId('handoff-play').first().click();
      await page.clock.resume();
      await settled(page);
      const paused = await boxes(page);
      // It played: the handoff clock moved on from where it was put.
      expect(Number(await page.getByTestId('stage').first().getAttribute('data-handoff'))).toBeGreaterThan(steps[2]!.at);
      if (JSON.stringify(playing) !== JSON.stringify(before)) seen.push(`playing: ${JSON.stringify(playing)} vs ${JSON.stringify(before)}`);
      if (JSON.stringify(paused) !== JSON.stringify(before)) seen.push(`paused: ${JSON.stringify(paused)} vs ${JSON.stringify(before)}`);
      expect(seen).toEqual([]);
    });
  }
}
