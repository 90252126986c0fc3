import { describe, expect, it } from 'vitest';
import { generate, generateFromGroups, generateNaive, Prng, type KvContext, type WriterClassifier } from '../engine/index.ts';
import { compareTokens } from './agreement.ts';
import { JsBackend } from './backend.ts';
import { groupsFromEntries } from './packing.ts';
import { randomCase, warmCase, warmWorkload } from './workload.ts';

/**
 * What the WGSL count + compact passes compute, done on the CPU, with the touched list in a random
 * order (the GPU's atomics give no order). Lets Node check the hand-off to the engine's steps.
 */
function emulateGpu(ctx: KvContext, who: WriterClassifier, vocabSize: number, shuffleSeed: number): { entries: Uint32Array; n: number } {
  const stats = new Map<number, [number, number, number]>();
  for (let logical = 0; logical < ctx.seqLen; logical++) {
    const slot = ctx.blockTable[Math.floor(logical / ctx.pageSize)]! * ctx.pageSize + (logical % ctx.pageSize);
    const writer = ctx.slotWriter[slot]!;
    const cls = writer < 0 ? 2 : who.requestTenant[writer] === who.tenant ? 0 : 1;
    const g = (ctx.keyTokens[slot]! * vocabSize + ctx.valueTokens[slot]!) * 3 + cls;
    const s = stats.get(g) ?? [0, 0, 0];
    s[0]++;
    s[1] = Math.max(s[1], ~logical >>> 0);
    s[2] = Math.max(s[2], logical);
    stats.set(g, s);
  }
  const ids = [...stats.keys()];
  const rng = new Prng(shuffleSeed);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  const entries = new Uint32Array(ids.length * 4);
  ids.forEach((g, i) => entries.set([g, ...stats.get(g)!], i * 4));
  return { entries, n: ids.length };
}

describe('JsBackend', () => {
  it('is the engine’s generate', async () => {
    const c = randomCase('js-backend', 1, 5_000);
    const got = await new JsBackend().generate(c.model, c.ctx, c.who, c.opts);
    expect(got).toEqual(generate(c.model, c.ctx, c.who, c.opts));
  });
});

describe('groups counted elsewhere (the GPU hand-off)', () => {
  it('give bit-identical output to generate, in any list order, on random inputs', () => {
    for (let i = 0; i < 40; i++) {
      const c = randomCase('handoff', i, 60_000);
      const expected = generate(c.model, c.ctx, c.who, c.opts);
      const { entries, n } = emulateGpu(c.ctx, c.who, c.model.vocabSize, i);
      const groups = groupsFromEntries(entries, n, c.ctx.seqLen, c.model.vocabSize ** 2 * 3);
      const got = generateFromGroups(c.model, c.ctx, groups, c.opts);
      expect(got, c.label).toEqual(expected);
    }
  });

  it('agree with the per-slot reference on tokens and provenance', () => {
    for (let i = 0; i < 15; i++) {
      const c = randomCase('naive', i, 8_000);
      const { entries, n } = emulateGpu(c.ctx, c.who, c.model.vocabSize, i);
      const got = generateFromGroups(c.model, c.ctx, groupsFromEntries(entries, n, c.ctx.seqLen, c.model.vocabSize ** 2 * 3), c.opts);
      const a = compareTokens(generateNaive(c.model, c.ctx, c.who, c.opts), got);
      expect(a.tokensEqual && a.provenanceEqual, c.label).toBe(true);
      expect(a.maxRelativeDiff).toBeLessThan(1e-9);
    }
  });

  it('match at full size on the warm pool (1,048,576 tokens)', () => {
    const w = warmWorkload();
    const c = warmCase(w, 1_048_576, 24);
    const { entries, n } = emulateGpu(c.ctx, c.who, c.model.vocabSize, 7);
    const got = generateFromGroups(c.model, c.ctx, groupsFromEntries(entries, n, c.ctx.seqLen, c.model.vocabSize ** 2 * 3), c.opts);
    const expected = generate(c.model, c.ctx, c.who, c.opts);
    expect(got).toEqual(expected);
    // The stale pages dominate: most of the answer is other tenants' text.
    expect(expected.filter((t) => t.writer >= 0 && w.requestTenant[t.writer] !== w.tenant).length).toBeGreaterThan(12);
  });

  it('rejects a group table that cannot be right', () => {
    const c = randomCase('bad', 3, 1_000);
    const bad = { length: 2, group: Int32Array.of(5, 5), count: Int32Array.of(1, 1), lastSlot: Int32Array.of(0, 1) };
    expect(() => generateFromGroups(c.model, c.ctx, bad, c.opts)).toThrow(/invalid group table/);
    // The scratch was left clean: a correct table afterwards still gives generate's output.
    const { entries, n } = emulateGpu(c.ctx, c.who, c.model.vocabSize, 3);
    const groups = groupsFromEntries(entries, n, c.ctx.seqLen, c.model.vocabSize ** 2 * 3);
    expect(generateFromGroups(c.model, c.ctx, groups, c.opts)).toEqual(generate(c.model, c.ctx, c.who, c.opts));
  });
});
