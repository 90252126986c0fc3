/**
 * The colours canvas and SVG drawings use, beside the CSS tokens of theme.css (the two theme files;
 * a test fails on a colour written anywhere else, and holds the tokens that repeat a colour of this
 * table, `--oi-*` and `--rel-*`, equal to it).
 *
 * Tenant colours: sixteen hues of one middle luminance (WCAG 0.16–0.25), so that each has at least
 * 3:1 contrast against the rows it is drawn on (panel, canvas, page) in the light and the dark theme
 * alike, and far (CIE ΔE ≥ 20) from every page-state and relation swatch and from each other
 * (palette.test.ts measures both). Beyond sixteen tenants they repeat: colour is never the only
 * cue; every view also names the tenant (inspector, labels, chips) and draws page state as a pattern.
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

/**
 * The tenants' colours, in roster order (acme, borealis, cobalt, …): the first ones, the tenants a
 * story names most, the farthest apart. Chosen by farthest-point selection among sRGB colours of
 * WCAG luminance 0.165–0.245 at least ΔE 22 from the state swatches.
 */
export const TENANT_COLOURS: readonly Rgb[] = [
  [176, 104, 16],
  [0, 128, 160],
  [104, 104, 216],
  [0, 152, 40],
  [240, 48, 128],
  [104, 120, 56],
  [184, 112, 160],
  [224, 64, 56],
  [192, 64, 184],
  [192, 104, 96],
  [152, 136, 0],
  [96, 136, 8],
  [136, 128, 192],
  [168, 128, 72],
  [0, 136, 240],
  [192, 72, 112],
];

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
  const c = TENANT_COLOURS[tenant % TENANT_COLOURS.length]!;
  return [c[0], c[1], c[2]];
}

export function tenantCss(tenant: number): string {
  return rgbCss(tenantRgb(tenant));
}

/** WCAG relative luminance of an sRGB colour. */
export function luminance([r, g, b]: [number, number, number]): number {
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
