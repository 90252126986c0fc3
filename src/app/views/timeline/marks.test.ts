import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { markPath, stepAreaPath, type MarkShape } from './marks.ts';

/** The vertices of an absolute or relative M/L/H/V/h/v path ending in Z. */
function vertices(d: string): [number, number][] {
  const out: [number, number][] = [];
  let x = 0;
  let y = 0;
  for (const [, cmd, args] of d.matchAll(/([MLHVhvZ])([^MLHVhvZ]*)/g)) {
    const n = args!.split(',').filter(Boolean).map(Number);
    if (cmd === 'M' || cmd === 'L') [x, y] = [n[0]!, n[1]!];
    else if (cmd === 'H') x = n[0]!;
    else if (cmd === 'V') y = n[0]!;
    else if (cmd === 'h') x += n[0]!;
    else if (cmd === 'v') y += n[0]!;
    else continue;
    out.push([x, y]);
  }
  return out;
}

const shoelace = (pts: [number, number][]) => Math.abs(pts.reduce((s, [x, y], i) => { const [u, v] = pts[(i + 1) % pts.length]!; return s + x * v - u * y; }, 0)) / 2;

describe('timeline marks', () => {
  it('every polygon mark has the area asked for, centred on the origin (fast-check)', () => {
    fc.assert(
      fc.property(fc.constantFrom<MarkShape>('triangle', 'diamond', 'square', 'cross'), fc.double({ min: 4, max: 400, noNaN: true }), (shape, area) => {
        const pts = vertices(markPath(shape, area));
        expect(shoelace(pts)).toBeCloseTo(area, 1);
        const xs = pts.map((p) => p[0]);
        // Symmetric left to right.
        expect(Math.max(...xs) + Math.min(...xs)).toBeCloseTo(0, 2);
      }),
    );
  });

  it('the circle has the radius of its area', () => {
    const d = markPath('circle', 30);
    const r = Number(/^M([\d.]+),0/.exec(d)![1]);
    expect(Math.PI * r * r).toBeCloseTo(30, 1);
  });

  it('the step area holds each value over its bucket and closes on the baseline', () => {
    expect(stepAreaPath(10, 2, 20, [5, 8, 20])).toBe('M10,20V5H12V8H14V20V20Z');
    expect(shoelace(vertices(stepAreaPath(0, 2, 10, [4, 6, 10])))).toBe(2 * 6 + 2 * 4);
    expect(stepAreaPath(0, 2, 10, [])).toBe('');
  });
});
