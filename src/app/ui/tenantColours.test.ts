/**
 * Every tenant's colour against the rows it is drawn on, in both themes (WCAG contrast ≥ 3:1 for a
 * graphical object), and apart from every swatch that says a page's state or relation (CIE76 ΔE):
 * read from theme.css's tokens and the palette, so a token changed in either theme is measured.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NEUTRAL_GREY, OTHER_GREYS, RELATION_COLOURS, TENANT_COLOURS, luminance, tenantRgb, type Rgb } from './palette.ts';
import { parseRgb } from './theme.ts';

const css = readFileSync(new URL('./theme.css', import.meta.url), 'utf8');
const darkStart = css.indexOf('@media (prefers-color-scheme: dark)');
/** A token's value in a theme (dark falls back to the value both themes share). */
function token(name: string, theme: 'light' | 'dark'): Rgb {
  const find = (text: string) => parseRgb(new RegExp(`${name}:\\s*([^;]+);`).exec(text)?.[1] ?? '');
  const found = (theme === 'dark' ? find(css.slice(darkStart)) : null) ?? find(css.slice(0, darkStart));
  if (!found) throw new Error(`theme.css has no colour ${name}`);
  return found;
}

const contrast = (a: Rgb, b: Rgb) => {
  const [x, y] = [luminance(a), luminance(b)];
  return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
};

function lab([r, g, b]: Rgb): [number, number, number] {
  const lin = (c: number) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
  const [R, G, B] = [lin(r), lin(g), lin(b)];
  const f = (t: number) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  const X = (0.4124 * R + 0.3576 * G + 0.1805 * B) / 0.95047;
  const Y = 0.2126 * R + 0.7152 * G + 0.0722 * B;
  const Z = (0.0193 * R + 0.1192 * G + 0.9505 * B) / 1.08883;
  return [116 * f(Y) - 16, 500 * (f(X) - f(Y)), 200 * (f(Y) - f(Z))];
}
const deltaE = (a: Rgb, b: Rgb) => Math.hypot(...lab(a).map((v, i) => v - lab(b)[i]!));

/** The rows a tenant's colour sits on: the panel (microscope rows, legends), the page grids' canvas, the page. */
const ROWS = ['--panel', '--canvas', '--bg'] as const;
/** The swatches that say a page's state or relation (legends of the grids and the stage). */
const STATE_TOKENS = ['--oi-blue', '--oi-green', '--oi-vermilion', '--oi-orange', '--oi-sky', '--rel-reserved', '--page-grey', '--page-cleared', '--page-cleared-dot', '--page-dot', '--never'] as const;

describe('tenant colours', () => {
  const tenants = Array.from({ length: 64 }, (_, i) => i);

  it('measures contrast and distance as WCAG and CIE do', () => {
    expect(contrast([0, 0, 0], [255, 255, 255])).toBeCloseTo(21, 5);
    expect(deltaE([255, 255, 255], [255, 255, 255])).toBe(0);
    expect(deltaE([0, 0, 0], [255, 255, 255])).toBeCloseTo(100, 0);
  });

  for (const theme of ['light', 'dark'] as const) {
    it(`has at least 3:1 contrast against every row in the ${theme} theme`, () => {
      const low: string[] = [];
      for (const t of tenants) for (const row of ROWS) {
        const c = contrast(tenantRgb(t), token(row, theme));
        if (c < 3) low.push(`tenant ${t} on ${row}: ${c.toFixed(2)}:1`);
      }
      expect(low).toEqual([]);
    });
  }

  it('is apart from every page-state and relation swatch (ΔE ≥ 20)', () => {
    const swatches: [string, Rgb][] = [
      ...STATE_TOKENS.flatMap((n) => (['light', 'dark'] as const).map((th): [string, Rgb] => [`${n} (${th})`, token(n, th)])),
      ...Object.entries(RELATION_COLOURS).map(([k, v]): [string, Rgb] => [`relation ${k}`, v]),
      ...Object.entries(OTHER_GREYS).flatMap(([k, v]) => [[`grey ${k} light`, v.light] as [string, Rgb], [`grey ${k} dark`, v.dark] as [string, Rgb]]),
      ['neutral grey', NEUTRAL_GREY],
    ];
    const near: string[] = [];
    for (const t of tenants) for (const [name, s] of swatches) if (deltaE(tenantRgb(t), s) < 20) near.push(`tenant ${t} and ${name}: ΔE ${deltaE(tenantRgb(t), s).toFixed(1)}`);
    expect(near).toEqual([]);
  });

  it('tells its own tenants apart (ΔE ≥ 20 between any two of the palette)', () => {
    const near: string[] = [];
    TENANT_COLOURS.forEach((a, i) => TENANT_COLOURS.forEach((b, j) => { if (i < j && deltaE(a, b) < 20) near.push(`${i} and ${j}: ${deltaE(a, b).toFixed(1)}`); }));
    expect(near).toEqual([]);
  });
});
