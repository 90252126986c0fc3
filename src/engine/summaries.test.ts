import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildDecodeModel, generate, type KvContext, type WriterClassifier } from './attention.ts';
import { INCIDENT_CONFIG, withOverrides, type EngineConfig } from './config.ts';
import { KvPool, NO_REQUEST } from './kvPool.ts';
import { simulate } from './simulation.ts';
import { MITIGATION_KEYS, type Mitigations } from './switches.ts';
import type { Trace, TraceRequest } from './trace.ts';
import { TENANT_NAMES } from './core/vocab.ts';

/** The summary a slot-by-slot pass finds: (key, value, writer) in first-seen order, counts, latest offsets. */
function summaryBySlots(pool: KvPool, base: number, n: number) {
  const entries = new Map<string, [number, number, number, number]>();
  const writers = new Map<number, number>();
  for (let i = 0; i < n; i++) {
    const s = base + i;
    const id = `${pool.keyTokens[s]}:${pool.valueTokens[s]}:${pool.slotWriter[s]}`;
    const e = entries.get(id) ?? [(pool.keyTokens[s]! << 16) | pool.valueTokens[s]!, pool.slotWriter[s]!, 0, 0];
    e[2]++;
    e[3] = i;
    entries.set(id, e);
    writers.set(pool.slotWriter[s]!, (writers.get(pool.slotWriter[s]!) ?? 0) + 1);
  }
  return [...[...entries.values()].flat(), ...[...writers].flat()];
}

/** Memory with the shapes the engine writes: periodic prompts, stray slots, zeroed pages. */
const memoryArb = fc.record({
  pageSize: fc.integer({ min: 1, max: 9 }),
  pages: fc.integer({ min: 1, max: 40 }),
  segmentPages: fc.integer({ min: 1, max: 7 }),
  writes: fc.array(
    fc.record({
      kind: fc.constantFrom('prompt', 'slot', 'zero'),
      at: fc.nat(),
      length: fc.integer({ min: 1, max: 120 }),
      period: fc.integer({ min: 1, max: 12 }),
      token: fc.integer({ min: 0, max: 7 }),
      writer: fc.integer({ min: -1, max: 3 }),
    }),
    { maxLength: 25 },
  ),
});

interface Memory {
  pageSize: number;
  pages: number;
  segmentPages: number;
  writes: { kind: string; at: number; length: number; period: number; token: number; writer: number }[];
}

function build(m: Memory) {
  const pool = new KvPool('decode', 0, m.pages * m.pageSize, m.pageSize, m.segmentPages);
  const n = pool.slotCount;
  for (const w of m.writes) {
    const start = w.at % n;
    for (let i = 0; i < w.length && start + i < n; i++) {
      const s = start + i;
      if (w.kind === 'zero') {
        pool.keyTokens[s] = 0;
        pool.valueTokens[s] = 0;
        pool.slotWriter[s] = NO_REQUEST;
      } else {
        pool.keyTokens[s] = w.kind === 'prompt' ? 3 + ((i + w.token) % w.period) : w.token;
        pool.valueTokens[s] = w.kind === 'prompt' ? 3 + ((i + 1 + w.token) % w.period) : (w.token * 5) % 8;
        pool.slotWriter[s] = w.writer;
      }
    }
    // Writes to the arrays bypass the pool's write paths, as a test's do: say so.
    pool.summaries!.invalidateAll();
    if (w.kind === 'slot') summaryAt(pool, Math.floor(start / m.pageSize / m.segmentPages)); // keep a stale one around
  }
  pool.summaries!.invalidateAll();
  return pool;
}

/** A segment's summary: the first read after a write is served slot by slot (null), the second builds it. */
function summaryAt(pool: KvPool, g: number) {
  return pool.summaries!.segment(g) ?? pool.summaries!.segment(g)!;
}

describe('pool summaries', () => {
  it('hold exactly what a slot-by-slot pass over their segment finds', () => {
    fc.assert(
      fc.property(memoryArb, (m) => {
        const pool = build(m);
        const S = m.segmentPages;
        for (let g = 0; g < pool.summaries!.segmentCount; g++) {
          expect(pool.summaries!.segment(g)).toBeNull();
          const summary = pool.summaries!.segment(g)!;
          expect([...summary.data]).toEqual(summaryBySlots(pool, g * S * m.pageSize, S * m.pageSize));
        }
        expect(pool.summaries!.segment(pool.summaries!.segmentCount)).toBeNull();
      }),
      { numRuns: 150 },
    );
  });

  it('follow the pool’s own writes: prompt, copy, clear on free, zero on allocate', () => {
    const src = new KvPool('prefill', 0, 64, 4);
    const pool = new KvPool('decode', 0, 64, 4, 2);
    const check = () => {
      for (let g = 0; g < pool.summaries!.segmentCount; g++) expect([...summaryAt(pool, g).data]).toEqual(summaryBySlots(pool, g * 8, 8));
    };
    check();
    const pages = pool.allocate(10, 1)!;
    const source = Uint16Array.of(5, 6, 7, 8, 9);
    pool.writePrompt(pages, source, 2, 37, 1, 1, 0, 0);
    check();
    const sp = src.allocate(3, 2)!;
    src.writeTokens(sp, Uint16Array.of(9, 9, 4, 9, 9, 4, 9, 9, 4, 1), 1, 2, 0, 0);
    KvPool.copyPages(src, sp, pool, pages.subarray(4, 7), 2, 0, 1);
    check();
    pool.free(pages.subarray(0, 3), true);
    check();
    pool.free(pages.subarray(3), false);
    check();
    pool.allocate(16, 3, true);
    check();
    expect(pool.summaries!.sourceBuilds).toBeGreaterThan(0); // the prompt's whole pages were summarised from its source
  });

  it('summarised from the pages’ source stretches, equal a slot-by-slot pass whatever the pool’s own writes', () => {
    const op = fc.record({
      kind: fc.constantFrom('prompt', 'prompt', 'prompt', 'tokens', 'copy', 'copy', 'clear'),
      first: fc.nat({ max: 40 }),
      pages: fc.integer({ min: 1, max: 12 }),
      gap: fc.boolean(),
      source: fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 14 }),
      start: fc.nat({ max: 30 }),
      length: fc.integer({ min: 1, max: 80 }),
      previous: fc.integer({ min: 0, max: 9 }),
      writer: fc.integer({ min: 0, max: 4 }),
      // Token ids past 1,023 take the summaries' hashed paths.
      wide: fc.boolean(),
    });
    let fromSources = 0;
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 20 }), (pageSize, segmentPages, ops) => {
        const src = new KvPool('prefill', 0, 48 * pageSize, pageSize);
        const pool = new KvPool('decode', 0, 48 * pageSize, pageSize, segmentPages);
        // Page lists as the allocator makes them (consecutive), or with a hole in them.
        const pagesAt = (first: number, n: number, gap: boolean) =>
          Array.from({ length: n }, (_, i) => first + i + (gap && i >= n / 2 ? 1 : 0)).filter((p) => p < 48);
        for (const o of ops) {
          const pages = pagesAt(o.first, o.pages, o.gap);
          if (pages.length === 0) continue;
          const source = Uint16Array.from(o.source, (t) => (o.wide ? t + 2_000 : t));
          const length = Math.min(o.length, pages.length * pageSize);
          if (o.kind === 'prompt') {
            src.writePrompt(pages, source, o.start, length, o.previous, o.writer, 0, 0);
            pool.writePrompt(pages, source, o.start, length, o.previous, o.writer, 0, 0);
          } else if (o.kind === 'tokens') {
            pool.writeTokens(pages, source.subarray(0, Math.min(source.length, length)), o.previous, o.writer, 0, 0);
          } else if (o.kind === 'copy') {
            const to = pagesAt((o.first * 7 + o.start) % 48, pages.length, !o.gap).slice(0, pages.length);
            KvPool.copyPages(src, pages.slice(0, to.length), pool, to, o.writer, 0, 0);
          } else {
            const held = pool.allocate(Math.min(pool.freePages, o.pages), o.writer)!;
            pool.free(held, true);
          }
          for (let g = 0; g < pool.summaries!.segmentCount; g++) {
            expect([...summaryAt(pool, g).data]).toEqual(summaryBySlots(pool, g * segmentPages * pageSize, segmentPages * pageSize));
          }
        }
        fromSources += pool.summaries!.sourceBuilds;
      }),
      { numRuns: 200 },
    );
    expect(fromSources).toBeGreaterThan(0);
  });
});

describe('decode over summaries', () => {
  const model = buildDecodeModel(12, INCIDENT_CONFIG.model);
  it('gives the same tokens, provenance and slot accounting as visiting every slot', () => {
    fc.assert(
      fc.property(memoryArb, fc.integer({ min: 0, max: 1_000 }), fc.integer({ min: 0, max: 11 }), fc.boolean(), (m, cut, query, shuffle) => {
        const pool = build({ ...m, writes: m.writes.map((w) => ({ ...w, token: Math.min(w.token, 7) })) });
        const pages = Array.from({ length: pool.pageCount }, (_, i) => i);
        // Mostly in order (runs the summaries can serve), sometimes with pages out of place.
        if (shuffle && pages.length > 2) [pages[1], pages[pages.length - 1]] = [pages[pages.length - 1]!, pages[1]!];
        const seqLen = 1 + (cut % pool.slotCount);
        const base: KvContext = { keyTokens: pool.keyTokens, valueTokens: pool.valueTokens, slotWriter: pool.slotWriter, pageSize: pool.pageSize, blockTable: pages, seqLen };
        const run = (summaries: boolean) => {
          const told = new Map<number, number>();
          const who: WriterClassifier = { requestTenant: [0, 1, 0, 2], tenant: 0, onSlots: (w, n) => told.set(w, (told.get(w) ?? 0) + n) };
          // Twice: the first read after a write visits slots, the second builds and reads the summaries.
          if (summaries) generate(model, { ...base, summaries: pool.summaries }, { requestTenant: who.requestTenant, tenant: 0 }, { query, steps: 1 });
          const out = generate(model, { ...base, summaries: summaries ? pool.summaries : null }, who, { query, steps: 5 });
          return { out, told: [...told].sort((a, b) => a[0] - b[0]) };
        };
        expect(run(true)).toEqual(run(false));
      }),
      { numRuns: 150 },
    );
  });
});

/** Random traces over small deployments: capacities that pages do and do not divide, 1–4 decode nodes, any mitigations. */
const deploymentArb = fc.record({
  pageSize: fc.constantFrom(8, 16, 24),
  decodeNodes: fc.integer({ min: 1, max: 4 }),
  decodeCapacity: fc.constantFrom(4096, 5000, 6144),
  prefillCapacity: fc.constantFrom(2048, 2100),
  mitigations: fc.subarray([...MITIGATION_KEYS]),
  sizes: fc.array(fc.record({ gap: fc.integer({ min: 0, max: 4000 }), tokens: fc.integer({ min: 20, max: 4096 }), tenant: fc.integer({ min: 0, max: 3 }) }), { minLength: 4, maxLength: 16 }),
  seed: fc.string({ maxLength: 4 }),
  segmentPages: fc.constantFrom(1, 3, 8, 64),
});

describe('simulation with and without decode summaries', () => {
  it('gives identical responses and an identical event log', () => {
    let summariesRead = 0;
    let fromSources = 0;
    fc.assert(
      fc.property(deploymentArb, (d) => {
        const mitigations: Mitigations = Object.fromEntries(d.mitigations.map((k) => [k, true]));
        const config: EngineConfig = withOverrides(INCIDENT_CONFIG, {
          seed: d.seed,
          pageSize: d.pageSize,
          advertisedContextTokens: 4096,
          prefillCapacityTokens: d.prefillCapacity,
          decodeCapacityTokens: d.decodeCapacity,
          decodeNodes: d.decodeNodes,
          outputTokens: 8,
          mitigations,
        });
        let at = 0;
        const requests: TraceRequest[] = d.sizes.map((r, i) => ({ id: `r${i}`, at: (at += r.gap), tenant: TENANT_NAMES[r.tenant]!, promptTokens: r.tokens }));
        const trace: Trace = { version: 1, tenants: TENANT_NAMES.slice(0, 4).map((name) => ({ name })), requests };
        const run = (summaryPages: number) => {
          try {
            const sim = simulate(config, trace, { keepEvents: true, summaryPages });
            for (const pool of sim.decodePools) {
              summariesRead += pool.summaries?.builds ?? 0;
              fromSources += pool.summaries?.sourceBuilds ?? 0;
            }
            return { hash: sim.eventLogHash, responses: sim.responses, events: sim.events.length };
          } catch (e) {
            return { error: String(e) };
          }
        };
        expect(run(d.segmentPages)).toEqual(run(0));
      }),
      { numRuns: 60 },
    );
    expect(summariesRead).toBeGreaterThan(0); // the comparison did exercise the summaries
    expect(fromSources).toBeGreaterThan(0); // and the ones built from the prompts' sources
  });
});
