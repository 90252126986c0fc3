import type { Page } from '@playwright/test';
import { expect, ready, settled, test } from './fixtures.ts';

/**
 * The stage's labels and its size, on a laptop and a phone, in English and in French.
 *
 * No label of the stage's controls or its request card is cut or spills out: each segment's label of
 * the handoff scrubber fits its segment (no "ted: N", no "eserv") and sits over the playhead, and the
 * card's words stay inside the card, at every step, light and dark.
 *
 * The stage keeps its size: across every step of the handoff and on play and pause, the stage's box
 * (its controls, caption and picture) neither grows nor moves: the caption's lines and the controls'
 * height are reserved.
 *
 * One page per size and language: the scheme is switched in it; the instants are sought in the page
 * itself, each measured once the stage has committed it (its data-handoff says so); the handoff plays
 * on Playwright's clock, for a set time whatever the machine's load.
 */

const hook = (page: Page, h: number) => page.evaluate((x) => (window as unknown as { __stalePages: { handoff: (h: number) => void } }).__stalePages.handoff(x), h);

/** Every label problem at 5, 50 and 95 % of each step of the scrubber, sought in the page. */
async function labelProblemsThroughTheHandoff(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const hook = (window as unknown as { __stalePages: { handoff: (h: number) => void } }).__stalePages;
    const root = document.querySelector('.stage-view')!;
    const steps = [...root.querySelectorAll<HTMLElement>('.hc-seg')].map((e) => ({ id: e.dataset.step!, at: Number(e.dataset.at), dur: Number(e.dataset.dur) }));
    const found = new Set<string>();
    const problems = (): string[] => {
      const out: string[] = [];
      for (const el of root.querySelectorAll<HTMLElement>('.hc-seg-label, .hc-readout, .hc-play, .stage-caption')) {
        if (el.scrollWidth > el.clientWidth + 1) out.push(`${el.className} "${el.textContent}" is cut (${el.scrollWidth} > ${el.clientWidth})`);
        const parent = el.parentElement!.getBoundingClientRect();
        const r = el.getBoundingClientRect();
        if (r.width > 0 && (r.left < parent.left - 1 || r.right > parent.right + 1)) out.push(`${el.className} "${el.textContent}" leaves its box`);
      }
      // The playhead is drawn under the labels.
      const head = root.querySelector<HTMLElement>('.hc-head');
      // Asked of what is on screen: the scrubber in the middle of the window, clear of the sticky bar.
      root.querySelector('.hc')!.scrollIntoView({ block: 'center' });
      const hr = head?.getBoundingClientRect();
      for (const el of root.querySelectorAll<HTMLElement>('.hc-seg-label')) {
        const r = el.getBoundingClientRect();
        if (!hr || !el.textContent || r.width === 0) continue;
        const x = hr.left + hr.width / 2;
        if (x <= r.left + 1 || x >= r.right - 1) continue;
        // Where the playhead crosses a label, the label is what is seen.
        const top = document.elementFromPoint(x, r.top + r.height / 2);
        if (top !== el && !el.contains(top)) out.push(`"${el.textContent}" under the playhead`);
      }
      const card = root.querySelector<SVGGElement>('[data-testid="stage-card"]');
      if (card) {
        const box = card.querySelector('rect')!.getBBox();
        const text = card.querySelector('text')!.getBBox();
        if (text.x < box.x || text.x + text.width > box.x + box.width) out.push(`card "${card.textContent}" spills out (${text.x + text.width} > ${box.x + box.width})`);
      }
      return out;
    };
    if (steps.length < 6) return [`only ${steps.length} steps on the scrubber`];
    for (const s of steps) {
      for (const into of [0.05, 0.5, 0.95]) {
        const h = Math.round((s.at + s.dur * into) * 100) / 100;
        hook.handoff(h);
        while (document.querySelector('[data-testid="stage"]')?.getAttribute('data-handoff') !== h.toFixed(2)) await new Promise((r) => requestAnimationFrame(r));
        for (const p of problems()) found.add(`${s.id}@${into}: ${p}`);
      }
    }
    return [...found];
  });
}

/** The stage's own box (its size) and where its picture sits in it, rounded after subtracting (its top can sit at a fraction of a pixel). */
async function boxes(page: Page): Promise<string> {
  return page.evaluate(() => {
    const r = (el: Element | null) => {
      const b = el!.getBoundingClientRect();
      return { x: b.x, y: b.y + window.scrollY, w: b.width, h: b.height };
    };
    // What lies above the stage on the first screen (the story's sentences) is not the stage's.
    const view = r(document.querySelector('.stage-view'));
    const picture = r(document.querySelector('[data-testid="stage"]'));
    return JSON.stringify({ w: Math.round(view.w), h: Math.round(view.h), pictureTop: Math.round(picture.y - view.y), pictureH: Math.round(picture.h) });
  });
}

/** The box at the handoff's start and in the middle of every step, sought in the page: each that differs from the start. */
async function boxChangesThroughTheHandoff(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const hook = (window as unknown as { __stalePages: { handoff: (h: number) => void } }).__stalePages;
    const steps = [...document.querySelectorAll<HTMLElement>('.hc-seg')].map((e) => ({ id: e.dataset.step!, at: Number(e.dataset.at), dur: Number(e.dataset.dur) }));
    const at = async (h: number) => {
      hook.handoff(h);
      while (document.querySelector('[data-testid="stage"]')?.getAttribute('data-handoff') !== h.toFixed(2)) await new Promise((r) => requestAnimationFrame(r));
      // As boxes() measures it.
      const r = (el: Element | null) => {
        const b = el!.getBoundingClientRect();
        return { x: b.x, y: b.y + window.scrollY, w: b.width, h: b.height };
      };
      const view = r(document.querySelector('.stage-view'));
      const picture = r(document.querySelector('[data-testid="stage"]'));
      return JSON.stringify({ w: Math.round(view.w), h: Math.round(view.h), pictureTop: Math.round(picture.y - view.y), pictureH: Math.round(picture.h) });
    };
    if (steps.length < 6) return [`only ${steps.length} steps on the scrubber`];
    const first = await at(0);
    const out: string[] = [];
    for (const s of steps) {
      const b = await at(Math.round((s.at + s.dur / 2) * 100) / 100);
      if (b !== first) out.push(`${s.id}: ${b} vs ${first}`);
    }
    return out;
  });
}

for (const size of [{ width: 1280, height: 720 }, { width: 390, height: 844 }]) {
  for (const lang of ['en', 'fr'] as const) {
    test(`the stage at ${size.width}×${size.height}, ${lang}: no label is cut or spills out (light and dark), and it keeps its box through every step and on play and pause`, async ({ page }) => {
      // Two schemes' labels at three instants a step, then the box at every step: twice the one-minute default on a loaded machine.
      test.setTimeout(120_000);
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: 'light' });
      await page.clock.install();
      await page.goto(`./?bench&h=0${lang === 'fr' ? '&lang=fr' : ''}`);
      await ready(page);
      await expect(page.getByTestId('stage-main').first()).toBeVisible({ timeout: 30_000 });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await page.evaluate((s) => matchMedia(`(prefers-color-scheme: ${s})`).matches, scheme)).toBe(true);
        await settled(page);
        expect(await labelProblemsThroughTheHandoff(page), `labels, ${scheme}`).toEqual([]);
      }
      await page.emulateMedia({ colorScheme: 'light' });
      await settled(page);
      const seen = await boxChangesThroughTheHandoff(page);
      // Play for 300 ms of the page's clock from the third step, then pause: the box while playing and once paused.
      const steps = await page.locator('.hc-seg').evaluateAll((els) => els.map((e) => Number((e as HTMLElement).dataset.at)));
      await hook(page, steps[2]!);
      await expect(page.getByTestId('stage').first()).toHaveAttribute('data-handoff', steps[2]!.toFixed(2));
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
      expect(Number(await page.getByTestId('stage').first().getAttribute('data-handoff'))).toBeGreaterThan(steps[2]!);
      if (playing !== before) seen.push(`playing: ${playing} vs ${before}`);
      if (paused !== before) seen.push(`paused: ${paused} vs ${before}`);
      expect(seen, 'the stage’s box').toEqual([]);
    });
  }
}
