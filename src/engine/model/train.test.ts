import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Prng } from '../core/prng.ts';
import { tenantCorpus } from '../core/vocab.ts';
import { TransformerDecoder } from '../transformerDecoder.ts';
import { TRAINING_RECIPE, WEIGHTS_CARD_PATH, WEIGHTS_PATH } from './recipe.ts';
import { gradientCheck, initialParameters, modelVocabulary, sampleWindow, train } from './train.ts';
import { decodeWeights, encodeWeights, parameterCount, weightsFromFlat, type TransformerShape } from './transformer.ts';

const vocab = modelVocabulary();
const publicFile = (path: string) => readFileSync(new URL(`../../../public/${path}`, import.meta.url));

describe('the trainer', () => {
  it('its backward pass agrees with finite differences on every tensor', () => {
    const shape: TransformerShape = { vocab: vocab.size, dim: 16, layers: 2, heads: 2, hidden: 12, ropeBase: 100 };
    const P = initialParameters(shape, 'gradient-check');
    const tokens = sampleWindow(new Prng('gc'), vocab, 9, 'gc');
    expect(gradientCheck(shape, P, tokens, 40, 'gc')).toBeLessThan(1e-5);
  });

  it('a tiny model trained for seconds: the loss falls, and it continues a record in its topic', () => {
    const result = train({ shape: { dim: 16, layers: 1, heads: 2, hidden: 32, ropeBase: 10_000 }, seed: 'tiny', steps: 300, batch: 4, window: 32, learningRate: 1e-2, warmupSteps: 10, logEvery: 20 });
    const first = result.curve[0]![1];
    const last = result.curve[result.curve.length - 1]![1];
    expect(first).toBeGreaterThan(4.5); // about ln(vocabulary) at the start
    expect(last).toBeLessThan(first - 2.5);
    expect(result.heldOutLoss).toBeLessThan(2.5);
    const decoder = new TransformerDecoder(result.weights, vocab);
    const continuation = (name: string, topic: 'invoices' | 'clinic') => {
      const doc = tenantCorpus(vocab, { name, topic, canary: true }, 'tiny-test', 200);
      return decoder.expected(doc.slice(0, 100), 12).map((t) => vocab.word(t));
    };
    // Words only that topic's records use.
    expect(continuation('acme', 'invoices').some((w) => ['invoice', 'amount', 'due', 'paid', 'overdue'].includes(w))).toBe(true);
    expect(continuation('borealis', 'clinic').some((w) => ['patient', 'prescribed', 'reports', 'fever', 'cough', 'headache', 'ibuprofen', 'amoxicillin'].includes(w))).toBe(true);
  }, 60_000);

  it('is deterministic: the same recipe gives the same bytes', () => {
    const opts = { shape: { dim: 8, layers: 1, heads: 1, hidden: 8, ropeBase: 100 }, seed: 'det', steps: 5, batch: 2, window: 12, learningRate: 1e-2, warmupSteps: 2 };
    expect(encodeWeights(train(opts).weights)).toEqual(encodeWeights(train(opts).weights));
  });
});

describe('the weights file', () => {
  it('round-trips, and a bad file says what is wrong', () => {
    const shape: TransformerShape = { vocab: vocab.size, dim: 8, layers: 1, heads: 1, hidden: 8, ropeBase: 100 };
    const w = weightsFromFlat(shape, vocab.words, initialParameters(shape, 'rt'));
    const bytes = encodeWeights(w, { note: 'test' });
    const back = decodeWeights(bytes);
    expect(back.weights.words).toEqual(vocab.words);
    expect(back.weights.unembed).toEqual(w.unembed);
    expect(back.meta).toEqual({ note: 'test' });
    expect(() => decodeWeights(bytes.subarray(0, bytes.length - 4))).toThrow(/weights file: \d+ bytes, expected \d+/);
    const wrong = bytes.slice();
    wrong[0] = 0x58;
    expect(() => decodeWeights(wrong)).toThrow(/starts with "XPLM1", expected "SPLM1"/);
  });

  it('the committed weights: their hash, size and shape are the card\'s, and they continue a tenant\'s record', () => {
    const card = JSON.parse(publicFile(WEIGHTS_CARD_PATH).toString('utf8')) as { sha256: string; bytes: number; parameters: number };
    const bytes = publicFile(WEIGHTS_PATH);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(card.sha256);
    expect(bytes.length).toBe(card.bytes);
    expect(bytes.length).toBeLessThanOrEqual(2 * 1024 * 1024);
    const { weights } = decodeWeights(new Uint8Array(bytes));
    expect(weights.shape).toEqual({ ...TRAINING_RECIPE.shape, vocab: vocab.size });
    expect(parameterCount(weights.shape)).toBe(card.parameters);
    expect(weights.words).toEqual(vocab.words);
    // A tenant it was never told about in training by topic: it copies the name and the canary from the prompt.
    const decoder = new TransformerDecoder(weights, vocab);
    const doc = tenantCorpus(vocab, { name: 'quartz', topic: 'orders', canary: true }, 'card-test', 600);
    const out = decoder.expected(doc.slice(0, 500), 24).map((t) => vocab.word(t));
    expect(out).toContain('quartz');
    expect(out).toContain('canary-quartz');
  });
});
