/**
 * The timeline's time scale: epoch ms (or Dates) to pixels, linearly, with ticks on UTC calendar
 * boundaries (d3-time's `utcTicks`). What the chart used d3's `scaleUtc` for, without d3-scale's
 * time scale, which brings d3-time-format and its English default locale: the axis's labels are
 * the page's own, in its language (i18n/format.ts, `timeAxisFormat`). Enough of a d3 scale for
 * d3-axis (call, domain, range, copy, ticks) and for d3-zoom's `rescaleX` (invert, copy, domain).
 */
import { utcTicks } from 'd3';

export interface UtcScale {
  (t: Date | number): number;
  invert(px: number): Date;
  domain(): [Date, Date];
  domain(d: [Date | number, Date | number]): UtcScale;
  range(): [number, number];
  range(r: [number, number]): UtcScale;
  ticks(count?: number): Date[];
  copy(): UtcScale;
}

export function utcScale(domain: [Date | number, Date | number] = [0, 1], range: [number, number] = [0, 1]): UtcScale {
  let [d0, d1] = [+domain[0], +domain[1]];
  let [r0, r1] = range;
  const scale = ((t: Date | number) => r0 + ((+t - d0) / (d1 - d0 || 1)) * (r1 - r0)) as UtcScale;
  scale.invert = (px) => new Date(d0 + ((px - r0) / (r1 - r0 || 1)) * (d1 - d0));
  scale.domain = ((d?: [Date | number, Date | number]) => {
    if (!d) return [new Date(d0), new Date(d1)];
    [d0, d1] = [+d[0], +d[1]];
    return scale;
  }) as UtcScale['domain'];
  scale.range = ((r?: [number, number]) => {
    if (!r) return [r0, r1];
    [r0, r1] = r;
    return scale;
  }) as UtcScale['range'];
  scale.ticks = (count = 10) => utcTicks(new Date(Math.min(d0, d1)), new Date(Math.max(d0, d1)), count);
  scale.copy = () => utcScale([d0, d1], [r0, r1]);
  return scale;
}
