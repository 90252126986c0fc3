import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FreeListPolicy } from './config.ts';
import { KvPool, NO_REQUEST, PAGE_CLEARED, PAGE_LIVE, PAGE_STALE, PAGE_ZERO, RESERVED_PAGE } from './kvPool.ts';

describe('KvPool', () => {
  it('sorted: hands out the lowest free page ids first, including ones freed out of order, never page 0', () => {
    const pool = new KvPool('decode', 0, 64 * 100, 64, 0, 'sorted');
    expect(pool.pageCount).toBe(101);
    expect(pool.usablePages).toBe(100);
    expect(pool.freePages).toBe(100);
    expect([...pool.allocate(3, 1)!]).toEqual([1, 2, 3]);
    expect([...pool.allocate(2, 2)!]).toEqual([4, 5]);
    pool.free([2], false);
    pool.free([1], false);
    // Freed pages are merged with the rest and sorted: 1 and 2 come back before 6.
    expect([...pool.allocate(3, 3)!]).toEqual([1, 2, 6]);
    expect(() => pool.free([RESERVED_PAGE], false)).toThrow(/reserved/);
  });

  it('staged (SGLang in PD mode): freed pages wait behind the current free list, merged and sorted only when it runs short', () => {
    const pool = new KvPool('decode', 0, 16 * 8, 16, 0, 'staged');
    expect([...pool.allocate(3, 1)!]).toEqual([1, 2, 3]);
    pool.free([3, 1], false);
    // The current list (4…8) still has enough: the freed pages wait, unsorted.
    expect([...pool.allocate(2, 2)!]).toEqual([4, 5]);
    pool.free([5], false);
    // 6, 7, 8 are left; 4 pages are asked: merge 6, 7, 8 with the staged 3, 1, 5 and sort.
    expect([...pool.allocate(4, 3)!]).toEqual([1, 3, 5, 6]);
    expect([...pool.allocate(2, 4)!]).toEqual([7, 8]);
    expect(pool.allocate(1, 5)).toBeNull();
    expect(pool.freePages).toBe(0);
  });

  it('sorted and staged hand out the same pages while nothing is freed, and never page 0', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 9 })), { maxLength: 50 }), (ops) => {
        const pools = (['sorted', 'staged'] as FreeListPolicy[]).map((p) => new KvPool('decode', 0, 16 * 30, 16, 0, p));
        const live: Int32Array[][] = [[], []];
        let freed = false;
        for (const [alloc, n] of ops) {
          const got = pools.map((pool, i) => {
            if (alloc || live[i]!.length === 0) {
              const pages = pool.allocate(n, 1);
              if (pages) live[i]!.push(pages);
              return pages ? [...pages] : null;
            }
            pool.free(live[i]!.shift()!, false);
            freed = true;
            return 'freed';
          });
          for (const pages of got) if (Array.isArray(pages)) expect(pages).not.toContain(RESERVED_PAGE);
          if (!freed) expect(got[1]).toEqual(got[0]);
          expect(pools[1]!.freePages).toBe(pools[0]!.freePages);
        }
      }),
    );
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
    expect(pool.pageState[1]).toBe(PAGE_STALE);
    expect(pool.valueTokens[16]).toBe(10);
    expect(pool.slotWriter[16 + 19]).toBe(7);
    const again = pool.allocate(2, 8)!;
    // Reallocation does not clear either: the new owner's pages still carry request 7's KV.
    expect(pool.slotWriter[again[0]! * 16]).toBe(7);
    pool.free(again, true);
    expect(pool.pageState[1]).toBe(PAGE_CLEARED);
    expect(pool.valueTokens[16]).toBe(0);
    expect(pool.slotWriter[16 + 19]).toBe(NO_REQUEST);
    expect(pool.pageState[4]).toBe(PAGE_ZERO);
    expect(pool.pageState[RESERVED_PAGE]).toBe(PAGE_ZERO);
  });

  it('under the zero-on-allocate rule, a page is wiped as it is handed out, not when it is freed', () => {
    const pool = new KvPool('decode', 0, 16 * 4, 16);
    const pages = pool.allocate(2, 7)!;
    pool.writeTokens(pages, Uint16Array.from({ length: 20 }, (_, i) => 10 + i), 2, 7, 0, 5);
    pool.free(pages, false);
    expect(pool.pageState[1]).toBe(PAGE_STALE);
    const again = pool.allocate(2, 8, true)!;
    expect([...again]).toEqual([1, 2]);
    expect(pool.pageState[1]).toBe(PAGE_LIVE);
    expect(pool.valueTokens.subarray(16, 48).every((v) => v === 0)).toBe(true);
    expect(pool.slotWriter.subarray(16, 48).every((w) => w === NO_REQUEST)).toBe(true);
    expect(pool.pageWrittenFor[1]).toBe(NO_REQUEST);
    pool.free(again, false);
    // Nothing was written after the wipe: the freed pages are zero again, not stale.
    expect(pool.pageState[1]).toBe(PAGE_ZERO);
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
    const at = d[0]! * 8;
    expect([...dst.valueTokens.subarray(at, at + 8)]).toEqual([1, 6, 7, 8, 9, 10, 11, 12]);
    expect([...dst.slotWriter.subarray(at, at + 8)]).toEqual([2, 1, 1, 1, 1, 1, 1, 1]);
    expect(dst.pageWrittenFor[d[0]!]).toBe(2);
  });

  it('conserves pages under any sequence of allocations and frees, under either policy', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 12 }), fc.boolean()), { maxLength: 60 }), fc.constantFrom<FreeListPolicy>('sorted', 'staged'), (ops, policy) => {
        const pool = new KvPool('decode', 0, 16 * 40, 16, 0, policy);
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
          expect(owned.has(RESERVED_PAGE)).toBe(false);
          expect(pool.freePages + reserved).toBe(pool.usablePages);
          let free = 0;
          for (let p = 0; p < pool.pageCount; p++) if (pool.isFree(p)) free++;
          expect(free).toBe(pool.freePages);
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
