/**
 * WebGPU against the JS engine for the trained transformer: the same pool, block table and first
 * token through `decodeStep` (float64 sums) and through the WGSL kernels (float32), step by step.
 * They agree when every greedy token is the same and every step's logits are within `tolerance`
 * relative (largest absolute difference over the largest absolute JS logit). Also the speed figures
 * `npm run bench -- model` reports for WebGPU. Runs wherever a GPU object is (a page, a worker).
 */
import { PageTensors } from '../engine/model/kvTensors.ts';
import { UNKNOWN_WORD, modelVocabulary } from '../engine/model/train.ts';
import { DecodeState, argmax, decodeStep, decodeWeights, prefill, type PagedContext, type TransformerWeights } from '../engine/model/transformer.ts';
import { Prng } from '../engine/core/prng.ts';
import { SPECIAL_TOKEN_COUNT, TOKEN_PLACEHOLDER, tenantCorpus } from '../engine/core/vocab.ts';
import { GpuTransformer } from './modelGpu.ts';
import type { GpuDeviceLike, GpuLike } from './webgpuTypes.ts';

export const MODEL_TOLERANCE = 1e-4;

export interface ModelCase {
  label: string;
  contextTokens: number;
  steps: number;
  tokensAgree: boolean;
  maxRelativeDifference: number;
  jsTokens: number[];
  gpuTokens: number[];
}

export interface ModelAgreementReport {
  adapter: string;
  isFallbackAdapter: boolean;
  cases: ModelCase[];
  agrees: boolean;
  tolerance: number;
}

interface Context {
  label: string;
  tensors: PageTensors;
  blockTable: Int32Array;
  seqLen: number;
  pageSize: number;
  first: number;
}

/** The JS engine's greedy decode over a context: tokens and each step's logits. */
export function jsGenerate(w: TransformerWeights, ctx: PagedContext, first: number, steps: number, unknown: number): { tokens: number[]; logits: Float32Array[] } {
  const state = new DecodeState(w, steps);
  const tokens = [first];
  const logits: Float32Array[] = [];
  let input = first;
  for (let s = 1; s < steps; s++) {
    const l = decodeStep(state, input, ctx.seqLen + s - 1, ctx, null);
    logits.push(l);
    input = argmax(l, SPECIAL_TOKEN_COUNT, unknown);
    tokens.push(input);
  }
  return { tokens, logits };
}

const PAGE = 16;

/** Pages of a pool in a seeded shuffled order: block tables that are not contiguous. */
function shuffledPages(count: number, seed: string): Int32Array {
  const pages = Int32Array.from({ length: count }, (_, i) => i);
  const rng = new Prng(seed);
  for (let i = count - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [pages[i], pages[j]] = [pages[j]!, pages[i]!];
  }
  return pages;
}

/** The cases the agreement check runs: an own prompt, stale pages under a placeholder, random memory. */
export function agreementContexts(w: TransformerWeights): Context[] {
  const vocab = modelVocabulary();
  const s = w.shape;
  const slots = 4096;
  const pool = () => new PageTensors(slots, s.layers, s.dim, s.heads);
  const order = shuffledPages(slots / PAGE, 'agreement');
  const out: Context[] = [];
  {
    const tensors = pool();
    const doc = tenantCorpus(vocab, { name: 'acme', topic: 'invoices', canary: true }, 'agreement', 1000);
    const logits = prefill(w, doc, 0, { tensors, pageSize: PAGE, blockTable: order });
    out.push({ label: "a tenant's own 1,000-token prompt", tensors, blockTable: order, seqLen: 1000, pageSize: PAGE, first: argmax(logits, SPECIAL_TOKEN_COUNT, vocab.id(UNKNOWN_WORD)) });
  }
  {
    // Two tenants' prompts left in the pool; then a placeholder at position 0 on one more page, and a
    // block table over the placeholder's page and the stale ones: the incident's read.
    const tensors = pool();
    const a = tenantCorpus(vocab, { name: 'borealis', topic: 'clinic', canary: true }, 'agreement', 960);
    const b = tenantCorpus(vocab, { name: 'cobalt', topic: 'code', canary: true }, 'agreement', 1024);
    prefill(w, a, 0, { tensors, pageSize: PAGE, blockTable: order.subarray(0, 60) });
    prefill(w, b, 0, { tensors, pageSize: PAGE, blockTable: order.subarray(60, 124) });
    const own = order.subarray(124, 125);
    const logits = prefill(w, [TOKEN_PLACEHOLDER], 0, { tensors, pageSize: PAGE, blockTable: own });
    const table = Int32Array.from([own[0]!, ...order.subarray(0, 124)]);
    out.push({ label: 'a placeholder over 1,984 tokens of two other tenants', tensors, blockTable: table, seqLen: 2000, pageSize: PAGE, first: argmax(logits, SPECIAL_TOKEN_COUNT, vocab.id(UNKNOWN_WORD)) });
  }
  out.push(randomContext(w, 16_384, 'random'));
  return out;
}

/** A pool of `slots` slots of seeded random K and V, all of it in a shuffled block table. */
export function randomContext(w: TransformerWeights, slots: number, seed: string): Context {
  const s = w.shape;
  const tensors = new PageTensors(slots, s.layers, s.dim, s.heads);
  const rng = new Prng(seed);
  const key = new Float32Array(s.dim);
  const value = new Float32Array(s.dim);
  for (let l = 0; l < s.layers; l++) {
    for (let i = 0; i < slots; i++) {
      for (let e = 0; e < s.dim; e++) {
        key[e] = 4 * (rng.next() - 0.5);
        value[e] = 2 * (rng.next() - 0.5);
      }
      tensors.writeSlot(l, i, key, value);
    }
  }
  return { label: `random memory, ${slots.toLocaleString('en-US')} tokens`, tensors, blockTable: shuffledPages(slots / PAGE, seed), seqLen: slots, pageSize: PAGE, first: SPECIAL_TOKEN_COUNT + 5 };
}

async function deviceOf(gpu: GpuLike): Promise<{ device: GpuDeviceLike; adapter: string; isFallbackAdapter: boolean }> {
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new Error('no WebGPU adapter');
  const device = await adapter.requestDevice({ label: 'transformer' });
  const info = adapter.info;
  return { device, adapter: [info?.vendor, info?.architecture, info?.description].filter(Boolean).join(' ') || 'unknown adapter', isFallbackAdapter: Boolean(info?.isFallbackAdapter ?? adapter.isFallbackAdapter) };
}

function relativeDifference(gpu: Float32Array, js: Float32Array): number {
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < js.length; i++) {
    diff = Math.max(diff, Math.abs(gpu[i]! - js[i]!));
    scale = Math.max(scale, Math.abs(js[i]!));
  }
  return diff / Math.max(scale, 1e-12);
}

export async function transformerAgreement(gpu: GpuLike, weightsBytes: Uint8Array, steps = 8): Promise<ModelAgreementReport> {
  const { weights } = decodeWeights(weightsBytes);
  const unknown = weights.words.indexOf(UNKNOWN_WORD);
  const { device, adapter, isFallbackAdapter } = await deviceOf(gpu);
  const cases: ModelCase[] = [];
  try {
    for (const ctx of agreementContexts(weights)) {
      const model = await GpuTransformer.create(device, weights, ctx.tensors.slotCount, steps);
      try {
        model.uploadContext(ctx.tensors, ctx.blockTable, ctx.seqLen, ctx.pageSize);
        const paged: PagedContext = { tensors: ctx.tensors, pageSize: ctx.pageSize, blockTable: ctx.blockTable, seqLen: ctx.seqLen };
        const js = jsGenerate(weights, paged, ctx.first, steps, unknown);
        const g = await model.generate(ctx.first, steps, unknown);
        const maxRelativeDifference = Math.max(0, ...js.logits.map((l, i) => (g.logits[i] ? relativeDifference(g.logits[i], l) : Infinity)));
        cases.push({ label: ctx.label, contextTokens: ctx.seqLen, steps, tokensAgree: js.tokens.join() === g.tokens.join(), maxRelativeDifference, jsTokens: js.tokens, gpuTokens: g.tokens });
      } finally {
        model.destroy();
      }
    }
  } finally {
    device.destroy();
  }
  return { adapter, isFallbackAdapter, cases, agrees: cases.every((c) => c.tokensAgree && c.maxRelativeDifference <= MODEL_TOLERANCE), tolerance: MODEL_TOLERANCE };
}

export interface ModelSpeedRow {
  contextTokens: number;
  steps: number;
  tokensPerSecond: number;
}

/** WebGPU decode tokens/s over random memory of each size (after one warm-up step), uploads not counted. */
export async function transformerGpuSpeed(gpu: GpuLike, weightsBytes: Uint8Array, sizes: number[], steps: number): Promise<{ adapter: string; isFallbackAdapter: boolean; rows: ModelSpeedRow[] }> {
  const { weights } = decodeWeights(weightsBytes);
  const { device, adapter, isFallbackAdapter } = await deviceOf(gpu);
  const rows: ModelSpeedRow[] = [];
  try {
    for (const size of sizes) {
      const ctx = randomContext(weights, size, `speed-${size}`);
      const model = await GpuTransformer.create(device, weights, size, steps + 1);
      try {
        model.uploadContext(ctx.tensors, ctx.blockTable, ctx.seqLen, ctx.pageSize);
        await model.step(ctx.first, size, 0);
        const started = performance.now();
        for (let s = 1; s <= steps; s++) await model.step(ctx.first, size + s, s);
        rows.push({ contextTokens: size, steps, tokensPerSecond: steps / ((performance.now() - started) / 1000) });
      } finally {
        model.destroy();
      }
    }
  } finally {
    device.destroy();
  }
  return { adapter, isFallbackAdapter, rows };
}
