/**
 * The decoders the engine can run over its pages, behind one description:
 *
 * - `compressed`: attention.ts, one induction head over (previous token, token) pairs, no learned
 *   weights; grouped, so a step over a million-slot block table costs milliseconds. The 14-day
 *   incident replay runs on it (its prompts run to a million tokens).
 * - `transformer`: the small trained model (transformer.ts), whose per-layer keys and values fill
 *   the pages (kvTensors.ts). Prefill is quadratic in the prompt, so it serves runs whose prompts
 *   are thousands of tokens, not millions: the microscope, the probe.
 *
 * `TransformerDecoder` is what the simulation calls for the second: prefill writes the KV of a
 * prompt into its pages and returns the first token; decode runs greedy steps over a block table
 * and attributes each token's attention to pages and writers (after the arithmetic, from the tags).
 */
import type { DecodeModel, GeneratedToken } from './attention.ts';
import type { KvPool } from './kvPool.ts';
import { SPECIAL_TOKEN_COUNT, type Vocabulary } from './core/vocab.ts';
import { PageTensors } from './model/kvTensors.ts';
import { DecodeState, argmax, decodeStep, parameterCount, prefill, type PagedContext, type StepAttention, type TransformerWeights } from './model/transformer.ts';
import { UNKNOWN_WORD } from './model/train.ts';

export type DecoderKind = 'compressed' | 'transformer';

export interface ModelDescription {
  kind: DecoderKind;
  layers: number;
  heads: number;
  /** Width of the residual stream (compressed: of the random token vectors). */
  dim: number;
  parameters: number;
  vocabulary: number;
  /** What the numbers are, in one line. */
  note: string;
}

export function describeCompressed(model: DecodeModel): ModelDescription {
  return {
    kind: 'compressed',
    layers: 1,
    heads: 1,
    dim: model.config.dim,
    parameters: 0,
    vocabulary: model.vocabSize,
    note: 'one induction head over (previous token, token) pairs; fixed random embeddings, no learned weights (docs/MODEL.md)',
  };
}

export function describeTransformer(w: TransformerWeights): ModelDescription {
  const s = w.shape;
  return {
    kind: 'transformer',
    layers: s.layers,
    heads: s.heads,
    dim: s.dim,
    parameters: parameterCount(s),
    vocabulary: s.vocab,
    note: `trained decoder-only transformer: ${s.layers} layers × ${s.heads} heads, rotary positions, ReLU MLP of ${s.hidden}; word-level (docs/MODEL.md)`,
  };
}

/**
 * A response is counted as leaked when, on at least one of its output tokens, other tenants' pages
 * together carried at least this share of the attention (averaged over layers and heads); it leaked
 * from the other tenant that carried the most on such a token.
 */
export const LEAK_SHARE_THRESHOLD = 0.5;

/** Where one output token's attention went. */
export interface TokenAttention {
  /** Share per writer tenant, largest first (null: zero-filled or cleared memory; shares < 0.001 left out). */
  tenants: [tenant: string | null, share: number][];
  /** Share per physical page, the largest five. */
  pages: [page: number, share: number][];
  /**
   * For each tenant of `tenants` (same order), the one page of its that carried the most, and that
   * page's share: what the page names in "62 % from borealis's pages, most from page 4,113".
   */
  tenantPages: [tenant: string | null, page: number, share: number][];
  /** Share on the request's own generated tokens (their KV is decode's, outside the pool's pages here). */
  generated: number;
  /** Per layer and head (layer-major), the foreign tenants' share; only when asked for. */
  foreignByHead?: number[];
}

/** A transformer's output token: a GeneratedToken (its slot, page and writer those of the single slot that carried the most; −1: none) and its attention. */
export interface TransformerToken extends GeneratedToken {
  attention: TokenAttention;
}

/**
 * The K/V a request's decode steps computed for its own output tokens, per layer, token-major
 * (`count` tokens of `dim` floats each): step j's is the j-th output token's, at position
 * seqLen + j − 1. What SGLang's forward stores at the slot `alloc_decode` gave the step.
 */
export interface AnswerKv {
  count: number;
  keys: Float32Array[];
  values: Float32Array[];
}

/** A transformer decode: its output tokens, and the K/V its steps wrote for them (null: none asked for). */
export interface TransformerDecode {
  tokens: TransformerToken[];
  kv: AnswerKv | null;
}

export interface WhoWrote {
  requestTenant: ArrayLike<number>;
  tenant: number;
  tenantNames: readonly string[];
}

export class TransformerDecoder {
  readonly description: ModelDescription;
  /** Simulation token id → model token id, and back. */
  private readonly toModel: Int32Array;
  private readonly toSim: Int32Array;
  /** Tokens greedy decoding never emits (special tokens, and the unknown word). */
  private readonly unknown: number;
  perHead = false;

  constructor(readonly weights: TransformerWeights, readonly vocab: Vocabulary) {
    this.description = describeTransformer(weights);
    const modelIds = new Map(weights.words.map((w, i) => [w, i]));
    this.unknown = modelIds.get(UNKNOWN_WORD) ?? -1;
    this.toModel = new Int32Array(vocab.size);
    for (let i = 0; i < vocab.size; i++) this.toModel[i] = modelIds.get(vocab.word(i)) ?? (i < SPECIAL_TOKEN_COUNT ? i : this.unknown);
    this.toSim = new Int32Array(weights.words.length);
    for (let i = 0; i < weights.words.length; i++) this.toSim[i] = vocab.has(weights.words[i]!) ? vocab.id(weights.words[i]!) : -1;
  }

  /** Gives a pool the tensors its slots need under this model. */
  attach(pool: KvPool): void {
    const s = this.weights.shape;
    pool.tensors = new PageTensors(pool.slotCount, s.layers, s.dim, s.heads);
  }

  private modelTokens(tokens: ArrayLike<number>): Int32Array {
    const out = new Int32Array(tokens.length);
    for (let i = 0; i < tokens.length; i++) out[i] = this.toModel[tokens[i]!]!;
    return out;
  }

  private pick(logits: Float32Array): { model: number; sim: number; probability: number } {
    let model = argmax(logits, SPECIAL_TOKEN_COUNT, this.unknown);
    // A word of the model's the run's vocabulary lacks cannot be emitted (never the case for runs
    // built with the model's words, which the simulation's vocabulary includes).
    if (this.toSim[model]! < 0) model = SPECIAL_TOKEN_COUNT;
    let max = -Infinity;
    for (let v = 0; v < logits.length; v++) if (logits[v]! > max) max = logits[v]!;
    let z = 0;
    for (let v = 0; v < logits.length; v++) z += Math.exp(logits[v]! - max);
    return { model, sim: this.toSim[model]!, probability: Math.exp(logits[model]! - max) / z };
  }

  /**
   * Prefill's compute: the KV of tokens[from …] (simulation ids, positions from…) into the pool's
   * slots under `pages`, attending over what earlier chunks wrote there. Returns the first output
   * token (simulation id) and its probability.
   */
  prefill(pool: KvPool, pages: ArrayLike<number>, tokens: ArrayLike<number>, from: number): { token: number; probability: number } {
    const logits = prefill(this.weights, this.modelTokens(tokens), from, { tensors: pool.tensors!, pageSize: pool.pageSize, blockTable: pages });
    const p = this.pick(logits);
    return { token: p.sim, probability: p.probability };
  }

  /**
   * Decode: the first output token is prefill's (`first`); each next one is a step at position
   * seqLen, seqLen + 1, … over every slot of the block table and the tokens generated so far.
   * `kvTokens` (at most `steps`): how many of the answer's tokens decode steps write the K/V of (the
   * caller's count of steps); one more than the steps that emit a token runs the overlap
   * scheduler's last step, whose output nobody reads but whose K/V lands in the pages.
   */
  decode(pool: KvPool, blockTable: ArrayLike<number>, seqLen: number, first: { token: number; probability: number }, steps: number, who: WhoWrote, kvTokens = 0): TransformerDecode {
    const ctx: PagedContext = { tensors: pool.tensors!, pageSize: pool.pageSize, blockTable, seqLen };
    const state = steps > 1 ? new DecodeState(this.weights, steps) : null;
    const tokens = this.decodeContext(ctx, pool.slotWriter, first, steps, who, state);
    if (!state || kvTokens <= 0) return { tokens, kv: null };
    const count = Math.min(kvTokens, steps);
    // The overlap step: the last token as input at the position after the others, its logits unread.
    if (count > state.tailLength) decodeStep(state, this.toModel[tokens[steps - 1]!.token]!, seqLen + steps - 1, ctx, null);
    return { tokens, kv: { count, keys: state.tailKeys, values: state.tailValues } };
  }

  decodeContext(ctx: PagedContext, slotWriter: Int32Array, first: { token: number; probability: number }, steps: number, who: WhoWrote, given: DecodeState | null = null): TransformerToken[] {
    const out: TransformerToken[] = [];
    const own = who.tenantNames[who.tenant]!;
    out.push({ token: first.token, probability: first.probability, slot: -1, page: -1, writer: -1, foreignShare: 0, attention: { tenants: [[own, 1]], pages: [], tenantPages: [], generated: 0 } });
    if (steps <= 1) return out;
    const w = this.weights;
    const state = given ?? new DecodeState(w, steps);
    const attention: StepAttention = {
      slotShare: new Float64Array(ctx.seqLen),
      tailShare: new Float64Array(steps),
      headSlotShare: this.perHead ? new Float64Array(w.shape.layers * w.shape.heads * ctx.seqLen) : null,
    };
    let input = this.toModel[first.token]!;
    for (let s = 1; s < steps; s++) {
      const logits = decodeStep(state, input, ctx.seqLen + s - 1, ctx, attention);
      const p = this.pick(logits);
      out.push({ token: p.sim, probability: p.probability, ...this.attribute(ctx, slotWriter, attention, s, who) });
      input = p.model;
    }
    return out;
  }

  /** From per-slot shares to pages and writers: reading the tags, after the arithmetic. */
  private attribute(ctx: PagedContext, slotWriter: Int32Array, a: StepAttention, tail: number, who: WhoWrote): Omit<TransformerToken, 'token' | 'probability'> {
    const names = who.tenantNames;
    const byTenant = new Float64Array(names.length + 1); // last: zero memory
    const byPage = new Map<number, number>();
    // Per tenant (its index; names.length: zero memory), its heaviest page so far and that page's share.
    const topPage = new Int32Array(names.length + 1).fill(-1);
    const topPageShare = new Float64Array(names.length + 1);
    const pageByTenant = new Float64Array(names.length + 1);
    let best = -1;
    let bestShare = -1;
    const ps = ctx.pageSize;
    for (let p = 0, i = 0; i < ctx.seqLen; p++) {
      const page = ctx.blockTable[p]!;
      const n = Math.min(ps, ctx.seqLen - i);
      let pageSum = 0;
      pageByTenant.fill(0);
      for (let j = 0; j < n; j++, i++) {
        const x = a.slotShare[i]!;
        if (x === 0) continue;
        pageSum += x;
        const writer = slotWriter[page * ps + j]!;
        const k = writer < 0 ? names.length : who.requestTenant[writer]!;
        byTenant[k]! += x;
        pageByTenant[k]! += x;
        if (x > bestShare) {
          bestShare = x;
          best = i;
        }
      }
      if (pageSum > 0) byPage.set(page, (byPage.get(page) ?? 0) + pageSum);
      for (let k = 0; k <= names.length; k++) {
        if (pageByTenant[k]! > topPageShare[k]!) {
          topPageShare[k] = pageByTenant[k]!;
          topPage[k] = page;
        }
      }
    }
    let generated = 0;
    for (let u = 0; u < tail; u++) generated += a.tailShare[u]!;
    byTenant[who.tenant]! += generated;
    const listed: { name: string | null; share: number; page: number; pageShare: number }[] = [];
    let foreign = 0;
    for (let k = 0; k <= names.length; k++) {
      const x = byTenant[k]!;
      if (k < names.length && k !== who.tenant) foreign += x;
      if (x >= 0.001) listed.push({ name: k < names.length ? names[k]! : null, share: round4(x), page: topPage[k]!, pageShare: round4(topPageShare[k]!) });
    }
    listed.sort((x, y) => y.share - x.share || String(x.name).localeCompare(String(y.name)));
    const tenants = listed.map((e): [string | null, number] => [e.name, e.share]);
    const tenantPages = listed.map((e): [string | null, number, number] => [e.name, e.page, e.pageShare]);
    const pages = [...byPage.entries()].sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, 5).map(([p, x]) => [p, round4(x)] as [number, number]);
    const page = best >= 0 ? ctx.blockTable[Math.floor(best / ps)]! : -1;
    const writer = best >= 0 ? slotWriter[page * ps + (best % ps)]! : -1;
    const attention: TokenAttention = { tenants, pages, tenantPages, generated: round4(generated) };
    if (a.headSlotShare) {
      const heads = this.weights.shape.layers * this.weights.shape.heads;
      attention.foreignByHead = [];
      for (let lh = 0; lh < heads; lh++) {
        let f = 0;
        for (let i = 0; i < ctx.seqLen; i++) {
          const writer = slotWriter[ctx.blockTable[Math.floor(i / ps)]! * ps + (i % ps)]!;
          if (writer >= 0 && who.requestTenant[writer] !== who.tenant) f += a.headSlotShare[lh * ctx.seqLen + i]!;
        }
        attention.foreignByHead.push(round4(f));
      }
    }
    return { slot: best, page, writer, foreignShare: round4(foreign), attention };
  }

  /** What the model answers over the prompt alone, in private memory (the integrity audit). */
  expected(tokens: ArrayLike<number>, steps: number): number[] {
    const s = this.weights.shape;
    const tensors = new PageTensors(tokens.length, s.layers, s.dim, s.heads);
    const kv = { tensors, pageSize: tokens.length, blockTable: [0] };
    const first = this.pick(prefill(this.weights, this.modelTokens(tokens), 0, kv));
    const who = { requestTenant: [0], tenant: 0, tenantNames: ['self'] };
    return this.decodeContext({ ...kv, seqLen: tokens.length }, new Int32Array(tokens.length), { token: first.sim, probability: first.probability }, steps, who).map((t) => t.token);
  }
}

function round4(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
