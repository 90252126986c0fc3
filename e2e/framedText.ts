/**
 * Every text the screen layout (`?screen`) draws, as a projector shows it: whole inside the window and
 * every box that clips it, above the caption band (the band's own text aside), not covered by another
 * element, and at least `minPx` CSS px tall as drawn (CSS zoom and an SVG's scale included, as
 * textSize.ts reads them). A text a clipping box hides whole counts too (a legend pushed under the
 * band, a grid scrolled off), except inside the two windows made to show part of a longer picture: the
 * stage's camera (`.stage-row`, which cuts between the flow, the microscope and the answer) and the
 * transfer's list of steps (`.steps`, kept on the current step); and the lines a `line-clamp` leaves out
 * behind its ellipsis. Screen-reader text is left out.
 */
import type { Page } from '@playwright/test';

export interface FramedTextOptions {
  /** The smallest text allowed, in CSS px as drawn. */
  minPx: number;
}

/** What is wrong with the screen's text now, one line each: empty when every text is whole, clear and large enough. */
export async function framedTextProblems(page: Page, options: FramedTextOptions): Promise<string[]> {
  return page.evaluate(({ minPx }) => {
    const screen = document.querySelector('[data-testid=screen]');
    if (!screen) return ['no screen layout on the page'];
    const band = document.querySelector('.screen-band');
    const bandTop = band ? band.getBoundingClientRect().top : innerHeight;
    const problems: string[] = [];
    const name = (el: Element) => `${el.tagName.toLowerCase()}${typeof el.className === 'string' && el.className.trim() ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}`;
    const box = (r: { left: number; top: number; right: number; bottom: number }) => `${Math.round(r.left)},${Math.round(r.top)}–${Math.round(r.right)},${Math.round(r.bottom)}`;
    const sizeOf = (el: Element): number => {
      const fontSize = parseFloat(getComputedStyle(el).fontSize);
      if (el instanceof SVGElement) {
        const m = (el as SVGGraphicsElement).getScreenCTM?.();
        return m ? fontSize * Math.hypot(m.c, m.d) : fontSize;
      }
      return fontSize * ((el as HTMLElement & { currentCSSZoom?: number }).currentCSSZoom ?? 1);
    };
    /** The part of the window a box's content can show: the window cut by every ancestor that clips it (its containing blocks only). */
    const clipOf = (el: Element) => {
      const c = { left: 0, top: 0, right: innerWidth, bottom: innerHeight };
      let position = getComputedStyle(el).position;
      for (let a = el.parentElement; a && a !== document.documentElement && position !== 'fixed'; a = a.parentElement) {
        const cs = getComputedStyle(a);
        // An absolutely placed box escapes the ancestors that are not positioned; a fixed one, all.
        if (position === 'absolute' && cs.position === 'static') continue;
        position = cs.position === 'fixed' || cs.position === 'absolute' ? cs.position : 'static';
        const r = a.getBoundingClientRect();
        if (cs.overflowX !== 'visible') {
          c.left = Math.max(c.left, r.left);
          c.right = Math.min(c.right, r.right);
        }
        if (cs.overflowY !== 'visible') {
          c.top = Math.max(c.top, r.top);
          c.bottom = Math.min(c.bottom, r.bottom);
        }
      }
      return c;
    };
    /** The box that keeps its text to a few lines with an ellipsis (`line-clamp`), if any: what it leaves out is marked, not cut. */
    const clampOf = (el: Element): Element | null => {
      for (let a: Element | null = el; a && a !== screen; a = a.parentElement) {
        const clamp = getComputedStyle(a).getPropertyValue('-webkit-line-clamp');
        if (clamp && clamp !== 'none') return a;
      }
      return null;
    };
    const walker = document.createTreeWalker(screen, NodeFilter.SHOW_TEXT, {
      acceptNode: (n) => ((n.textContent ?? '').trim() ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT),
    });
    const range = document.createRange();
    const tol = 1.5;
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || el.closest('.sr-only, .visually-hidden') || !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) continue;
      const text = `"${(n.textContent ?? '').trim().slice(0, 40)}" (${name(el)})`;
      range.selectNodeContents(n);
      // An SVG text's box is its element's; an HTML text's, its line boxes.
      const rects = (el instanceof SVGElement ? [el.getBoundingClientRect()] : [...range.getClientRects()]).filter((r) => r.width >= 1 && r.height >= 1);
      if (rects.length === 0) continue;
      const px = sizeOf(el);
      if (px < minPx - 0.01) problems.push(`${text} at ${Math.round(px * 10) / 10} px, under ${minPx} px`);
      const clip = clipOf(el);
      const clampBottom = clampOf(el)?.getBoundingClientRect().bottom ?? Infinity;
      for (const r of rects) {
        if (r.top >= clampBottom - tol) break;
        const shown = r.bottom > clip.top && r.top < clip.bottom && r.right > clip.left && r.left < clip.right;
        if (!shown) {
          if (!el.closest('.stage-row, .steps')) problems.push(`${text} hidden: at ${box(r)}, shown only ${box(clip)}`);
          break;
        }
        if (r.top < clip.top - tol || r.bottom > clip.bottom + tol || r.left < clip.left - tol || r.right > clip.right + tol) {
          problems.push(`${text} cut: at ${box(r)}, shown only ${box(clip)}`);
          break;
        }
        if (!band?.contains(el) && r.bottom > bandTop + tol) {
          problems.push(`${text} under the caption band: its foot at ${Math.round(r.bottom)}, the band at ${Math.round(bandTop)}`);
          break;
        }
        // What is drawn at its middle is the text's own element (or, in a drawing, the drawing).
        const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
        const own = hit !== null && (hit === el || el.contains(hit) || hit.contains(el) || (el instanceof SVGElement && el.ownerSVGElement?.contains(hit) === true));
        if (!own) {
          problems.push(`${text} covered by ${hit ? name(hit) : 'nothing'}`);
          break;
        }
      }
    }
    return problems;
  }, options);
}
