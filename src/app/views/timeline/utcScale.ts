/**
 * The timeline's time scale: epoch ms (or Dates) to pixels, linearly, with ticks on UTC calendar
 * boundaries, as d3-time's `utcTicks` places them (`utcTicks` below; the tests hold it to d3's).
 * What the chart used d3's `scaleUtc` for, without d3-scale's time scale, which brings
 * d3-time-format and its English default locale, and without d3-time and d3-array on the first
 * screen: the axis's labels are the page's own, in its language (i18n/format.ts,
 * `timeAxisFormat`). Enough of a d3 scale for the chart's axis (timelineChart.ts `drawAxisTop`:
 * call, range, ticks) and for d3-zoom's `rescaleX` (invert, copy, domain).
 */

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

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const MONTH = 30 * DAY;
const YEAR = 365 * DAY;
/** The first Sunday 00:00 UTC after the epoch (a Thursday): weeks start there. */
const FIRST_SUNDAY = 3 * DAY;

/** d3-array's `tickStep`: a step of 1, 2 or 5 × 10^k for about `count` ticks. */
function tickStep(start: number, stop: number, count: number): number {
  const spec = (a: number, b: number, n: number): number => {
    const step = (b - a) / Math.max(0, n);
    const power = Math.floor(Math.log10(step));
    const error = step / 10 ** power;
    const factor = error >= Math.sqrt(50) ? 10 : error >= Math.sqrt(10) ? 5 : error >= Math.sqrt(2) ? 2 : 1;
    let inc = power < 0 ? 10 ** -power / factor : 10 ** power * factor;
    let i1 = power < 0 ? Math.round(a * inc) : Math.round(a / inc);
    let i2 = power < 0 ? Math.round(b * inc) : Math.round(b / inc);
    if (power < 0 ? i1 / inc < a : i1 * inc < a) ++i1;
    if (power < 0 ? i2 / inc > b : i2 * inc > b) --i2;
    if (power < 0) inc = -inc;
    return i2 < i1 && 0.5 <= n && n < 2 ? spec(a, b, n * 2) : inc;
  };
  const reverse = stop < start;
  const inc = reverse ? spec(stop, start, count) : spec(start, stop, count);
  return (reverse ? -1 : 1) * (inc < 0 ? 1 / -inc : inc);
}

/** Every multiple of `period` (shifted by `offset`) from `start` to `stop` inclusive. */
function everyFixed(start: number, stop: number, period: number, offset = 0): Date[] {
  const out: Date[] = [];
  for (let t = Math.ceil((start - offset) / period) * period + offset; t <= stop; t += period) out.push(new Date(t));
  return out;
}

/** The first of every `step`-th month (January, and so on) from `start` to `stop` inclusive. */
function everyMonth(start: number, stop: number, step: number, months = 1): Date[] {
  const out: Date[] = [];
  const d = new Date(start);
  let m = d.getUTCFullYear() * 12 + d.getUTCMonth();
  if (Date.UTC(Math.floor(m / 12), m % 12, 1) < start) m++;
  m = Math.ceil(m / (step * months)) * step * months;
  for (let t = Date.UTC(Math.floor(m / 12), m % 12, 1); t <= stop; m += step * months, t = Date.UTC(Math.floor(m / 12), m % 12, 1)) out.push(new Date(t));
  return out;
}

/** The intervals d3-time's `utcTicks` chooses from: a fixed period, or calendar months and years. */
const TICK_INTERVALS: readonly [kind: 'fixed' | 'week' | 'month' | 'year', step: number, duration: number][] = [
  ['fixed', SECOND, SECOND],
  ['fixed', 5 * SECOND, 5 * SECOND],
  ['fixed', 15 * SECOND, 15 * SECOND],
  ['fixed', 30 * SECOND, 30 * SECOND],
  ['fixed', MINUTE, MINUTE],
  ['fixed', 5 * MINUTE, 5 * MINUTE],
  ['fixed', 15 * MINUTE, 15 * MINUTE],
  ['fixed', 30 * MINUTE, 30 * MINUTE],
  ['fixed', HOUR, HOUR],
  ['fixed', 3 * HOUR, 3 * HOUR],
  ['fixed', 6 * HOUR, 6 * HOUR],
  ['fixed', 12 * HOUR, 12 * HOUR],
  ['fixed', DAY, DAY],
  ['fixed', 2 * DAY, 2 * DAY],
  ['week', 1, WEEK],
  ['month', 1, MONTH],
  ['month', 3, 3 * MONTH],
  ['year', 1, YEAR],
];

/**
 * d3-time's `utcTicks(start, stop, count)`: about `count` instants on UTC boundaries (seconds,
 * minutes, hours, days, Sundays, months, years) from `start` to `stop` inclusive. In UTC every
 * interval up to two days is a fixed period counted from the epoch, which is how d3 aligns them too.
 */
export function utcTicks(start: Date, stop: Date, count: number): Date[] {
  let [a, b] = [+start, +stop];
  const reverse = b < a;
  if (reverse) [a, b] = [b, a];
  const target = Math.abs(b - a) / count;
  let i = TICK_INTERVALS.findIndex(([, , duration]) => duration > target);
  if (i === -1) i = TICK_INTERVALS.length;
  let ticks: Date[];
  if (i === TICK_INTERVALS.length) {
    const k = Math.floor(tickStep(a / YEAR, b / YEAR, count));
    ticks = Number.isFinite(k) && k > 0 ? everyMonth(a, b, 12, k) : [];
  } else if (i === 0) {
    ticks = everyFixed(a, b, Math.floor(Math.max(tickStep(a, b, count), 1)));
  } else {
    const [kind, step] = TICK_INTERVALS[target / TICK_INTERVALS[i - 1]![2] < TICK_INTERVALS[i]![2] / target ? i - 1 : i]!;
    ticks = kind === 'fixed' ? everyFixed(a, b, step) : kind === 'week' ? everyFixed(a, b, WEEK, FIRST_SUNDAY) : kind === 'month' ? everyMonth(a, b, step) : everyMonth(a, b, 12, step);
  }
  return reverse ? ticks.reverse() : ticks;
}
