import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KvPool, NO_REQUEST, PAGE_CLEARED, PAGE_LIVE, PAGE_STALE, PAGE_ZERO } from './kvPool.ts';

describe('KvPool', () => {
  it('hands out the lowest free page ids first, including ones freed out of order', () => {
    const pool = new KvPool('decode', 0, 64 * 100, 64);
    expect([...pool.allocate(3, 1)!]).toEqual([0, 1, 2]);
    expect([...pool.allocate(2, 2)!]).toEqual([3, 4]);
    pool.free([1], false);
    pool.free([0], false);
    // Freed pages are merged with the rest and sorted: 0 and 1 come back before 5.
    expect([...pool.allocate(3, 3)!]).toEqual([0, 1, 5]);
  });

  it('refuses an allocation it cannot satisfy without reserving anything', () => {
    const pool = new KvPool('prefill', 0, 64 * 4, 64);
    pool.allocate(3, 1);
    expect(pool.allocate(2, 2)).toBeNull();
    expect(pool.freePages).toBe(1);
  });

  it('keeps KV after a free (stale) unless clearing is on', () => {
    const pool = new KvPool('decode', 0, 16 * 4, 16);
    const pages = pool.allocate(2, 7)!;
    pool.writeTokens(pages, Uint16Array.from({ length: 20 }, (_, i) => 10 + i), 2, 7, 0, 5);
    pool.free(pages, false);
    expect(pool.pageState[0]).toBe(PAGE_STALE);
    expect(pool.valueTokens[0]).toBe(10);
    expect(pool.slotWriter[19]).toBe(7);
    const again = pool.allocate(2, 8)!;
    // Reallocation does not clear either: the new owner's pages still carry request 7's KV.
    expect(pool.slotWriter[again[0]! * 16]).toBe(7);
    pool.free(again, true);
    expect(pool.pageState[0]).toBe(PAGE_CLEARED);
    expect(pool.valueTokens[0]).toBe(0);
    expect(pool.slotWriter[19]).toBe(NO_REQUEST);
    expect(pool.pageState[3]).toBe(PAGE_ZERO);
  });

  it('under the zero-on-allocate rule, a page is wiped as it is handed out, not when it is freed', () => {
    const pool = new KvPool('decode', 0, 16 * 4, 16);
    const pages = pool.allocate(2, 7)!;
    pool.writeTokens(pages, Uint16Array.from({ length: 20 }, (_, i) => 10 + i), 2, 7, 0, 5);
    pool.free(pages, false);
    expect(pool.pageState[0]).toBe(PAGE_STALE);
    const again = pool.allocate(2, 8, true)!;
    expect([...again]).toEqual([0, 1]);
    expect(pool.pageState[0]).toBe(PAGE_LIVE);
    expect(pool.valueTokens.subarray(0, 32).every((v) => v === 0)).toBe(true);
    expect(pool.slotWriter.subarray(0, 32).every((w) => w === NO_REQUEST)).toBe(true);
    expect(pool.pageWrittenFor[0]).toBe(NO_REQUEST);
    pool.free(again, false);
    // Nothing was written after the wipe: the freed pages are zero again, not stale.
    expect(pool.pageState[0]).toBe(PAGE_ZERO);
  });

  it('copies whole pages, slots the source never wrote included', () => {
    const src = new KvPool('prefill', 0, 8 * 2, 8);
    const dst = new KvPool('decode', 0, 8 * 2, 8);
    const a = src.allocate(1, 1)!;
    src.writeTokens(a, Uint16Array.from([5, 6, 7, 8, 9, 10, 11, 12]), 2, 1, 0, 0);
    src.free(a, false);
    const b = src.allocate(1, 2)!;
    src.writeTokens(b, Uint16Array.of(1), 2, 2, 1, 0); // one placeholder token
    const d = dst.allocate(1, 2)!;
    KvPool.copyPage(src, b[0]!, dst, d[0]!, 2, 1, 0);
    expect([...dst.valueTokens.subarray(0, 8)]).toEqual([1, 6, 7, 8, 9, 10, 11, 12]);
    expect([...dst.slotWriter.subarray(0, 8)]).toEqual([2, 1, 1, 1, 1, 1, 1, 1]);
    expect(dst.pageWrittenFor[d[0]!]).toBe(2);
  });

  it('conserves pages under any sequence of allocations and frees', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 12 }), fc.boolean()), { maxLength: 60 }), (ops) => {
        const pool = new KvPool('decode', 0, 16 * 40, 16);
        const live = new Map<number, Int32Array>();
        let next = 0;
        for (const [alloc, n, clear] of ops) {
          if (alloc || live.size === 0) {
            const pages = pool.allocate(n, next);
            if (pages) live.set(next, pages);
            next++;
          } else {
            const [id, pages] = live.entries().next().value!;
            pool.free(pages, clear);
            live.delete(id);
          }
          const owned = new Set<number>();
          let reserved = 0;
          for (const [id, pages] of live) {
            for (const p of pages) {
              expect(owned.has(p)).toBe(false); // never owned twice
              owned.add(p);
              expect(pool.pageOwner[p]).toBe(id);
              expect(pool.pageState[p]).toBe(PAGE_LIVE);
              reserved++;
            }
          }
          expect(pool.freePages + reserved).toBe(pool.pageCount);
        }
      }),
    );
  });

  it('refuses a double free', () => {
    const pool = new KvPool('decode', 0, 64, 16);
    const pages = pool.allocate(1, 1)!;
    pool.free(pages, false);
    expect(() => pool.free(pages, false)).toThrow(/freed twice/);
  });
});
