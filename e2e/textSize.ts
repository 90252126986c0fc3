/**
 * The smallest text a page renders inside its viewport, in CSS px as drawn on screen: every visible,
 * non-blank text node and every form control that shows a value (a select's chosen option, a
 * field's number). HTML text reads its computed font-size times its CSS zoom; SVG text multiplies it by the SVG's
 * screen scale (getScreenCTM), which is what a drawing scaled to its box renders at. Canvas text is
 * pixels and cannot be read here.
 */
import type { Page } from '@playwright/test';

export interface TextSample {
  /** Rendered size in CSS px. */
  px: number;
  /** The text (its first 60 characters). */
  text: string;
  /** The element that has it: tag, test id, classes, and its nearest ancestor with an id or test id. */
  element: string;
}

export interface TextSizeReport {
  /** The smallest sample; null when no text is visible. */
  smallest: TextSample | null;
  /** Every sample under `under` px, smallest first (empty when `under` is not given). */
  under: TextSample[];
  /** How many text samples were measured. */
  count: number;
}

export interface TextSizeOptions {
  /** Elements (and their descendants) left out, as CSS selectors. */
  exclude?: string[];
  /** Also list every sample under this size. */
  under?: number;
  /** Only text inside this element (a CSS selector; default: the whole page). */
  within?: string;
}

export async function smallestText(page: Page, options: TextSizeOptions = {}): Promise<TextSizeReport> {
  return page.evaluate(({ exclude, under, within }) => {
    const vw = window.innerWidth;
    const vh = window.innerHeight;
    const excluded = (el: Element) => exclude.some((s) => el.closest(s) !== null);
    const describe = (el: Element): string => {
      const own = `${el.tagName.toLowerCase()}${el.getAttribute('data-testid') ? `[data-testid=${el.getAttribute('data-testid')}]` : ''}${
        typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : ''
      }`;
      const anchor = el.parentElement?.closest('[id], [data-testid]');
      return anchor ? `${own} in ${anchor.tagName.toLowerCase()}${anchor.id ? `#${anchor.id}` : `[data-testid=${anchor.getAttribute('data-testid')}]`}` : own;
    };
    const visible = (el: Element) =>
      el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true }) &&
      // Visually hidden text (a 1 px clipped box) is for screen readers, not drawn.
      (() => {
        const r = el.getBoundingClientRect();
        return r.width > 1 && r.height > 1;
      })();
    const inViewport = (r: DOMRect) => r.width > 0 && r.height > 0 && r.right > 0 && r.bottom > 0 && r.left < vw && r.top < vh;
    const sizeOf = (el: Element): number => {
      const fontSize = parseFloat(getComputedStyle(el).fontSize);
      if (el instanceof SVGElement) {
        const m = (el as SVGGraphicsElement).getScreenCTM?.();
        // The vertical scale: how tall a unit of the SVG's user space is on screen (CSS zoom included).
        return m ? fontSize * Math.hypot(m.c, m.d) : fontSize;
      }
      // A computed font-size leaves out CSS zoom (the screen layout's, presenter mode's): what is drawn is both.
      return fontSize * ((el as HTMLElement & { currentCSSZoom?: number }).currentCSSZoom ?? 1);
    };
    const samples: { px: number; text: string; element: string }[] = [];
    const root = (within ? document.querySelector(within) : null) ?? document.body;
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
      acceptNode: (n) => ((n.textContent ?? '').trim() ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT),
    });
    const range = document.createRange();
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!el || excluded(el) || el.closest('option, script, style, noscript, title') || !visible(el)) continue;
      range.selectNodeContents(n);
      if (![...range.getClientRects()].some(inViewport)) continue;
      samples.push({ px: sizeOf(el), text: (n.textContent ?? '').trim().slice(0, 60), element: describe(el) });
    }
    // Controls whose text is not a text node of theirs: a select shows its option, a field its value.
    for (const el of root.querySelectorAll('select, input:not([type]), input[type="text"], input[type="number"], input[type="search"], textarea')) {
      if (excluded(el) || !visible(el) || !inViewport(el.getBoundingClientRect())) continue;
      const value = el instanceof HTMLSelectElement ? (el.selectedOptions[0]?.textContent ?? '') : (el as HTMLInputElement).value;
      if (!value.trim()) continue;
      samples.push({ px: sizeOf(el), text: value.trim().slice(0, 60), element: describe(el) });
    }
    samples.sort((a, b) => a.px - b.px);
    const round = (s: { px: number; text: string; element: string }) => ({ ...s, px: Math.round(s.px * 100) / 100 });
    return {
      smallest: samples[0] ? round(samples[0]) : null,
      under: under === null ? [] : samples.filter((s) => s.px < under).map(round),
      count: samples.length,
    };
  }, { exclude: options.exclude ?? [], under: options.under ?? null, within: options.within ?? null });
}
