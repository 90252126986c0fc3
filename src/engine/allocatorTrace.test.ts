import { existsSync, readFileSync, readdirSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchingAllocations, parseAllocatorTrace, replayAllocatorTrace, type AllocatorOp, type AllocatorTrace } from './allocatorTrace.ts';
import { InputError } from './schema.ts';

/** SGLang's allocator run over seeded sequences: beside the clone, as on CI. */
const GOLDEN = new URL('../../../shared/sglang/allocator-golden/', import.meta.url);
const goldenFiles = existsSync(GOLDEN) ? readdirSync(GOLDEN).filter((f) => f.endsWith('.json')).sort() : [];

describe("the engine's allocator against SGLang's", () => {
  it('finds the golden sequences beside the clone', () => {
    expect(goldenFiles.length).toBeGreaterThanOrEqual(7);
  });

  for (const file of goldenFiles) {
    it(`${file}: every request gets the pages SGLang's code gave it`, () => {
      const trace = parseAllocatorTrace(JSON.parse(readFileSync(new URL(file, GOLDEN), 'utf8')), file);
      const got = replayAllocatorTrace(trace);
      const expected = trace.expected!;
      expect(got.map((a) => [a.op, a.rid, a.pages])).toEqual(expected.map((e) => [e.op, e.rid, e.pages]));
      expect(matchingAllocations(got, expected)).toBe(expected.length);
    });
  }

  it('the old lowest-id-first order does not (the golden files can tell the two apart)', () => {
    const file = goldenFiles.find((f) => f.startsWith('B-'))!;
    const trace = parseAllocatorTrace(JSON.parse(readFileSync(new URL(file, GOLDEN), 'utf8')), file);
    expect(matchingAllocations(replayAllocatorTrace(trace, 'sorted'), trace.expected!)).toBeLessThan(trace.expected!.length / 2);
  });
});

describe('allocator trace files', () => {
  it('names what is wrong in a bad file', () => {
    expect(() => parseAllocatorTrace([], 'f.json')).toThrow(/f\.json: \(top level\): an allocator trace must be a JSON object.*got an array/);
    expect(() => parseAllocatorTrace({ pageSize: 0, numPages: 4, ops: [] }, 'f.json')).toThrow(InputError);
    expect(() => parseAllocatorTrace({ pageSize: 16, numPages: 4, ops: [{ op: 'grow', rid: 1 }] }, 'f.json')).toThrow(/ops\.0/);
    expect(() => parseAllocatorTrace({ pageSize: 16, numPages: 4, ops: [{ op: 'alloc', rid: 1, tokens: -3 }] }, 'f.json')).toThrow(/ops\.0\.tokens/);
  });

  it('names the op of an inconsistent sequence', () => {
    const trace = (ops: AllocatorOp[]): AllocatorTrace => ({ pageSize: 16, numPages: 8, ops });
    expect(() => replayAllocatorTrace(trace([{ op: 'free', rids: [3] }]))).toThrow(/op 0 \(free\): rid 3 holds no pages/);
    expect(() => replayAllocatorTrace(trace([{ op: 'alloc', rid: 1, tokens: 16 }, { op: 'alloc', rid: 1, tokens: 16 }]))).toThrow(/op 1 \(alloc\): rid 1 already holds/);
    expect(() => replayAllocatorTrace(trace([{ op: 'alloc', rid: 1, tokens: 16 * 9 }]))).toThrow(/op 0 \(alloc\): the pool cannot give 9 pages \(8 free\)/);
  });
});

describe('pool invariants under any sequence of pre-allocations, batches, decode steps and frees', () => {
  const op = fc.oneof(
    fc.record({ kind: fc.constant('alloc' as const), tokens: fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 1, maxLength: 3 }) }),
    fc.record({ kind: fc.constant('decode' as const), steps: fc.integer({ min: 1, max: 40 }) }),
    fc.record({ kind: fc.constant('free' as const), pick: fc.nat() }),
  );
  it('never hands out page 0 or a held page, conserves pages, and each request holds ceil(length / page size) pages', () => {
    fc.assert(
      fc.property(fc.constantFrom(1, 4, 16), fc.integer({ min: 4, max: 120 }), fc.array(op, { maxLength: 80 }), (pageSize, numPages, ops) => {
        const trace: AllocatorTrace = { pageSize, numPages, ops: [] };
        const running = new Map<number, number>();
        let used = 0;
        let next = 0;
        for (const o of ops) {
          if (o.kind === 'alloc') {
            const need = o.tokens.reduce((a, t) => a + Math.ceil(t / pageSize), 0);
            if (used + need > numPages) continue;
            const reqs = o.tokens.map((t) => [next++, t] as [number, number]);
            trace.ops.push(reqs.length === 1 ? { op: 'alloc', rid: reqs[0]![0], tokens: reqs[0]![1] } : { op: 'alloc_batch', reqs });
            for (const [rid, t] of reqs) running.set(rid, t);
            used += need;
          } else if (o.kind === 'decode') {
            for (let s = 0; s < o.steps && running.size > 0; s++) {
              const crossing = [...running.values()].filter((len) => len % pageSize === 0).length;
              if (used + crossing > numPages) break;
              trace.ops.push({ op: 'decode', rids: [...running.keys()] });
              for (const [rid, len] of running) running.set(rid, len + 1);
              used += crossing;
            }
          } else if (running.size > 0) {
            const rids = [...running.keys()];
            const rid = rids[o.pick % rids.length]!;
            trace.ops.push({ op: 'free', rids: [rid] });
            used -= Math.ceil(running.get(rid)! / pageSize);
            running.delete(rid);
          }
        }
        // Whatever the sequence, the pool never refuses a request that fits (replay throws if it does).
        const allocations = replayAllocatorTrace(trace);
        const all = allocations.flatMap((a) => a.pages);
        expect(all).not.toContain(0);
        expect(Math.max(0, ...all)).toBeLessThanOrEqual(numPages);
        // The pages of the requests still running at the end are pairwise distinct.
        const live = allocations.filter((a) => running.has(a.rid)).flatMap((a) => a.pages);
        expect(new Set(live).size).toBe(live.length);
        for (const a of allocations) expect(a.pages.length).toBe(Math.ceil(a.tokens / pageSize));
      }),
    );
  });
});
