import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildDecodeModel, cleanContext, generate, generateNaive, type KvContext } from './attention.ts';
import { INCIDENT_CONFIG } from './config.ts';
import { TENANT_NAMES, TOPICS, Vocabulary, tenantCorpus } from './core/vocab.ts';

const vocab = new Vocabulary(TENANT_NAMES.slice(0, 4));
const model = buildDecodeModel(vocab.size, INCIDENT_CONFIG.model);

/** A random paged context: `pages` pages of 8 slots, scattered over a 32-page pool. */
const contextArb = fc
  .record({
    pagePermutation: fc.shuffledSubarray([...Array(32).keys()], { minLength: 1, maxLength: 32 }),
    slots: fc.array(fc.tuple(fc.integer({ min: 0, max: vocab.size - 1 }), fc.integer({ min: 0, max: vocab.size - 1 }), fc.integer({ min: -1, max: 5 })), {
      minLength: 32 * 8,
      maxLength: 32 * 8,
    }),
    trim: fc.integer({ min: 0, max: 7 }),
    query: fc.integer({ min: 0, max: vocab.size - 1 }),
    tenant: fc.integer({ min: 0, max: 2 }),
  })
  .map(({ pagePermutation, slots, trim, query, tenant }) => {
    const ctx: KvContext = {
      keyTokens: Uint16Array.from(slots.map((s) => s[0])),
      valueTokens: Uint16Array.from(slots.map((s) => s[1])),
      slotWriter: Int32Array.from(slots.map((s) => s[2])),
      pageSize: 8,
      blockTable: pagePermutation,
      seqLen: Math.max(1, pagePermutation.length * 8 - trim),
    };
    return { ctx, query, who: { requestTenant: [0, 1, 2, 0, 1, 2], tenant } };
  });

describe('decode attention', () => {
  it('grouped decode equals the per-slot reference: tokens, provenance and probabilities', () => {
    fc.assert(
      fc.property(contextArb, ({ ctx, query, who }) => {
        const fast = generate(model, ctx, who, { query, steps: 6 });
        const slow = generateNaive(model, ctx, who, { query, steps: 6 });
        expect(fast.map((t) => [t.token, t.slot, t.page, t.writer])).toEqual(slow.map((t) => [t.token, t.slot, t.page, t.writer]));
        fast.forEach((t, i) => {
          expect(t.probability).toBeCloseTo(slow[i]!.probability, 9);
          expect(t.foreignShare).toBeCloseTo(slow[i]!.foreignShare, 9);
        });
      }),
      { numRuns: 60 },
    );
  });

  it('what it says depends on the KV alone: writer tags change provenance, never a token or a probability', () => {
    fc.assert(
      fc.property(contextArb, fc.array(fc.integer({ min: -1, max: 5 }), { minLength: 32 * 8, maxLength: 32 * 8 }), ({ ctx, query, who }, writers) => {
        const retagged: KvContext = { ...ctx, slotWriter: Int32Array.from(writers) };
        const a = generate(model, ctx, who, { query, steps: 6 });
        const b = generate(model, retagged, who, { query, steps: 6 });
        expect(b.map((t) => [t.token, t.probability])).toEqual(a.map((t) => [t.token, t.probability])); // bit for bit
      }),
      { numRuns: 100 },
    );
  });

  it('tells onSlots the writer of every slot it reads, once, and is not changed by listening', () => {
    fc.assert(
      fc.property(contextArb, ({ ctx, query, who }) => {
        const told = new Map<number, number>();
        const heard = generate(model, ctx, { ...who, onSlots: (w, n) => told.set(w, (told.get(w) ?? 0) + n) }, { query, steps: 3 });
        const expected = new Map<number, number>();
        for (let i = 0; i < ctx.seqLen; i++) {
          const w = ctx.slotWriter[ctx.blockTable[Math.floor(i / ctx.pageSize)]! * ctx.pageSize + (i % ctx.pageSize)]!;
          expected.set(w, (expected.get(w) ?? 0) + 1);
        }
        expect([...told].sort((a, b) => a[0] - b[0])).toEqual([...expected].sort((a, b) => a[0] - b[0]));
        expect(heard).toEqual(generate(model, ctx, who, { query, steps: 3 }));
      }),
      { numRuns: 60 },
    );
  });

  it("continues a tenant's own text over its own clean context (an induction head)", () => {
    const corpus = tenantCorpus(vocab, { name: 'acme', topic: TOPICS[0], canary: true }, 'seed');
    const prompt = corpus.subarray(0, 1500);
    const out = generate(model, cleanContext(prompt, 2, 0), { requestTenant: [0], tenant: 0 }, { query: prompt[prompt.length - 1]!, steps: 12 });
    const words = out.map((t) => vocab.word(t.token));
    // Every output bigram occurs in the prompt: the model copies, it does not invent.
    const bigrams = new Set<string>();
    for (let i = 1; i < prompt.length; i++) bigrams.add(`${prompt[i - 1]}>${prompt[i]}`);
    const seq = [prompt[prompt.length - 1]!, ...out.map((t) => t.token)];
    for (let i = 1; i < seq.length; i++) expect(bigrams.has(`${seq[i - 1]}>${seq[i]}`)).toBe(true);
    expect(words).toContain('acme');
    expect(out.every((t) => t.writer === 0)).toBe(true);
  });

  it('over zero-filled memory emits a degenerate default, never a special token', () => {
    const ctx: KvContext = { keyTokens: new Uint16Array(64), valueTokens: new Uint16Array(64), slotWriter: new Int32Array(64).fill(-1), pageSize: 16, blockTable: [0, 1, 2, 3], seqLen: 64 };
    const out = generate(model, ctx, { requestTenant: [], tenant: 0 }, { query: 1, steps: 4 });
    expect(out.map((t) => vocab.word(t.token))).toEqual(['the', 'the', 'the', 'the']);
    expect(out.every((t) => t.writer === -1)).toBe(true);
  });
});
