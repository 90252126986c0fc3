/**
 * The colours canvas and SVG drawings use, beside the CSS tokens of theme.css (the two theme files;
 * a test fails on a colour written anywhere else, and holds the tokens that repeat a colour of this
 * table, `--oi-*` and `--rel-*`, equal to it).
 *
 * Tenant colours: the Okabe–Ito palette (distinguishable with the common colour-vision deficiencies),
 * cycled with a darker variant beyond eight tenants. Colour is never the only cue: every view also
 * names the tenant (inspector, labels) and draws page state as a pattern.
 */
export type Rgb = [number, number, number];

/** An [r, g, b] colour as CSS text. */
export const rgbCss = ([r, g, b]: readonly number[]): string => `rgb(${r}, ${g}, ${b})`;

/** Okabe–Ito, by name (theme.css repeats them as `--oi-<name>` for style sheets). */
export const OI: Record<'orange' | 'sky' | 'green' | 'yellow' | 'blue' | 'vermilion' | 'purple' | 'grey', Rgb> = {
  orange: [230, 159, 0],
  sky: [86, 180, 233],
  green: [0, 158, 115],
  yellow: [240, 228, 66],
  blue: [0, 114, 178],
  vermilion: [213, 94, 0],
  purple: [204, 121, 167],
  grey: [120, 120, 120],
};

const OKABE_ITO: readonly Rgb[] = [OI.orange, OI.sky, OI.green, OI.yellow, OI.blue, OI.vermilion, OI.purple, OI.grey];

/**
 * What a page is to the selected request (views/cluster/relation.ts): Okabe–Ito hues apart from each
 * other, and a yellow for reserved pages (theme.css: `--rel-reserved`).
 */
export const RELATION_COLOURS: Record<'own' | 'placeholder' | 'foreign' | 'reserved', Rgb> = {
  own: OI.blue,
  placeholder: OI.green,
  foreign: OI.vermilion,
  reserved: [230, 190, 40],
};

/** Pages not the request's, by state, in light and dark: greys, so the request's own pages stand out. */
export const OTHER_GREYS: Record<'live' | 'stale' | 'cleared' | 'zero', { light: Rgb; dark: Rgb }> = {
  live: { light: [120, 120, 124], dark: [150, 150, 158] },
  stale: { light: [150, 150, 154], dark: [120, 120, 128] },
  cleared: { light: [222, 220, 216], dark: [70, 72, 80] },
  zero: { light: [244, 242, 238], dark: [31, 33, 39] },
};

/** A page whose writer the drawing does not tell apart (no request selected; a tenant unknown). */
export const NEUTRAL_GREY: Rgb = [150, 150, 150];

/** The dot a reserved page carries on the grids. */
export const GRID_DOT: { light: Rgb; dark: Rgb } = { light: [60, 60, 60], dark: [20, 20, 24] };

/** Marks drawn over a picture: ink on paper, swapped in dark mode. */
export const inkOn = (dark: boolean): string => (dark ? '#fff' : '#000');
export const paperOn = (dark: boolean): string => (dark ? '#000' : '#fff');

/** An exported picture (PNG, SVG) is on white whatever the page's scheme. */
export const EXPORT_PAPER = '#fff';
export const EXPORT_INK = '#111';
export const EXPORT_CLEARED = '#ddd';

const UNKNOWN_TENANT: Rgb = [200, 200, 200];

export function tenantRgb(tenant: number): [number, number, number] {
  if (tenant < 0) return [...UNKNOWN_TENANT];
  const base = OKABE_ITO[tenant % OKABE_ITO.length]!;
  const round = Math.floor(tenant / OKABE_ITO.length) % 3;
  const f = [1, 0.7, 0.45][round]!;
  return [Math.round(base[0] * f), Math.round(base[1] * f), Math.round(base[2] * f)];
}

export function tenantCss(tenant: number): string {
  return rgbCss(tenantRgb(tenant));
}

/** WCAG relative luminance of an sRGB colour. */
function luminance([r, g, b]: [number, number, number]): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** Black or white text, whichever has the higher WCAG contrast on the tenant colour. */
export function tenantInk(tenant: number): string {
  const l = luminance(tenantRgb(tenant));
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#000' : '#fff';
}
