import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withOverrides } from './config.ts';
import { pagesOf, type EngineEvent } from './events.ts';
import { KvPool } from './kvPool.ts';
import { Simulation, type ResponseRecord, type SimulationOptions } from './simulation.ts';
import type { Trace } from './trace.ts';
import { Vocabulary, tenantCorpus } from './core/vocab.ts';
import { LEAK_SHARE_THRESHOLD } from './transformerDecoder.ts';
import { MICROSCOPE_CONFIG, MICROSCOPE_REQUESTS, microscopeTrace } from './microscopeScenario.ts';
import { WEIGHTS_PATH } from './model/recipe.ts';
import { decodeWeights } from './model/transformer.ts';

const weights = decodeWeights(new Uint8Array(readFileSync(new URL(`../../public/${WEIGHTS_PATH}`, import.meta.url)))).weights;

/** The microscope's shape at a third of its size, for properties that run it several times. */
const SMALL = withOverrides(MICROSCOPE_CONFIG, { advertisedContextTokens: 4096, prefillCapacityTokens: 1024, decodeCapacityTokens: 2048, outputTokens: 10 });
function smallTrace(texts: Record<string, string> = {}): Trace {
  const tenants = ['acme', 'borealis', 'cobalt', 'delta'];
  return {
    version: 1,
    tenants: tenants.map((name, i) => ({ name, topic: (['invoices', 'clinic', 'code', 'legal'] as const)[i]!, ...(texts[name] !== undefined ? { text: texts[name] } : {}) })),
    requests: [
      { id: 'a', at: 0, tenant: 'acme', promptTokens: 600 },
      { id: 'b', at: 0, tenant: 'borealis', promptTokens: 500 },
      { id: 'c', at: 2_000, tenant: 'cobalt', promptTokens: 900 },
      { id: 'long', at: 10_000, tenant: 'delta', promptTokens: 1500 },
    ],
  };
}
const run = (trace: Trace, options: SimulationOptions = {}, config = SMALL) => new Simulation(config, trace, { keepEvents: false, audit: false, transformer: weights, ...options }).run();
const byId = (sim: Simulation, id: string) => sim.responses.find((r) => r.id === id)!;
const shareSum = (r: ResponseRecord, i: number) => r.provenance[i]!.attention!.tenants.reduce((n, [, x]) => n + x, 0);

describe('the microscope: the trained transformer decoding over pages other tenants left', () => {
  it('the over-long prompt is answered from another tenant\'s K/V; every token\'s attention shares sum to 1', () => {
    const sim = new Simulation(MICROSCOPE_CONFIG, microscopeTrace(), { keepEvents: false, transformer: weights }).run();
    expect(sim.modelDescription).toMatchObject({ kind: 'transformer', layers: 2, heads: 2, parameters: 39_648 });
    const long = byId(sim, MICROSCOPE_REQUESTS.overLong);
    expect(long).toMatchObject({ status: 200, computedTokens: 1, correct: false });
    expect(long.leakedFrom.length).toBeGreaterThan(0);
    for (let i = 0; i < long.provenance.length; i++) expect(Math.abs(shareSum(long, i) - 1)).toBeLessThanOrEqual(0.01);
    const foreignAboveHalf = long.provenance.filter((p) => p.attention!.tenants.some(([t, x]) => t !== null && t !== long.tenant && x > LEAK_SHARE_THRESHOLD));
    expect(foreignAboveHalf.length).toBeGreaterThan(0);
    // The leaked text is the foreign tenant's record: its name is in the answer.
    expect(long.text.split(/[ .,:]+/)).toContain(long.leakedFrom[0]);
    for (const r of sim.responses.filter((x) => x.id !== long.id)) {
      expect(r).toMatchObject({ status: 200, leakedFrom: [], correct: true });
      expect(r.provenance.every((p) => p.foreignShare === 0)).toBe(true);
    }
  }, 60_000);

  it('with pages cleared on free, or zeroed when handed out, nothing leaks: no foreign share on any token', () => {
    const sim = run(smallTrace(), {}, withOverrides(SMALL, { mitigations: { clearPagesOnFree: true } }));
    expect(sim.counters().leaked).toBe(0);
    expect(byId(sim, 'long').provenance.every((p) => p.foreignShare === 0)).toBe(true);
    expect(run(smallTrace()).counters().leaked).toBe(1); // the same trace without the mitigation leaks
    const zeroed = run(smallTrace(), {}, withOverrides(SMALL, { mitigations: { zeroPagesOnAllocate: true } }));
    expect(zeroed.counters().leaked).toBe(0);
    expect(byId(zeroed, 'long').provenance.every((p) => p.foreignShare === 0)).toBe(true);
  });

  it('per layer and head, on demand: the heads\' foreign shares average to the token\'s', () => {
    const long = byId(run(smallTrace(), { attentionPerHead: true }), 'long');
    for (const p of long.provenance.slice(1)) {
      const heads = p.attention!.foreignByHead!;
      expect(heads).toHaveLength(4);
      expect(Math.abs(heads.reduce((n, x) => n + x, 0) / heads.length - p.foreignShare)).toBeLessThan(1e-3);
    }
    expect(long.provenance.slice(1).some((p) => Math.max(...p.attention!.foreignByHead!) > 0.9)).toBe(true);
  });

  it('chunked prefill computes each chunk over the K/V earlier chunks left in the pages: the same answers', () => {
    const tokens = (sim: Simulation) => sim.responses.map((r) => [r.id, r.tokens.join(',')].join(' ')).sort();
    const chunked = run(smallTrace(), {}, withOverrides(SMALL, { prefillChunkTokens: 256 }));
    expect(chunked.counters().pagesWritten).toBe(run(smallTrace()).counters().pagesWritten);
    expect(tokens(chunked)).toEqual(tokens(run(smallTrace())));
  });

  /** Runs the small trace, changing decode memory just before the over-long request's KV lands. */
  const withMemoryChange = (change: (s: Simulation) => void) =>
    run(smallTrace(), {
      beforeStep: (s, next) => {
        if (next.kind === 'transfer-done' && next.req === 3) change(s);
      },
    });

  it("zero the other tenants' K/V, keep every writer tag: no foreign share, no leak", () => {
    const sim = withMemoryChange((s) => {
      // Prefill's pool too: the placeholder's page is copied whole, with the stale slots around it.
      for (const pool of [...s.prefillPools, ...s.decodePools]) {
        for (let slot = 0; slot < pool.slotCount; slot++) {
          const w = pool.slotWriter[slot]!;
          if (w >= 0 && s.requestTenant[w] !== 3) pool.tensors!.zeroSlots(slot, 1);
        }
      }
    });
    const long = byId(sim, 'long');
    expect(long.leakedFrom).toEqual([]);
    expect(long.provenance.every((p) => p.foreignShare === 0)).toBe(true);
  });

  it('scramble the writer tags, keep the K/V: the text is the same token for token', () => {
    const plain = byId(run(smallTrace()), 'long');
    const sim = withMemoryChange((s) => {
      for (const pool of s.decodePools) for (let slot = 0; slot < pool.slotCount; slot++) if (pool.slotWriter[slot]! >= 0) pool.slotWriter[slot] = (pool.slotWriter[slot]! + 1) % 3;
    });
    const scrambled = byId(sim, 'long');
    expect(scrambled.tokens).toEqual(plain.tokens);
    expect(scrambled.provenance.map((p) => p.attention!.tenants)).not.toEqual(plain.provenance.map((p) => p.attention!.tenants));
  });

  it("change one word of an earlier tenant's document (its name, each time it occurs): its K/V in the pages changes, and the answer follows", () => {
    const vocab = new Vocabulary(['acme', 'borealis', 'cobalt', 'delta']);
    const doc = vocab.decode(tenantCorpus(vocab, { name: 'cobalt', topic: 'code', canary: true }, MICROSCOPE_CONFIG.seed, 2048));
    const snapshot = (texts: Record<string, string>) => {
      let keys: Float32Array | null = null;
      const sim = run(smallTrace(texts), {
        beforeStep: (s, next) => {
          if (next.kind === 'transfer-done' && next.req === 3) keys = s.decodePools[0]!.tensors!.keys[1]!.slice();
        },
      });
      return { keys: keys!, long: byId(sim, 'long') };
    };
    const before = snapshot({ cobalt: doc });
    // The same document given as text is the same run.
    expect(before.long.tokens).toEqual(byId(run(smallTrace()), 'long').tokens);
    // The word: the name cobalt's records carry (its canary keeps its own spelling). The model can
    // only have it from memory: names are never tied to a topic in training.
    const words = (r: ResponseRecord) => r.text.split(/[ .,:]+/);
    expect(words(before.long)).toContain('cobalt');
    const after = snapshot({ cobalt: doc.replace(/(?<!-)\bcobalt\b/g, 'quartz') });
    expect(after.keys).not.toEqual(before.keys);
    expect(words(after.long)).not.toContain('cobalt');
    expect(words(after.long)).toContain('quartz');
  });

  it("decode steps write the answer's K/V in the pages, where SGLang's alloc_decode puts it: what a prefill of prompt and answer computes there", () => {
    // 600 tokens in 16-token pages: 600 mod 16 = 8, so the 10 answer tokens' K/V (the overlap
    // scheduler runs 10 steps) go to slots 8–15 of the last prompt page, then 2 slots of a new page.
    const trace: Trace = { version: 1, tenants: [{ name: 'acme', topic: 'invoices' }], requests: [{ id: 'a', at: 0, tenant: 'acme', promptTokens: 600 }] };
    const sim = new Simulation(SMALL, trace, { audit: false, transformer: weights }).run();
    const pool = sim.decodePools[0]!;
    const reserve = sim.events.find((e): e is Extract<EngineEvent, { type: 'decode-reserve' }> => e.type === 'decode-reserve')!;
    const grows = sim.events.filter((e): e is Extract<EngineEvent, { type: 'decode-grow' }> => e.type === 'decode-grow');
    expect(grows.map((g) => g.tokens)).toEqual([2]);
    const read = sim.events.find((e): e is Extract<EngineEvent, { type: 'decode-read' }> => e.type === 'decode-read')!;
    expect(read.answerSlots).toBe(8);
    const table = [...pagesOf(reserve.pages), grows[0]!.page];
    const slotAt = (i: number) => table[Math.floor(i / 16)]! * 16 + (i % 16);
    const answer = sim.responses[0]!.tokens;
    expect(answer).toHaveLength(10);
    const prompt = Array.from({ length: 600 }, (_, i) => pool.valueTokens[slotAt(i)]!);
    for (let j = 0; j < 10; j++) {
      expect(pool.slotWriter[slotAt(600 + j)]).toBe(0);
      expect(pool.valueTokens[slotAt(600 + j)]).toBe(answer[j]);
    }
    // The same sequence prefilled in one pass: each answer token's K and V at its position, every layer.
    const scratch = new KvPool('decode', 9, 1024, 1024);
    sim.decoder!.attach(scratch);
    sim.decoder!.prefill(scratch, [0], [...prompt, ...answer], 0);
    const d = scratch.tensors!.dim;
    let worst = 0;
    for (let l = 0; l < scratch.tensors!.layers; l++) {
      for (let j = 0; j < 10; j++) {
        const mine = slotAt(600 + j) * d;
        const ref = (600 + j) * d;
        for (let e = 0; e < d; e++) {
          worst = Math.max(worst, Math.abs(pool.tensors!.keys[l]![mine + e]! - scratch.tensors!.keys[l]![ref + e]!), Math.abs(pool.tensors!.values[l]![mine + e]! - scratch.tensors!.values[l]![ref + e]!));
        }
      }
    }
    expect(worst).toBeLessThan(1e-3);
    // The slot after the answer was never written by it.
    expect(pool.slotWriter[slotAt(610)]).not.toBe(0);
  });
});
