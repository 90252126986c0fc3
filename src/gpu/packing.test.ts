import { describe, expect, it } from 'vitest';
import { blockTableWords, dispatchGrid, groupsFromEntries, packedWords, u16AsWords } from './packing.ts';

describe('buffer packing', () => {
  it('pads odd u16 arrays to whole words and leaves even ones alone', () => {
    const even = Uint16Array.of(1, 2, 3, 4);
    expect(u16AsWords(even)).toBe(even);
    expect([...u16AsWords(Uint16Array.of(1, 2, 3))]).toEqual([1, 2, 3, 0]);
    expect(packedWords(3)).toBe(2);
    // Little-endian halves, as the shader reads them: slot 2k in the low 16 bits of word k.
    const words = new Uint32Array(u16AsWords(Uint16Array.of(0x1234, 0xabcd)).buffer);
    expect(words[0]).toBe(0xabcd1234);
  });

  it('takes only the pages the context reads, and refuses a short or invalid table', () => {
    expect([...blockTableWords([7, 3, 9, 1], 130, 64)]).toEqual([7, 3, 9]);
    expect(() => blockTableWords([7], 130, 64)).toThrow(/need 3/);
    expect(() => blockTableWords([7, -1, 2], 130, 64)).toThrow(/not a page id/);
  });

  it('splits large dispatches into rows within the per-dimension limit', () => {
    expect(dispatchGrid(1_048_576, 256, 65_535)).toEqual({ x: 4096, y: 1, rowThreads: 1_048_576 });
    const g = dispatchGrid(100_000_000, 256, 65_535);
    expect(g.x).toBe(65_535);
    expect(g.x * g.y * 256).toBeGreaterThanOrEqual(100_000_000);
    expect(dispatchGrid(0, 256, 65_535)).toEqual({ x: 1, y: 1, rowThreads: 256 });
  });
});

describe('groupsFromEntries', () => {
  const entry = (g: number, count: number, first: number, last: number) => [g, count, ~first >>> 0, last];

  it('orders groups by first slot, as the engine meets them', () => {
    const entries = Uint32Array.from([...entry(30, 2, 5, 9), ...entry(12, 3, 0, 7), ...entry(4, 1, 3, 3)]);
    const g = groupsFromEntries(entries, 3, 6, 100);
    expect([...g.group]).toEqual([12, 4, 30]);
    expect([...g.count]).toEqual([3, 1, 2]);
    expect([...g.lastSlot]).toEqual([7, 3, 9]);
  });

  it('catches counts that do not add up to the context, and out-of-range ids', () => {
    expect(() => groupsFromEntries(Uint32Array.from(entry(1, 2, 0, 1)), 1, 3, 10)).toThrow(/add up to 2/);
    expect(() => groupsFromEntries(Uint32Array.from(entry(10, 3, 0, 2)), 1, 3, 10)).toThrow(/outside/);
    expect(() => groupsFromEntries(new Uint32Array(4), 2, 3, 10)).toThrow(/expected 2/);
  });
});
