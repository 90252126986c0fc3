import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stackLabels } from './timelineChart.ts';

const CHAR_W = 6.6;
const GAP = 4;

describe('stackLabels', () => {
  it('never lets two labels of a row overlap, and keeps every label (alone or in a "+n")', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ x: fc.double({ min: 0, max: 800, noNaN: true }), text: fc.constantFrom('F2', 'F7', 'F10', 'F12') }), { maxLength: 30 }), fc.integer({ min: 1, max: 4 }), (raw, rows) => {
        const items = raw.map((r, i) => ({ key: String(i), x: r.x, text: r.text, title: `t${i}` }));
        const placed = stackLabels(items, rows, CHAR_W, GAP);
        for (const p of placed) expect(p.row).toBeGreaterThanOrEqual(0);
        for (const p of placed) expect(p.row).toBeLessThan(rows);
        for (let r = 0; r < rows; r++) {
          const inRow = placed.filter((p) => p.row === r).sort((a, b) => a.x - b.x);
          for (let i = 1; i < inRow.length; i++) expect(inRow[i]!.x).toBeGreaterThanOrEqual(inRow[i - 1]!.x + inRow[i - 1]!.text.length * CHAR_W + GAP - 1e-9);
        }
        const titles = placed.flatMap((p) => p.title.split('\n')).sort();
        expect(titles).toEqual(items.map((i) => i.title).sort());
      }),
    );
  });

  it('six labels in a few pixels: three rows, the rest counted', () => {
    const items = ['F7', 'F8', 'F9', 'F10', 'F11', 'F12'].map((text, i) => ({ key: text, x: 700 + i * 3, text, title: text }));
    const placed = stackLabels(items, 3, CHAR_W, GAP);
    expect(placed.map((p) => p.row)).toEqual([0, 1, 2]);
    const counted = placed.reduce((n, p) => n + Number(/\+(\d+)$/.exec(p.text)?.[1] ?? 0), 0);
    expect(counted).toBe(3);
  });
});
