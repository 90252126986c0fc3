/**
 * One node's paged KV memory.
 *
 * A slot holds one token's KV. The toy model's K is a function of the token before it and V of the
 * token itself (attention.ts), so a slot stores those two token ids plus the request that wrote it:
 * that *is* the slot's KV content, compressed, and it survives a free exactly as real KV does.
 * Everything lives in typed arrays: a 1,310,720-token decode pool is ~10 MB, not a million objects.
 */

import type { FreeListPolicy } from './config.ts';
import type { PageTensors } from './model/kvTensors.ts';

export type NodeKind = 'prefill' | 'decode';

/**
 * Page 0 of every pool is never handed out: SGLang's allocators start their free list at 1
 * (`free_pages = arange(1, num_pages + 1)`), keeping page 0 as padding. A pool of N usable pages
 * therefore has N + 1; the capacity (and every admission limit) counts the N.
 */
export const RESERVED_PAGE = 0;

/** Page states as the views show them. */
export const PAGE_ZERO = 0; // never written since start-up (zero-filled)
export const PAGE_LIVE = 1; // reserved by a request in flight
export const PAGE_STALE = 2; // free, but still holds an earlier request's KV
export const PAGE_CLEARED = 3; // free, zeroed by the clear-on-free mitigation
export type PageState = typeof PAGE_ZERO | typeof PAGE_LIVE | typeof PAGE_STALE | typeof PAGE_CLEARED;

export const NO_REQUEST = -1;

/**
 * What a run of slots holds, grouped: one entry per distinct (key token, value token, writer), in
 * order of first appearance, with how many slots hold it and the offset of the latest. Decode's
 * counting pass (attention.ts) adds these up instead of visiting every slot: the grouped counts,
 * first-seen order and latest positions are exactly what a slot-by-slot pass would find.
 */
export interface SlotSummary {
  readonly entries: number;
  readonly writerCount: number;
  /**
   * `entries` × [key token << 16 | value token, writer, slots, offset of the latest slot from the
   * run's first], then `writerCount` × [writer, slots it wrote in the run], writers in order of
   * first appearance. One array, so a summary is one allocation and one cache-friendly read.
   */
  readonly data: Int32Array;
}

export class PoolSummaries {
  readonly segmentCount: number;
  private readonly stale: Uint8Array;
  private readonly cache: (SlotSummary | null)[];
  /** Segments built so far (a bench and tests read it). */
  builds = 0;
  /** Of those, built from the pages' source stretches (`KvPool.pageSource`) without visiting a slot. */
  sourceBuilds = 0;
  /**
   * Summaries of one stretch of a cyclic source as a segment holds it, writer left out: by source,
   * then by (first key, source position). A long prompt lays the same stretch, shifted by whole
   * segments, over many segments, and a 2,048-token corpus repeats every 4,096-slot segment.
   */
  private readonly stretches = new Map<Uint16Array, Map<number, Int32Array>>();
  private stretchCount = 0;

  constructor(private readonly pool: KvPool, readonly segmentPages: number) {
    if (!(Number.isInteger(segmentPages) && segmentPages >= 1)) throw new Error(`segmentPages must be a positive integer, got ${segmentPages}`);
    this.segmentCount = Math.floor(pool.pageCount / segmentPages);
    this.stale = new Uint8Array(this.segmentCount).fill(WRITTEN);
    this.cache = new Array<SlotSummary | null>(this.segmentCount).fill(null);
  }

  /** Marks the segment holding `page` stale (its pages' slots are about to change or just did). */
  touch(page: number): void {
    const g = Math.floor(page / this.segmentPages);
    if (g < this.segmentCount) this.stale[g] = WRITTEN;
  }

  /** Every slot may have changed (written other than through the pool's write paths). */
  invalidateAll(): void {
    this.stale.fill(WRITTEN);
    this.pool.pageSource.fill(null);
  }

  /**
   * The summary of pages segment·S … segment·S + S − 1 as their slots are now; null past the last
   * whole segment, and at the first read after a write: summarising costs about two slot visits, so
   * contents read once (most of a fresh pool, the small scenarios) are visited slot by slot, and the
   * summary is built at the second read of the same contents, to serve every read after.
   */
  segment(segment: number): SlotSummary | null {
    if (!(segment >= 0 && segment < this.segmentCount)) return null;
    const state = this.stale[segment];
    if (state !== SUMMARISED) {
      const fromSource = this.summarizeStretch(segment);
      if (fromSource !== null) {
        this.cache[segment] = fromSource;
        this.stale[segment] = SUMMARISED;
        this.builds++;
        this.sourceBuilds++;
        return fromSource;
      }
    }
    if (state === WRITTEN) {
      this.stale[segment] = READ_ONCE;
      return null;
    }
    if (state === READ_ONCE) {
      const ps = this.pool.pageSize;
      this.cache[segment] = summarizeSlots(this.pool, segment * this.segmentPages * ps, this.segmentPages * ps);
      this.stale[segment] = SUMMARISED;
      this.builds++;
    }
    return this.cache[segment]!;
  }

  /**
   * The segment's summary from what its pages record of their last write, when one request's prompt
   * runs unbroken over all of them (`KvPool.pageSource`): its slots then follow from the cyclic
   * source, so the summary does too, in O(entries) once the stretch is known.
   * Null when the pages hold anything else; the caller then reads the slots.
   */
  private summarizeStretch(segment: number): SlotSummary | null {
    const pool = this.pool;
    const S = this.segmentPages;
    const ps = pool.pageSize;
    const first = segment * S;
    const source = pool.pageSource[first];
    if (source === null || source === undefined) return null;
    const C = source.length;
    const at = pool.pageSourceAt[first]!;
    const writer = pool.slotWriter[first * ps]!;
    for (let k = 1; k < S; k++) {
      const page = first + k;
      if (pool.pageSource[page] !== source || pool.slotWriter[page * ps] !== writer) return null;
      const pageAt = pool.pageSourceAt[page]!;
      if (pageAt !== (at + k * ps) % C || pool.pageFirstKey[page] !== source[pageAt === 0 ? C - 1 : pageAt - 1]) return null;
    }
    const firstKey = pool.pageFirstKey[first]!;
    let bySource = this.stretches.get(source);
    if (!bySource) {
      bySource = new Map();
      this.stretches.set(source, bySource);
    }
    const id = firstKey * C + at;
    let stretch = bySource.get(id);
    if (!stretch) {
      // Bounded: stretches are cheap to recompute, and a long run meets many sources.
      if (this.stretchCount >= MAX_STRETCHES) {
        this.stretches.clear();
        this.stretchCount = 0;
        bySource = new Map();
        this.stretches.set(source, bySource);
      }
      stretch = summarizeStretch(source, at, firstKey, S * ps);
      bySource.set(id, stretch);
      this.stretchCount++;
    }
    const entries = stretch.length / 3;
    const data = new Int32Array(4 * entries + 2);
    for (let e = 0; e < entries; e++) {
      data[4 * e] = stretch[3 * e]!;
      data[4 * e + 1] = writer;
      data[4 * e + 2] = stretch[3 * e + 1]!;
      data[4 * e + 3] = stretch[3 * e + 2]!;
    }
    data[4 * entries] = writer;
    data[4 * entries + 1] = S * ps;
    return { entries, writerCount: 1, data };
  }
}

const MAX_STRETCHES = 4096;

/**
 * What n slots written from `source` at position `at` hold, grouped by (key, value) in order of first
 * appearance: [key << 16 | value, slots, offset of the latest] per entry. Slot 0's key is `firstKey`,
 * slot i's the source token before its value.
 */
function summarizeStretch(source: Uint16Array, at: number, firstKey: number, n: number): Int32Array {
  const C = source.length;
  if (entryOfPair.length === 0) entryOfPair = new Int32Array(DIRECT_TOKENS * DIRECT_TOKENS);
  if (entryScratch.length < 3 * n) entryScratch = new Int32Array(3 * n);
  const table = entryOfPair;
  const ent = entryScratch;
  let entries = 0;
  let direct = true;
  let key = firstKey;
  for (let i = 0, pos = at; i < n; i++) {
    const value = source[pos]!;
    if ((key | value) >= DIRECT_TOKENS) {
      direct = false;
      break;
    }
    const pair = (key << 10) | value;
    const e = table[pair]! - 1;
    if (e < 0) {
      table[pair] = entries + 1;
      ent[3 * entries] = (key << 16) | value;
      ent[3 * entries + 1] = 1;
      ent[3 * entries++ + 2] = i;
    } else {
      ent[3 * e + 1]!++;
      ent[3 * e + 2] = i;
    }
    key = value;
    if (++pos === C) pos = 0;
  }
  for (let e = 0; e < entries; e++) {
    const kv = ent[3 * e]!;
    table[((kv >>> 16) << 10) | (kv & 0xffff)] = 0; // leave the table empty for the next run
  }
  if (direct) return ent.slice(0, 3 * entries);
  // Token ids past the direct table's: the same grouping through a map.
  const entryOf = new Map<number, number>();
  const out: number[] = [];
  key = firstKey;
  for (let i = 0, pos = at; i < n; i++) {
    const value = source[pos]!;
    const kv = (key << 16) | value;
    const e = entryOf.get(kv);
    if (e === undefined) {
      entryOf.set(kv, out.length);
      out.push(kv, 1, i);
    } else {
      out[e + 1]!++;
      out[e + 2] = i;
    }
    key = value;
    if (++pos === C) pos = 0;
  }
  return Int32Array.from(out);
}

/** Segment states: written since its last summary, read once since, summarised. */
const WRITTEN = 1;
const READ_ONCE = 2;
const SUMMARISED = 0;

/** Scratch for `summarizeSlots`, grown to the largest run summarised so far. */
const DIRECT_TOKENS = 1024; // every vocabulary the engine builds fits (vocab.ts MAX_VOCABULARY)
let entryOfPair = new Int32Array(0);
let nextSamePair = new Int32Array(0);

/**
 * Groups n slots from `base` by (key, value, writer): one pass, each (key, value) pair looked up in a
 * table indexed by the pair itself (token ids below 1,024; other memory takes the hashed path), the
 * few writers that share a pair chained behind it.
 */
function summarizeSlots(pool: KvPool, base: number, n: number): SlotSummary {
  if (entryOfPair.length === 0) entryOfPair = new Int32Array(DIRECT_TOKENS * DIRECT_TOKENS);
  if (entryScratch.length < 4 * n) entryScratch = new Int32Array(4 * n);
  if (writerScratch.length < 2 * n) writerScratch = new Int32Array(2 * n);
  if (nextSamePair.length < n) nextSamePair = new Int32Array(n);
  const table = entryOfPair;
  const next = nextSamePair;
  const ent = entryScratch;
  const wr = writerScratch;
  const { keyTokens, valueTokens, slotWriter } = pool;
  let entries = 0;
  let writers = 0;
  let runWriter = -2; // no writer is −2 (NO_REQUEST is −1)
  let runAt = -1;
  let direct = true;
  for (let i = 0; i < n; i++) {
    const slot = base + i;
    const k = keyTokens[slot]!;
    const v = valueTokens[slot]!;
    if ((k | v) >= DIRECT_TOKENS) {
      direct = false;
      break;
    }
    const w = slotWriter[slot]!;
    if (w !== runWriter) {
      runWriter = w;
      runAt = 0;
      while (runAt < writers && wr[2 * runAt] !== w) runAt++;
      if (runAt === writers) {
        wr[2 * writers] = w;
        wr[2 * writers++ + 1] = 0;
      }
    }
    wr[2 * runAt + 1]!++;
    const pair = (k << 10) | v;
    const head = table[pair]! - 1;
    let e = head;
    while (e >= 0 && ent[4 * e + 1] !== w) e = next[e]!;
    if (e < 0) {
      e = entries++;
      next[e] = head;
      table[pair] = e + 1;
      ent[4 * e] = (k << 16) | v;
      ent[4 * e + 1] = w;
      ent[4 * e + 2] = 1;
    } else {
      ent[4 * e + 2]!++;
    }
    ent[4 * e + 3] = i;
  }
  for (let e = 0; e < entries; e++) {
    const kv = ent[4 * e]!;
    table[((kv >>> 16) << 10) | (kv & 0xffff)] = 0; // leave the table empty for the next run
  }
  if (!direct) return summarizeSlotsHashed(pool, base, n);
  const data = new Int32Array(4 * entries + 2 * writers);
  data.set(ent.subarray(0, 4 * entries));
  data.set(wr.subarray(0, 2 * writers), 4 * entries);
  return { entries, writerCount: writers, data };
}

let hashSlots = new Int32Array(0);
let entryScratch = new Int32Array(0);
let writerScratch = new Int32Array(0);
let entryOfSlot = new Int32Array(0);

function summarizeSlotsHashed(pool: KvPool, base: number, n: number): SlotSummary {
  let size = 16;
  while (size < 2 * n) size <<= 1;
  if (hashSlots.length < size) hashSlots = new Int32Array(size);
  if (entryScratch.length < 4 * n) entryScratch = new Int32Array(4 * n);
  if (writerScratch.length < 2 * n) writerScratch = new Int32Array(2 * n);
  if (entryOfSlot.length < n) entryOfSlot = new Int32Array(n);
  const table = hashSlots;
  const mask = size - 1;
  const ent = entryScratch;
  const wr = writerScratch;
  const entryOf = entryOfSlot;
  const { keyTokens, valueTokens, slotWriter } = pool;

  // Slots per writer, from the writer runs (a page is usually one request's).
  let writers = 0;
  for (let i = 0; i < n; ) {
    const w = slotWriter[base + i]!;
    let j = i + 1;
    while (j < n && slotWriter[base + j] === w) j++;
    let k = 0;
    while (k < writers && wr[2 * k] !== w) k++;
    if (k === writers) {
      wr[2 * writers] = w;
      wr[2 * writers++ + 1] = 0;
    }
    wr[2 * k + 1]! += j - i;
    i = j;
  }

  let entries = 0;
  let period = 0;
  for (let i = 0; i < n; ) {
    // Prompts are written from cyclic sources, so a slot usually repeats the one a period back
    // (the distance between the last two sightings of an entry). A stretch that does adds no new
    // entry: each entry of the period before it gains its repeats, in O(period), not per slot.
    if (period > 0 && i >= period) {
      let end = i;
      while (end < n) {
        const slot = base + end;
        const back = slot - period;
        if (keyTokens[back] !== keyTokens[slot] || valueTokens[back] !== valueTokens[slot] || slotWriter[back] !== slotWriter[slot]) break;
        end++;
      }
      if (end > i) {
        for (let j = i - period, to = Math.min(i, end - period); j < to; j++) {
          const e = entryOf[j]!;
          const repeats = Math.floor((end - 1 - j) / period);
          ent[4 * e + 2]! += repeats;
          const latest = j + repeats * period;
          if (latest > ent[4 * e + 3]!) ent[4 * e + 3] = latest;
        }
        for (let x = i; x < end; x += period) entryOf.copyWithin(x, x - period, Math.min(end, x + period) - period);
        i = end;
        continue;
      }
    }
    const slot = base + i;
    const kv = (keyTokens[slot]! << 16) | valueTokens[slot]!;
    const w = slotWriter[slot]!;
    let h = (Math.imul(kv ^ Math.imul(w, 0x9e3779b1), 0x85ebca6b) >>> 7) & mask;
    for (;;) {
      const e = table[h]! - 1;
      if (e < 0) {
        table[h] = entries + 1;
        entryOf[i] = entries;
        const at = 4 * entries++;
        ent[at] = kv;
        ent[at + 1] = w;
        ent[at + 2] = 1;
        ent[at + 3] = i;
        break;
      }
      const at = 4 * e;
      if (ent[at] === kv && ent[at + 1] === w) {
        period = i - ent[at + 3]!;
        entryOf[i] = e;
        ent[at + 2]!++;
        ent[at + 3] = i;
        break;
      }
      h = (h + 1) & mask;
    }
    i++;
  }
  table.fill(0, 0, size); // leave the scratch empty for the next run
  const data = new Int32Array(4 * entries + 2 * writers);
  data.set(ent.subarray(0, 4 * entries));
  data.set(wr.subarray(0, 2 * writers), 4 * entries);
  return { entries, writerCount: writers, data };
}

/** Whole pages a pool of `capacityTokens` can hand out: the pool is cut into pages, and a partial page is not one. */
export function usablePageCount(capacityTokens: number, pageSize: number): number {
  return Math.floor(capacityTokens / pageSize);
}

/** Pages of a pool of `capacityTokens`, the reserved page 0 included (what the views draw). */
export function poolPageCount(capacityTokens: number, pageSize: number): number {
  return usablePageCount(capacityTokens, pageSize) + 1;
}

export class KvPool {
  /** Pages, the reserved page 0 included. */
  readonly pageCount: number;
  /** Pages it can hand out: every page but page 0. */
  readonly usablePages: number;
  readonly slotCount: number;
  /** K content: the token id that preceded the written token. */
  readonly keyTokens: Uint16Array;
  /** V content: the written token id. */
  readonly valueTokens: Uint16Array;
  /** Which request's computation produced each slot (NO_REQUEST: zero-filled or cleared). */
  readonly slotWriter: Int32Array;
  /** The request currently holding each page (NO_REQUEST: free). */
  readonly pageOwner: Int32Array;
  /** The request for whose handoff the page was last written (NO_REQUEST: never / cleared). */
  readonly pageWrittenFor: Int32Array;
  /** Handoff serial of that write: lets decode tell "written in this handoff" from "written once". */
  readonly pageWriteHandoff: Int32Array;
  /** Simulated time of the last write, in ms. */
  readonly pageWriteTime: Float64Array;
  readonly pageState: Uint8Array;
  /** Bit set = page free. Scanning words makes lowest-id-first allocation cheap even when fragmented. */
  private readonly freeBits: Uint32Array;
  private freeCount: number;
  /**
   * The `staged` policy's lists (null under `sorted`): the current free list, taken from its front
   * (`freeList[freeHead…freeHead + freeLength)`), and the pages freed since the last merge, in the
   * order they were freed.
   */
  private readonly freeList: Int32Array | null;
  private freeHead = 0;
  private freeLength = 0;
  private readonly staged: Int32Array | null;
  private stagedLength = 0;
  /**
   * Where the page's last write filled every slot of it with a stretch of a prompt's cyclic source
   * (a prefill write, or a copy of such a page): that source, null otherwise. Its slot i then holds
   * key pageFirstKey (i = 0) or source[at + i − 1], value source[at + i] (at = pageSourceAt, indices
   * modulo the source's length), and one writer. What the write knew, kept so that a summary of the
   * page follows from the source instead of a pass over its slots; the slots stay the ground truth.
   */
  readonly pageSource: (Uint16Array | null)[];
  readonly pageSourceAt: Int32Array;
  readonly pageFirstKey: Int32Array;
  /** Grouped summaries of its segments, read by decode instead of every slot (null: slot by slot). */
  readonly summaries: PoolSummaries | null;
  /**
   * The real model's per-layer K and V of every slot, when the transformer decodes (transformerDecoder.ts
   * attaches them); null under the compressed model, whose KV is the two token ids above. Zeroed and
   * copied with the slots, never on a free without a pool rule.
   */
  tensors: PageTensors | null = null;

  constructor(
    readonly kind: NodeKind,
    readonly index: number,
    readonly capacityTokens: number,
    readonly pageSize: number,
    /** Pages per summarised segment; 0 keeps no summaries. */
    summaryPages = 0,
    readonly policy: FreeListPolicy = 'staged',
  ) {
    this.pageCount = poolPageCount(capacityTokens, pageSize);
    this.usablePages = usablePageCount(capacityTokens, pageSize);
    this.slotCount = this.pageCount * pageSize;
    this.keyTokens = new Uint16Array(this.slotCount);
    this.valueTokens = new Uint16Array(this.slotCount);
    this.slotWriter = new Int32Array(this.slotCount).fill(NO_REQUEST);
    this.pageOwner = new Int32Array(this.pageCount).fill(NO_REQUEST);
    this.pageWrittenFor = new Int32Array(this.pageCount).fill(NO_REQUEST);
    this.pageWriteHandoff = new Int32Array(this.pageCount).fill(NO_REQUEST);
    this.pageWriteTime = new Float64Array(this.pageCount).fill(-1);
    this.pageState = new Uint8Array(this.pageCount);
    this.freeBits = new Uint32Array(Math.ceil(this.pageCount / 32));
    for (let p = RESERVED_PAGE + 1; p < this.pageCount; p++) this.freeBits[p >>> 5]! |= 1 << (p & 31);
    this.freeCount = this.usablePages;
    if (policy === 'staged') {
      this.freeList = new Int32Array(this.usablePages);
      for (let i = 0; i < this.usablePages; i++) this.freeList[i] = i + 1;
      this.freeLength = this.usablePages;
      this.staged = new Int32Array(this.usablePages);
    } else {
      this.freeList = null;
      this.staged = null;
    }
    this.pageSource = new Array<Uint16Array | null>(this.pageCount).fill(null);
    this.pageSourceAt = new Int32Array(this.pageCount);
    this.pageFirstKey = new Int32Array(this.pageCount);
    this.summaries = summaryPages > 0 ? new PoolSummaries(this, summaryPages) : null;
  }

  get name(): string {
    return `${this.kind}-${this.index}`;
  }

  get freePages(): number {
    return this.freeCount;
  }

  isFree(page: number): boolean {
    return (this.freeBits[page >>> 5]! & (1 << (page & 31))) !== 0;
  }

  /**
   * Reserves `count` pages for `request`, in the pool's order (`FreeListPolicy`), as one request's
   * `alloc_extend` (`alloc` at page size 1) with no prefix: `tokens` is its extend length, which
   * decides SGLang's merge (`allocateBatch`). Returns null, reserving nothing, when too few are free
   * (SGLang may still have merged its staged pages: so does this).
   * `zero`: the zero-on-allocate rule, which wipes each page's KV as it is handed out.
   */
  allocate(count: number, request: number, zero = false, tokens = count * this.pageSize): Int32Array | null {
    return this.allocateBatch([{ request, pages: count, tokens }], zero)?.[0] ?? null;
  }

  /**
   * One `alloc_extend` for several requests at once (a batch; pre-allocation is a batch of one), in
   * order, each from the front of the list. Under `staged` the merge is decided once for the batch,
   * by SGLang's rule: `extend_num_tokens // page_size + bs + 1 > len(free_pages)` for a paged pool,
   * `extend_num_tokens > len(free_pages)` at page size 1 (`TokenToKVPoolAllocator.alloc`). Null,
   * reserving nothing, when the batch's pages are more than the list holds after that.
   */
  allocateBatch(requests: readonly { request: number; pages: number; tokens: number }[], zero = false): Int32Array[] | null {
    let count = 0;
    let tokens = 0;
    for (const r of requests) {
      count += r.pages;
      tokens += r.tokens;
    }
    if (this.freeList) {
      const trigger = this.pageSize === 1 ? tokens : Math.floor(tokens / this.pageSize) + requests.length + 1;
      if (trigger > this.freeLength) this.mergeStaged();
      if (count > this.freeLength) return null;
    } else if (count > this.freeCount) {
      return null;
    }
    return requests.map((r) => this.take(r.pages, r.request, zero));
  }

  /**
   * One decode step of a running batch of `batchSize` requests (`alloc_decode`; `alloc(bs)` at page
   * size 1): each of `requests`, in batch order, crosses a page boundary and takes one new page.
   * Under `staged` the staged pages are merged first when `batchSize > len(free_pages)`. Null,
   * reserving nothing, when the list is shorter than `requests` after that (SGLang then retracts).
   */
  allocateDecode(batchSize: number, requests: readonly number[], zero = false): Int32Array | null {
    if (this.freeList) {
      if (batchSize > this.freeLength) this.mergeStaged();
      if (requests.length > this.freeLength) return null;
    } else if (requests.length > this.freeCount) {
      return null;
    }
    const pages = new Int32Array(requests.length);
    requests.forEach((request, i) => (pages[i] = this.take(1, request, zero)[0]!));
    return pages;
  }

  /** `count` pages for `request` from the pool's order; the caller checked they are there. */
  private take(count: number, request: number, zero: boolean): Int32Array {
    if (this.freeList) return this.takeStaged(count, request, zero);
    const pages = new Int32Array(count);
    let n = 0;
    for (let w = 0; w < this.freeBits.length && n < count; w++) {
      let bits = this.freeBits[w]!;
      while (bits !== 0 && n < count) {
        const bit = 31 - Math.clz32(bits & -bits);
        const page = (w << 5) | bit;
        bits &= bits - 1;
        pages[n++] = page;
        this.pageOwner[page] = request;
        this.pageState[page] = PAGE_LIVE;
        if (zero) this.zeroPage(page);
      }
      this.freeBits[w] = bits;
    }
    this.freeCount -= count;
    return pages;
  }

  /**
   * SGLang's `merge_and_sort_free`: the staged pages join the current list, and the whole list is
   * sorted. The current list is always sorted (a merge's result, taken from the front), so sorting
   * the staged pages and merging the two runs gives the same list in linear time.
   */
  private mergeStaged(): void {
    if (this.stagedLength === 0) return;
    const list = this.freeList!;
    const staged = this.staged!.subarray(0, this.stagedLength).sort();
    const current = list.slice(this.freeHead, this.freeHead + this.freeLength);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < current.length && j < staged.length) list[k++] = current[i]! < staged[j]! ? current[i++]! : staged[j++]!;
    while (i < current.length) list[k++] = current[i++]!;
    while (j < staged.length) list[k++] = staged[j++]!;
    this.freeHead = 0;
    this.freeLength = k;
    this.stagedLength = 0;
  }

  /** The front of SGLang's current free list. */
  private takeStaged(count: number, request: number, zero: boolean): Int32Array {
    const list = this.freeList!;
    const pages = list.slice(this.freeHead, this.freeHead + count);
    this.freeHead += count;
    this.freeLength -= count;
    for (let i = 0; i < count; i++) {
      const page = pages[i]!;
      this.freeBits[page >>> 5]! &= ~(1 << (page & 31));
      this.pageOwner[page] = request;
      this.pageState[page] = PAGE_LIVE;
      if (zero) this.zeroPage(page);
    }
    this.freeCount -= count;
    return pages;
  }

  /** Returns pages to the free list. Their KV stays unless `clear` (the clear-on-free mitigation). */
  free(pages: ArrayLike<number>, clear: boolean): void {
    for (let i = 0; i < pages.length; i++) {
      const page = pages[i]!;
      if (page === RESERVED_PAGE) throw new Error(`${this.name}: page ${RESERVED_PAGE} is reserved and was never handed out`);
      if (this.isFree(page)) throw new Error(`${this.name}: page ${page} freed twice`);
      this.freeBits[page >>> 5]! |= 1 << (page & 31);
      if (this.staged) this.staged[this.stagedLength++] = page;
      this.pageOwner[page] = NO_REQUEST;
      if (clear) {
        this.zeroPage(page);
        this.pageState[page] = PAGE_CLEARED;
      } else {
        this.pageState[page] = this.pageWrittenFor[page] === NO_REQUEST ? PAGE_ZERO : PAGE_STALE;
      }
    }
    this.freeCount += pages.length;
  }

  /**
   * Slots were written other than through the pool's write paths (a test between events): forget
   * what the pages record of their sources, and every summary.
   */
  slotsWrittenOutside(): void {
    this.pageSource.fill(null);
    this.summaries?.invalidateAll();
  }

  /** Wipes a page's KV and what it records of its last write. */
  private zeroPage(page: number): void {
    const base = page * this.pageSize;
    this.summaries?.touch(page);
    this.pageSource[page] = null;
    this.keyTokens.fill(0, base, base + this.pageSize);
    this.valueTokens.fill(0, base, base + this.pageSize);
    this.slotWriter.fill(NO_REQUEST, base, base + this.pageSize);
    this.tensors?.zeroSlots(base, this.pageSize);
    this.pageWrittenFor[page] = NO_REQUEST;
    this.pageWriteHandoff[page] = NO_REQUEST;
    this.pageWriteTime[page] = -1;
  }

  /**
   * Prefill's compute: writes KV for `tokens` into `pages`, in order, as request `request`.
   * `previous` is the token before tokens[0] (its K depends on it). Slots past the end of the last
   * page are left as they were: real prefill writes only the tokens it computed.
   */
  writeTokens(pages: ArrayLike<number>, tokens: Uint16Array, previous: number, request: number, handoff: number, time: number): void {
    let prev = previous;
    for (let i = 0; i < tokens.length; i++) {
      const page = pages[Math.floor(i / this.pageSize)]!;
      const slot = page * this.pageSize + (i % this.pageSize);
      const token = tokens[i]!;
      this.keyTokens[slot] = prev;
      this.valueTokens[slot] = token;
      this.slotWriter[slot] = request;
      prev = token;
    }
    const pageCount = Math.ceil(tokens.length / this.pageSize);
    for (let p = 0; p < pageCount; p++) this.markWritten(pages[p]!, request, handoff, time);
  }

  /**
   * Prefill's compute for a prompt given as `length` tokens of `source` read cyclically from `start`:
   * the same slots `writeTokens` would write for that token sequence, copied a page (or a wrap of the
   * source) at a time instead of slot by slot, and without materialising the prompt.
   */
  writePrompt(pages: ArrayLike<number>, source: Uint16Array, start: number, length: number, previous: number, request: number, handoff: number, time: number): void {
    const C = source.length;
    const ps = this.pageSize;
    let pos = start % C;
    let prev = previous;
    for (let p = 0, i = 0; i < length; ) {
      // Lowest-id-first allocation makes runs of consecutive pages: their slots are contiguous.
      const first = pages[p]!;
      let run = 1;
      while (i + run * ps < length && pages[p + run] === first + run) run++;
      const base = first * ps;
      const n = Math.min(run * ps, length - i);
      for (let written = 0; written < n; ) {
        const chunk = Math.min(n - written, C - pos);
        const dst = base + written;
        this.valueTokens.set(source.subarray(pos, pos + chunk), dst);
        this.keyTokens[dst] = prev;
        if (chunk > 1) this.keyTokens.set(source.subarray(pos, pos + chunk - 1), dst + 1);
        prev = source[pos + chunk - 1]!;
        written += chunk;
        pos += chunk;
        if (pos === C) pos = 0;
      }
      this.slotWriter.fill(request, base, base + n);
      for (let k = 0; k < run; k++) {
        const page = first + k;
        this.markWritten(page, request, handoff, time);
        // A page the prompt fills records its stretch; a partial last page keeps older slots: not one.
        if ((k + 1) * ps <= n) {
          const at = (start + i + k * ps) % C;
          this.pageSource[page] = source;
          this.pageSourceAt[page] = at;
          this.pageFirstKey[page] = i + k * ps === 0 ? previous : source[at === 0 ? C - 1 : at - 1]!;
        }
      }
      p += run;
      i += n;
    }
  }

  /**
   * Decode's writes of generated tokens' KV: `values[i]` at slot `offset + i` of `page`, its key the
   * token before it (`previous` for the first). The page's other slots stay as they were; the caller
   * marks the page written when the request took it for these tokens (`markWritten`).
   */
  writeSlots(page: number, offset: number, values: ArrayLike<number>, previous: number, request: number): void {
    const base = page * this.pageSize + offset;
    let prev = previous;
    for (let i = 0; i < values.length; i++) {
      this.keyTokens[base + i] = prev;
      this.valueTokens[base + i] = values[i]!;
      this.slotWriter[base + i] = request;
      prev = values[i]!;
    }
    this.summaries?.touch(page);
    this.pageSource[page] = null;
  }

  /** Marks a page as written for a request's handoff (its slots were set by the caller: no source stretch). */
  markWritten(page: number, request: number, handoff: number, time: number): void {
    this.summaries?.touch(page);
    this.pageSource[page] = null;
    this.pageWrittenFor[page] = request;
    this.pageWriteHandoff[page] = handoff;
    this.pageWriteTime[page] = time;
  }

  /**
   * One-sided page copy, as RDMA does it: the whole source page lands in the destination page,
   * including slots the source never wrote for this request (they carry their old writers along).
   */
  static copyPage(src: KvPool, srcPage: number, dst: KvPool, dstPage: number, request: number, handoff: number, time: number): void {
    if (src.pageSize !== dst.pageSize) throw new Error('page size differs between prefill and decode');
    const from = srcPage * src.pageSize;
    const to = dstPage * dst.pageSize;
    dst.keyTokens.set(src.keyTokens.subarray(from, from + src.pageSize), to);
    dst.valueTokens.set(src.valueTokens.subarray(from, from + src.pageSize), to);
    dst.slotWriter.set(src.slotWriter.subarray(from, from + src.pageSize), to);
    if (dst.tensors && src.tensors) dst.tensors.copySlots(src.tensors, from, to, src.pageSize);
    dst.markWritten(dstPage, request, handoff, time);
    dst.copySource(src, srcPage, dstPage);
  }

  /**
   * `copyPage` for srcPages[i] → dstPages[i], i < srcPages.length. Lowest-id-first allocation makes
   * both lists mostly consecutive, so runs are copied with one `set` per array.
   */
  static copyPages(src: KvPool, srcPages: ArrayLike<number>, dst: KvPool, dstPages: ArrayLike<number>, request: number, handoff: number, time: number): void {
    if (src.pageSize !== dst.pageSize) throw new Error('page size differs between prefill and decode');
    const ps = src.pageSize;
    for (let i = 0; i < srcPages.length; ) {
      const s0 = srcPages[i]!;
      const d0 = dstPages[i]!;
      let run = 1;
      while (i + run < srcPages.length && srcPages[i + run] === s0 + run && dstPages[i + run] === d0 + run) run++;
      const from = s0 * ps;
      const to = d0 * ps;
      const end = from + run * ps;
      dst.keyTokens.set(src.keyTokens.subarray(from, end), to);
      dst.valueTokens.set(src.valueTokens.subarray(from, end), to);
      dst.slotWriter.set(src.slotWriter.subarray(from, end), to);
      if (dst.tensors && src.tensors) dst.tensors.copySlots(src.tensors, from, to, run * ps);
      for (let k = 0; k < run; k++) {
        dst.markWritten(d0 + k, request, handoff, time);
        dst.copySource(src, s0 + k, d0 + k);
      }
      i += run;
    }
  }

  /** The destination of a whole-page copy holds what the source page held: its stretch too. */
  private copySource(src: KvPool, srcPage: number, dstPage: number): void {
    this.pageSource[dstPage] = src.pageSource[srcPage]!;
    this.pageSourceAt[dstPage] = src.pageSourceAt[srcPage]!;
    this.pageFirstKey[dstPage] = src.pageFirstKey[srcPage]!;
  }

  /** Bytes of typed-array memory this pool holds. */
  get byteSize(): number {
    return (
      this.keyTokens.byteLength + this.valueTokens.byteLength + this.slotWriter.byteLength +
      this.pageOwner.byteLength + this.pageWrittenFor.byteLength + this.pageWriteHandoff.byteLength +
      this.pageWriteTime.byteLength + this.pageState.byteLength + this.freeBits.byteLength +
      this.pageSourceAt.byteLength + this.pageFirstKey.byteLength + (this.tensors?.byteSize ?? 0)
    );
  }
}
