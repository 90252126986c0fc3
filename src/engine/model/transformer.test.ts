import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Prng } from '../core/prng.ts';
import { PageTensors } from './kvTensors.ts';
import { WEIGHTS_PATH } from './recipe.ts';
import { initialParameters, modelVocabulary, sampleWindow } from './train.ts';
import { DecodeState, attentionExp, decodeStep, decodeWeights, prefill, weightsFromFlat, type TransformerWeights } from './transformer.ts';

const committed = decodeWeights(new Uint8Array(readFileSync(new URL(`../../../public/${WEIGHTS_PATH}`, import.meta.url)))).weights;
const vocab = modelVocabulary();
/** A shape off the unrolled path (one head of 8), random weights. */
const generic = weightsFromFlat({ vocab: vocab.size, dim: 8, layers: 2, heads: 1, hidden: 16, ropeBase: 10_000 }, vocab.words, initialParameters({ vocab: vocab.size, dim: 8, layers: 2, heads: 1, hidden: 16, ropeBase: 10_000 }, 'generic'));

function shuffled(n: number, seed: string): Int32Array {
  const pages = Int32Array.from({ length: n }, (_, i) => i);
  const rng = new Prng(seed);
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [pages[i], pages[j]] = [pages[j]!, pages[i]!];
  }
  return pages;
}

describe('the transformer: paged decode is attention over the block table', () => {
  for (const [label, w] of [['committed weights (two heads of 16, unrolled kernels)', committed], ['one head of 8 (general kernels)', generic]] as const) {
    it(`${label}: a decode step over pages in shuffled order gives prefill's logits for the longer prompt`, () => {
      const tokens = sampleWindow(new Prng(label), vocab, 301, 'paged');
      const s = (w as TransformerWeights).shape;
      const table = shuffled(32, label);
      const tensors = new PageTensors(32 * 16, s.layers, s.dim, s.heads);
      prefill(w, tokens.subarray(0, 300), 0, { tensors, pageSize: 16, blockTable: table });
      const state = new DecodeState(w, 2);
      const attention = { slotShare: new Float64Array(300), tailShare: new Float64Array(2), headSlotShare: null };
      const stepped = decodeStep(state, tokens[300]!, 300, { tensors, pageSize: 16, blockTable: table, seqLen: 300 }, attention);
      const whole = prefill(w, tokens, 0, { tensors: new PageTensors(301, s.layers, s.dim, s.heads), pageSize: 301, blockTable: [0] });
      let diff = 0;
      let scale = 0;
      for (let v = 0; v < whole.length; v++) {
        diff = Math.max(diff, Math.abs(stepped[v]! - whole[v]!));
        scale = Math.max(scale, Math.abs(whole[v]!));
      }
      expect(diff / scale).toBeLessThan(1e-5);
      const total = attention.slotShare.reduce((n, x) => n + x, 0) + attention.tailShare.reduce((n, x) => n + x, 0);
      expect(total).toBeCloseTo(1, 10);
    });
  }
});

describe("the attention weights' exponential", () => {
  it('is within 5e-16 of Math.exp (relative) over [−700, 0], exact at 0, and Math.exp outside', () => {
    const rng = new Prng('exp');
    let worst = 0;
    for (let i = 0; i < 200_000; i++) {
      const x = -rng.next() * [1e-9, 0.02, 1, 40, 700][i % 5]!;
      worst = Math.max(worst, Math.abs(attentionExp(x) - Math.exp(x)) / Math.exp(x));
    }
    expect(worst).toBeLessThan(5e-16);
    expect(attentionExp(0)).toBe(1);
    expect(attentionExp(-0)).toBe(1);
    for (const x of [-720, -800, -Infinity, 3, Infinity]) expect(attentionExp(x)).toBe(Math.exp(x));
    expect(attentionExp(NaN)).toBeNaN();
  });
});
