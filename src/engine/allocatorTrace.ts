/**
 * A sequence of allocator operations on one decode node's pool, replayed on the engine's `KvPool`:
 * what `npm run simulate -- --allocator-trace FILE` runs, and what the tests hold against the page
 * ids SGLang's own allocator gave for the same sequence (shared/sglang/allocator-golden/, whose
 * README gives the format). The replay drives the pool exactly as simulation.ts does: a
 * pre-allocation is one `allocate`, a batch one `allocateBatch`, a decode step one `allocateDecode`.
 */
import * as v from 'valibot';
import { KvPool } from './kvPool.ts';
import type { FreeListPolicy } from './config.ts';
import { InputError } from './schema.ts';

const Rid = v.pipe(v.number(), v.integer(), v.minValue(0));
const Tokens = v.pipe(v.number(), v.integer(), v.minValue(1));

const OpSchema = v.variant('op', [
  v.object({ op: v.literal('alloc'), rid: Rid, tokens: Tokens }),
  v.object({ op: v.literal('alloc_batch'), reqs: v.pipe(v.array(v.tuple([Rid, Tokens])), v.minLength(1)) }),
  v.object({ op: v.literal('free'), rids: v.pipe(v.array(Rid), v.minLength(1)) }),
  v.object({ op: v.literal('decode'), rids: v.pipe(v.array(Rid), v.minLength(1)) }),
]);

const AllocatorTraceSchema = v.object({
  pageSize: v.pipe(v.number(), v.integer(), v.minValue(1)),
  numPages: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(16_777_216)),
  ops: v.array(OpSchema),
  /** What SGLang's allocator gave, when the file carries it (the golden files do). */
  expected: v.optional(v.array(v.object({ op: v.number(), rid: Rid, tokens: v.optional(v.number()), pages: v.array(v.number()) }))),
});

export type AllocatorTrace = v.InferOutput<typeof AllocatorTraceSchema>;
export type AllocatorOp = AllocatorTrace['ops'][number];

export interface AllocationRecord {
  /** Index of the op that allocated it. */
  op: number;
  rid: number;
  tokens: number;
  pages: number[];
}

/** Parses a trace file's JSON value; throws InputError naming `source`, the op and the field. */
export function parseAllocatorTrace(value: unknown, source: string): AllocatorTrace {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InputError(source, [`(top level): an allocator trace must be a JSON object with pageSize, numPages and ops, got ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`}`]);
  }
  const result = v.safeParse(AllocatorTraceSchema, value);
  if (!result.success) {
    throw new InputError(
      source,
      result.issues.map((issue) => `${v.getDotPath(issue) ?? '(top level)'}: ${issue.message}`),
    );
  }
  return result.output;
}

/**
 * Replays `trace` on a fresh pool of `numPages` usable pages (page 0 reserved) under `policy`
 * (default: the engine's, SGLang's staged list). Returns one record per allocated request in op
 * order. Throws, naming the op, on an inconsistent sequence (a rid allocated twice, freed or stepped
 * while not held) or an allocation the pool refuses (SGLang's would return None there).
 */
export function replayAllocatorTrace(trace: AllocatorTrace, policy: FreeListPolicy = 'staged'): AllocationRecord[] {
  const ps = trace.pageSize;
  const pool = new KvPool('decode', 0, trace.numPages * ps, ps, 0, policy);
  /** Pages and token length of every request holding pages. */
  const held = new Map<number, { pages: number[]; length: number }>();
  const out: AllocationRecord[] = [];
  const problem = (i: number, what: string): never => {
    throw new Error(`op ${i} (${trace.ops[i]!.op}): ${what}`);
  };
  trace.ops.forEach((op, i) => {
    switch (op.op) {
      case 'alloc':
      case 'alloc_batch': {
        const reqs = op.op === 'alloc' ? [[op.rid, op.tokens] as const] : op.reqs;
        for (const [rid] of reqs) if (held.has(rid)) problem(i, `rid ${rid} already holds pages`);
        const got = pool.allocateBatch(reqs.map(([rid, tokens]) => ({ request: rid, pages: Math.ceil(tokens / ps), tokens })));
        if (!got) problem(i, `the pool cannot give ${reqs.map(([, t]) => Math.ceil(t / ps)).reduce((a, b) => a + b, 0)} pages (${pool.freePages} free)`);
        reqs.forEach(([rid, tokens], k) => {
          held.set(rid, { pages: [...got![k]!], length: tokens });
          out.push({ op: i, rid, tokens, pages: [...got![k]!] });
        });
        break;
      }
      case 'free': {
        const pages: number[] = [];
        for (const rid of op.rids) {
          const h = held.get(rid) ?? problem(i, `rid ${rid} holds no pages`);
          pages.push(...h.pages);
          held.delete(rid);
        }
        // One free group: the pages go back together.
        pool.free(pages, false);
        break;
      }
      case 'decode': {
        const crossing: number[] = [];
        for (const rid of op.rids) {
          const h = held.get(rid) ?? problem(i, `rid ${rid} is not running`);
          // The new token's slot is at position `length`: a new page when it starts one.
          if (h.length % ps === 0) crossing.push(rid);
          h.length++;
        }
        const pages = pool.allocateDecode(op.rids.length, crossing) ?? problem(i, `the pool cannot give ${crossing.length} pages for a decode step (${pool.freePages} free)`);
        crossing.forEach((rid, k) => held.get(rid)!.pages.push(pages[k]!));
        break;
      }
    }
  });
  return out;
}

/** Requests given the same page list as `expected`, matched by op and rid. */
export function matchingAllocations(got: readonly AllocationRecord[], expected: NonNullable<AllocatorTrace['expected']>): number {
  const byKey = new Map(got.map((a) => [`${a.op}:${a.rid}`, a.pages.join(',')]));
  return expected.filter((e) => byKey.get(`${e.op}:${e.rid}`) === e.pages.join(',')).length;
}
