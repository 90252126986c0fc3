import type { Page } from '@playwright/test';
import { expect, ready, settled, test } from './fixtures.ts';

/**
 * No label of the stage's controls or its request card is cut or spills out: each segment's label of
 * the handoff scrubber fits its segment (no "ted: N", no "eserv") and sits over the playhead, and the
 * card's words stay inside the card, at every step, on a laptop and a phone, English and French,
 * light and dark. One page per size and language: the scheme is switched in it, and the instants are
 * sought in the page itself, each measured once the stage has committed it.
 */

/** Every problem at 5, 50 and 95 % of each step of the scrubber, sought in the page. */
async function problemsThroughTheHandoff(page: Page): Promise<string[]> {
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

for (const size of [{ width: 1280, height: 720 }, { width: 390, height: 844 }]) {
  for (const lang of ['en', 'fr'] as const) {
    test(`no stage label is cut or spills out, ${size.width}×${size.height}, ${lang}, light and dark`, async ({ page }) => {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: 'light' });
      await page.goto(`./?bench&h=0${lang === 'fr' ? '&lang=fr' : ''}`);
      await ready(page);
      await expect(page.getByTestId('stage-main').first()).toBeVisible({ timeout: 30_000 });
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme });
        expect(await page.evaluate((dark) => matchMedia(`(prefers-color-scheme: ${dark})`).matches, scheme)).toBe(true);
        await settled(page);
        expect(await problemsThroughTheHandoff(page), scheme).toEqual([]);
      }
    });
  }
}
