/**
 * The timeline's two drawn shapes, as SVG path data: the traffic lane's step area and the lane
 * marks. Written here rather than taken from d3-shape, whose whole module would come into the first
 * screen's JS for these two uses (about 4 KiB gzip with d3-path).
 */

export type MarkShape = 'triangle' | 'diamond' | 'square' | 'cross' | 'circle';

const f = (n: number) => String(Math.round(n * 1000) / 1000);

/**
 * A mark of `area` square pixels centred on the origin. Every shape has the same area, so none
 * looks heavier than another; the proportions are d3's symbols' (a triangle pointing up, a diamond
 * taller than wide, a Greek cross).
 */
export function markPath(shape: MarkShape, area: number): string {
  switch (shape) {
    case 'triangle': {
      // Equilateral: side s has area s²·√3/4.
      const h = Math.sqrt(area / (Math.sqrt(3) * 3));
      return `M0,${f(-2 * h)}L${f(-Math.sqrt(3) * h)},${f(h)}L${f(Math.sqrt(3) * h)},${f(h)}Z`;
    }
    case 'diamond': {
      // Half-height y and half-width y·tan 30°: area 2·y²·tan 30°.
      const tan30 = Math.sqrt(1 / 3);
      const y = Math.sqrt(area / (2 * tan30));
      const x = y * tan30;
      return `M0,${f(-y)}L${f(x)},0L0,${f(y)}L${f(-x)},0Z`;
    }
    case 'square': {
      const w = Math.sqrt(area);
      return `M${f(-w / 2)},${f(-w / 2)}h${f(w)}v${f(w)}h${f(-w)}Z`;
    }
    case 'cross': {
      // Five squares of side 2r: area 20·r².
      const r = Math.sqrt(area / 5) / 2;
      const a = f(r);
      const b = f(3 * r);
      const na = f(-r);
      const nb = f(-3 * r);
      return `M${nb},${na}L${na},${na}L${na},${nb}L${a},${nb}L${a},${na}L${b},${na}L${b},${a}L${a},${a}L${a},${b}L${na},${b}L${na},${a}L${nb},${a}Z`;
    }
    case 'circle': {
      const r = Math.sqrt(area / Math.PI);
      return `M${f(r)},0A${f(r)},${f(r)},0,1,1,${f(-r)},0A${f(r)},${f(r)},0,1,1,${f(r)},0Z`;
    }
  }
}

/**
 * A filled step area over a baseline: value i holds from x0 + i·step to the next value's x (the
 * last value is a vertical edge), as a histogram of buckets reads.
 */
export function stepAreaPath(x0: number, step: number, baseline: number, tops: ArrayLike<number>): string {
  if (tops.length === 0) return '';
  let d = `M${f(x0)},${f(baseline)}V${f(tops[0]!)}`;
  for (let i = 1; i < tops.length; i++) d += `H${f(x0 + i * step)}V${f(tops[i]!)}`;
  return `${d}V${f(baseline)}Z`;
}
