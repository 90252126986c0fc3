import { describe, expect, it } from 'vitest';
import { scaleUtc, utcTicks as d3UtcTicks } from 'd3';
import { utcScale, utcTicks } from './utcScale.ts';

describe('the timeline’s time scale', () => {
  const start = Date.UTC(2026, 7, 27);
  const end = Date.UTC(2026, 8, 10);
  it('maps, inverts and ticks as d3’s UTC scale does', () => {
    const ours = utcScale([start, end], [120, 1260]);
    const d3s = scaleUtc().domain([new Date(start), new Date(end)]).range([120, 1260]);
    for (const t of [start, start + 3_600_000, Date.UTC(2026, 8, 9, 13, 22), end]) expect(ours(new Date(t))).toBeCloseTo(d3s(new Date(t)), 9);
    for (const px of [120, 400.5, 1260]) expect(+ours.invert(px)).toBeCloseTo(+d3s.invert(px), 3);
    for (const n of [3, 10, 24]) expect(ours.ticks(n).map(Number)).toEqual(d3s.ticks(n).map(Number));
  });
  it('copies: a copy given a new domain leaves the original as it was', () => {
    const a = utcScale([start, end], [0, 100]);
    const b = a.copy().domain([start, start + 86_400_000]);
    expect(a.domain().map(Number)).toEqual([start, end]);
    expect(b(new Date(start + 43_200_000))).toBeCloseTo(50, 9);
    expect(a.range()).toEqual([0, 100]);
  });
});

describe('utcTicks, the page’s own', () => {
  it('places the ticks d3-time’s utcTicks places, from a second to decades, at any count', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const spans = [800, 20_000, 400_000, 7_200_000, 86_400_000, 4 * 86_400_000, 14 * 86_400_000, 60 * 86_400_000, 400 * 86_400_000, 30 * 365 * 86_400_000];
    for (const span of spans) {
      for (let i = 0; i < 40; i++) {
        const a = Date.UTC(2026, 7, 27) + Math.floor((rand() - 0.5) * 40 * 86_400_000);
        const b = a + Math.floor(span * (0.2 + rand() * 1.6));
        const count = 1 + Math.floor(rand() * 30);
        expect(utcTicks(new Date(a), new Date(b), count).map(Number), `${a} ${b} ${count}`).toEqual(d3UtcTicks(new Date(a), new Date(b), count).map(Number));
      }
    }
    // Reversed, and a range of nothing.
    const a = new Date(Date.UTC(2026, 8, 9, 13)), b = new Date(Date.UTC(2026, 8, 1));
    expect(utcTicks(a, b, 10).map(Number)).toEqual(d3UtcTicks(a, b, 10).map(Number));
    expect(utcTicks(a, a, 10).map(Number)).toEqual(d3UtcTicks(a, a, 10).map(Number));
  });
});
