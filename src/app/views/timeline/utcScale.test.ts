import { describe, expect, it } from 'vitest';
import { scaleUtc } from 'd3';
import { utcScale } from './utcScale.ts';

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
