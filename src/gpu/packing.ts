/**
 * Pure helpers between the engine's typed arrays and the GPU buffers: no WebGPU here, so the unit
 * tests cover them in Node.
 */
import type { ContextGroups } from '../engine/index.ts';

/** Words needed for `n` u16 values packed two per u32. */
export function packedWords(n: number): number {
  return Math.ceil(n / 2);
}

/**
 * The bytes of a Uint16Array as whole u32 words. WebGPU writes must be 4-byte multiples; an odd
 * length gets one zero pad (a copy), an even one is sent as is.
 */
export function u16AsWords(a: Uint16Array): Uint16Array {
  if (a.length % 2 === 0) return a;
  const padded = new Uint16Array(a.length + 1);
  padded.set(a);
  return padded;
}

/** The pages a context of `seqLen` tokens reads, as u32 (block tables arrive as any ArrayLike). */
export function blockTableWords(blockTable: ArrayLike<number>, seqLen: number, pageSize: number): Uint32Array {
  const pages = Math.ceil(seqLen / pageSize);
  if (blockTable.length < pages) throw new Error(`block table has ${blockTable.length} pages; ${seqLen} tokens need ${pages}`);
  const out = new Uint32Array(Math.max(1, pages));
  for (let i = 0; i < pages; i++) {
    const p = blockTable[i]!;
    if (!Number.isInteger(p) || p < 0) throw new Error(`block table entry ${i} is not a page id: ${p}`);
    out[i] = p;
  }
  return out;
}

/** A 2-D grid of workgroups covering `threads` invocations within the per-dimension limit. */
export function dispatchGrid(threads: number, workgroupSize: number, maxPerDimension: number): { x: number; y: number; rowThreads: number } {
  const groups = Math.max(1, Math.ceil(threads / workgroupSize));
  const x = Math.min(groups, maxPerDimension);
  const y = Math.ceil(groups / x);
  if (y > maxPerDimension) throw new Error(`${threads} invocations exceed the dispatch limit`);
  return { x, y, rowThreads: x * workgroupSize };
}

/**
 * The GPU's touched-group list (id, count, ~first slot, latest slot per entry, in whatever order the
 * atomics ran) as the engine's ContextGroups: sorted by first slot, the order in which `generate`
 * meets the groups, so that the float64 steps sum in the same order and agree bit for bit.
 * The counts must add up to the context length; anything else means the GPU pass went wrong.
 */
export function groupsFromEntries(entries: Uint32Array, n: number, seqLen: number, groupLimit: number): ContextGroups {
  if (entries.length < n * 4) throw new Error(`read back ${entries.length / 4} group entries, expected ${n}`);
  const first = new Uint32Array(n);
  const order = new Uint32Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    first[i] = ~entries[i * 4 + 2]! >>> 0;
    order[i] = i;
    total += entries[i * 4 + 1]!;
  }
  if (total !== seqLen) throw new Error(`GPU group counts add up to ${total} slots, the context has ${seqLen}`);
  order.sort((a, b) => first[a]! - first[b]!);
  const group = new Int32Array(n);
  const count = new Int32Array(n);
  const lastSlot = new Int32Array(n);
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    const g = entries[i * 4]!;
    if (g >= groupLimit) throw new Error(`GPU returned group ${g}, outside the model's ${groupLimit}`);
    group[k] = g;
    count[k] = entries[i * 4 + 1]!;
    lastSlot[k] = entries[i * 4 + 3]!;
  }
  return { length: n, group, count, lastSlot };
}
