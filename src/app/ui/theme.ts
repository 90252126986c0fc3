/**
 * The design tokens (theme.css) for code that draws on a canvas: one helper reads a custom property
 * from the document as the page's colour scheme resolves it, so that canvas pictures follow light and
 * dark mode like the rest of the page.
 */

let darkQuery: MediaQueryList | null | undefined;

/** The colour scheme the page is drawn in now (the tokens of theme.css differ only by it). */
export function colourScheme(): 'light' | 'dark' {
  if (darkQuery === undefined) darkQuery = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
  return darkQuery?.matches ? 'dark' : 'light';
}

/** Token values read, by colour scheme and name. */
const tokenValues = new Map<string, string>();

/**
 * A colour token as CSS text, e.g. themeColor('--canvas'); `fallback` when it is not set (tests, Node).
 * The tokens are set on the root by theme.css, for the light scheme and the dark one alone: each is
 * read once per scheme, not at every draw (reading the root's style in the middle of a commit makes the
 * browser restyle the page then, and again once the commit has changed it).
 */
export function themeColor(name: `--${string}`, fallback = '#888888'): string {
  if (typeof document === 'undefined' || typeof getComputedStyle === 'undefined') return fallback;
  const key = `${colourScheme()}:${name}`;
  let value = tokenValues.get(key);
  if (value === undefined) {
    value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
    // Not kept while unset: the page's style sheet may not have arrived yet.
    if (value) tokenValues.set(key, value);
  }
  return value || fallback;
}

/** A colour token as [r, g, b] (0–255), for drawing into an ImageData; tokens are written as #rrggbb or #rgb. */
export function themeRgb(name: `--${string}`, fallback: [number, number, number] = [136, 136, 136]): [number, number, number] {
  return parseRgb(themeColor(name, '')) ?? fallback;
}

export function parseRgb(css: string): [number, number, number] | null {
  const hex = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(css.trim());
  if (hex) {
    const h = hex[1]!.length === 3 ? [...hex[1]!].map((c) => c + c).join('') : hex[1]!;
    return [parseInt(h.slice(0, 2), 16), parseInt(h.slice(2, 4), 16), parseInt(h.slice(4, 6), 16)];
  }
  const rgb = /^rgba?\(\s*(\d+)[\s,]+(\d+)[\s,]+(\d+)/i.exec(css.trim());
  return rgb ? [Number(rgb[1]), Number(rgb[2]), Number(rgb[3])] : null;
}
