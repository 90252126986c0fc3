/**
 * Tenant colours: the Okabe–Ito palette (distinguishable with the common colour-vision deficiencies),
 * cycled with a darker variant beyond eight tenants. Colour is never the only cue: every view also
 * names the tenant (inspector, labels) and draws page state as a pattern.
 */
const OKABE_ITO: [number, number, number][] = [
  [230, 159, 0],
  [86, 180, 233],
  [0, 158, 115],
  [240, 228, 66],
  [0, 114, 178],
  [213, 94, 0],
  [204, 121, 167],
  [120, 120, 120],
];

export function tenantRgb(tenant: number): [number, number, number] {
  if (tenant < 0) return [200, 200, 200];
  const base = OKABE_ITO[tenant % OKABE_ITO.length]!;
  const round = Math.floor(tenant / OKABE_ITO.length) % 3;
  const f = [1, 0.7, 0.45][round]!;
  return [Math.round(base[0] * f), Math.round(base[1] * f), Math.round(base[2] * f)];
}

export function tenantCss(tenant: number): string {
  const [r, g, b] = tenantRgb(tenant);
  return `rgb(${r} ${g} ${b})`;
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
