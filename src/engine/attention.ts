/**
 * The decode model: one attention head over the paged KV, small enough to run over a
 * 1,048,576-token block table in a few milliseconds, real enough that what it says depends on what
 * the pages hold.
 *
 * Each token t has a fixed random unit vector e(t) (e(∅) = 0, so zero-filled memory scores 0).
 * A slot's key is e(previous token), its value is its own token (one-hot). At a step whose query
 * token is q, slot i gets weight w_i = exp(sharpness · e(q)·e(key_i)), and the next token is
 *   argmax_v  Σ_{i: value_i = v} w_i / Σ_i w_i
 * after a repetition penalty. That is an induction ("copy what followed q before") head: over a
 * tenant's own prompt it continues that tenant's text; over stale pages it continues whatever
 * earlier tenants wrote. Special tokens are never emitted; with no usable mass the model emits the
 * lowest word id, which makes garbage visible rather than hiding it.
 *
 * Provenance of an output token: among the (key, value, writer-class) groups that voted for it, the
 * group with the largest attention mass; its latest slot is the slot, page and writer the token
 * "drew on most". Weights depend only on the key token, so slots are grouped by (key, value, class)
 * in one pass and each step costs O(groups), not O(context). `generateNaive` is the per-slot
 * reference the grouped version is tested against.
 */
import { Prng } from './core/prng.ts';
import { MAX_VOCABULARY, SPECIAL_TOKEN_COUNT, TOKEN_ZERO } from './core/vocab.ts';
import type { DecodeModelConfig } from './config.ts';
import type { SlotSummary } from './kvPool.ts';

/** The most distinct tokens the model takes (vocab.ts explains the figure). */
export const MAX_VOCAB = MAX_VOCABULARY;

/** Who wrote a slot, relative to the request being decoded. */
export const CLASS_OWN = 0;
export const CLASS_FOREIGN = 1;
export const CLASS_EMPTY = 2;
const CLASS_COUNT = 3;

export interface DecodeModel {
  readonly vocabSize: number;
  readonly config: DecodeModelConfig;
  /** Token embeddings, row-major vocabSize × dim (the GPU backend uploads these). */
  readonly embeddings: Float32Array;
  /** exp(sharpness · e(q)·e(k)) for every (q, k), row-major. */
  readonly weights: Float32Array;
}

/** Models built so far, by vocabulary size and config: a model is a pure function of both, and building one takes ~100 ms. */
const modelCache = new Map<string, DecodeModel>();
const MODEL_CACHE_SIZE = 4;

/** The decode model for a vocabulary size and config; every simulation of the same ones shares it (it is never written). */
export function buildDecodeModel(vocabSize: number, config: DecodeModelConfig): DecodeModel {
  const key = JSON.stringify([vocabSize, config.dim, config.sharpness, config.repetitionPenalty, config.weightsSeed]);
  const cached = modelCache.get(key);
  if (cached) return cached; // its config holds the same values (they make the key)
  const model = computeDecodeModel(vocabSize, config);
  modelCache.set(key, model);
  if (modelCache.size > MODEL_CACHE_SIZE) modelCache.delete(modelCache.keys().next().value!);
  return model;
}

function computeDecodeModel(vocabSize: number, config: DecodeModelConfig): DecodeModel {
  if (vocabSize > MAX_VOCAB) throw new Error(`vocabulary of ${vocabSize} exceeds the model's ${MAX_VOCAB}`);
  const { dim, sharpness } = config;
  const rng = new Prng(config.weightsSeed);
  const embeddings = new Float32Array(vocabSize * dim);
  for (let t = 0; t < vocabSize; t++) {
    if (t === TOKEN_ZERO) continue;
    let norm = 0;
    for (let d = 0; d < dim; d++) {
      // Box–Muller: a Gaussian direction, normalised below to a unit vector.
      const g = Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
      embeddings[t * dim + d] = g;
      norm += g * g;
    }
    const inv = 1 / Math.sqrt(norm);
    for (let d = 0; d < dim; d++) embeddings[t * dim + d]! *= inv;
  }
  const weights = new Float32Array(vocabSize * vocabSize);
  for (let q = 0; q < vocabSize; q++) {
    for (let k = 0; k < vocabSize; k++) {
      let dot = 0;
      for (let d = 0; d < dim; d++) dot += embeddings[q * dim + d]! * embeddings[k * dim + d]!;
      weights[q * vocabSize + k] = Math.exp(sharpness * Math.fround(dot));
    }
  }
  return { vocabSize, config, embeddings, weights };
}

/** The slots a decode reads: `seqLen` tokens laid over the pages of `blockTable`, in order. */
export interface KvContext {
  keyTokens: Uint16Array;
  valueTokens: Uint16Array;
  slotWriter: Int32Array;
  pageSize: number;
  blockTable: ArrayLike<number>;
  seqLen: number;
  /**
   * Grouped summaries of aligned runs of pages (kvPool.ts `PoolSummaries`). Where the block table
   * holds such a run whole and in order, the counting pass adds its summary instead of visiting its
   * slots; absent or null, every slot is visited (the reference path).
   */
  summaries?: ContextSummaries | null;
}

export interface ContextSummaries {
  readonly segmentPages: number;
  /** Summary of pages segment·segmentPages … (segment + 1)·segmentPages − 1; null where none is kept. */
  segment(segment: number): SlotSummary | null;
}

/** Maps a slot's writer (a request id, or −1) to CLASS_OWN / CLASS_FOREIGN / CLASS_EMPTY. */
export interface WriterClassifier {
  /** Tenant index of each request id. */
  requestTenant: ArrayLike<number>;
  /** The tenant being served. */
  tenant: number;
  /**
   * Told, during `generate`'s one counting pass, the writer of every run of slots it reads (a whole
   * page at once when one request wrote it). Lets the caller account for what was read without a
   * second pass over a million slots; it has no effect on what the model computes.
   */
  onSlots?: (writer: number, slots: number) => void;
}

/**
 * One output token and what it drew on: the compressed decoder's here, and the transformer's
 * (`TransformerToken`, which adds its attention) with the same fields.
 */
export interface GeneratedToken {
  token: number;
  /**
   * How sure the decoder was of it: the compressed decoder's share of attention mass that voted for
   * this token, before the repetition penalty; the transformer's softmax probability.
   */
  probability: number;
  /** Logical index in the context of the slot it drew on most. */
  slot: number;
  /** Physical page of that slot (from the block table). */
  page: number;
  /** Request that wrote that slot (−1: zero-filled or cleared memory). */
  writer: number;
  /** Share of all attention mass that went to other tenants' slots voting for this token. */
  foreignShare: number;
}

export interface GenerateOptions {
  /** The token the first step attends from. */
  query: number;
  steps: number;
  /** Tokens already generated (for the repetition penalty). */
  history?: readonly number[];
}

function classOf(writer: number, who: WriterClassifier): number {
  if (writer < 0) return CLASS_EMPTY;
  return who.requestTenant[writer] === who.tenant ? CLASS_OWN : CLASS_FOREIGN;
}

/** Reusable scratch for the grouped decode: allocated once per model size, cleared sparsely. */
class GroupScratch {
  readonly counts: Int32Array;
  readonly lastSlot: Int32Array;
  readonly logits: Float64Array;
  readonly touched: Int32Array;
  /**
   * [count, latest slot] per group side by side, so the slot scan touches one cache line per slot;
   * laid out class by class, so a page of one writer class works within a third of the table.
   */
  readonly countAndLast: Int32Array;
  touchedCount = 0;

  constructor(vocabSize: number) {
    const groups = vocabSize * vocabSize * CLASS_COUNT;
    this.countAndLast = new Int32Array(groups * 2);
    this.counts = new Int32Array(groups);
    this.lastSlot = new Int32Array(groups);
    this.logits = new Float64Array(vocabSize);
    this.touched = new Int32Array(groups);
  }
}

const scratchByModel = new WeakMap<DecodeModel, GroupScratch>();

function scratchFor(model: DecodeModel): GroupScratch {
  let s = scratchByModel.get(model);
  if (!s) {
    s = new GroupScratch(model.vocabSize);
    scratchByModel.set(model, s);
  }
  return s;
}

/** Greedy decode over a paged context; see the module comment for the model. */
export function generate(model: DecodeModel, ctx: KvContext, who: WriterClassifier, opts: GenerateOptions): GeneratedToken[] {
  const s = scratchFor(model);
  s.touchedCount = 0;
  try {
    countContext(model.vocabSize, s, ctx, who);
    return runSteps(model, s, ctx, opts);
  } finally {
    clearScratch(s);
  }
}

/**
 * A prompt as prefill writes it: `length` tokens of `source` read cyclically from `start`, the first
 * slot keyed by `previous`. Every prompt the engine writes has this shape (see Simulation.promptSource).
 */
export interface CyclicPrompt {
  source: Uint16Array;
  start: number;
  length: number;
  previous: number;
}

/**
 * `generate` over a context that holds exactly `prompt`, every slot written by the request being
 * decoded. Gives the same tokens, probabilities and provenance as `generate` over such a context
 * (tests check it), in O(source length) instead of O(prompt length): the (key, value) pair at
 * position i ≥ 1 repeats every source.length positions, so counts and latest positions follow from
 * one period. `ctx` maps a provenance slot to its page and writer; null when only tokens matter.
 */
export function generateOverPrompt(model: DecodeModel, prompt: CyclicPrompt, ctx: KvContext | null, opts: GenerateOptions): GeneratedToken[] {
  const s = scratchFor(model);
  s.touchedCount = 0;
  try {
    countCyclicOwn(model.vocabSize, s, prompt);
    return runSteps(model, s, ctx, opts);
  } finally {
    clearScratch(s);
  }
}

function clearScratch(s: GroupScratch): void {
  for (let i = 0; i < s.touchedCount; i++) s.counts[s.touched[i]!] = 0;
  s.touchedCount = 0;
}

/** One pass over every slot of every page in the block table, grouping by (key, value, class). */
function countContext(V: number, s: GroupScratch, ctx: KvContext, who: WriterClassifier): void {
  const { counts, lastSlot, touched, countAndLast: cl } = s;
  const { keyTokens, valueTokens, slotWriter, pageSize, blockTable, seqLen } = ctx;
  const VV = V * V;
  const requestTenant = who.requestTenant;
  const tenant = who.tenant;
  const onSlots = who.onSlots;
  const first = s.touchedCount;
  let touchedCount = first;
  const summaries = ctx.summaries ?? null;
  const S = summaries ? summaries.segmentPages : 0;
  const segmentSlots = S * pageSize;
  let logical = 0;
  let p = 0;
  while (logical < seqLen) {
    const page = blockTable[p]!;
    if (summaries !== null && page % S === 0 && logical + segmentSlots <= seqLen && p + S <= blockTable.length && holdsRun(blockTable, p, page, S)) {
      const summary = summaries.segment(page / S);
      if (summary !== null) {
        touchedCount = addSummary(summary, V, cl, touched, touchedCount, requestTenant, tenant, onSlots, logical);
        logical += segmentSlots;
        p += S;
        continue;
      }
    }
    const base = page * pageSize;
    const n = Math.min(pageSize, seqLen - logical);
    // Pages are usually written whole by one request: classify once per page when they are.
    const w0 = slotWriter[base]!;
    let uniform = true;
    for (let j = 1; j < n; j++) {
      if (slotWriter[base + j] !== w0) {
        uniform = false;
        break;
      }
    }
    if (uniform) {
      if (onSlots) onSlots(w0, n);
      const cls = w0 < 0 ? CLASS_EMPTY : requestTenant[w0] === tenant ? CLASS_OWN : CLASS_FOREIGN;
      const classBase = cls * VV;
      for (let j = 0; j < n; j++, logical++) {
        const slot = base + j;
        const kv = keyTokens[slot]! * V + valueTokens[slot]!;
        const at = (classBase + kv) << 1;
        const c = cl[at]!;
        if (c === 0) touched[touchedCount++] = kv * CLASS_COUNT + cls;
        cl[at] = c + 1;
        cl[at + 1] = logical;
      }
    } else {
      for (let j = 0; j < n; j++, logical++) {
        const slot = base + j;
        const writer = slotWriter[slot]!;
        if (onSlots) onSlots(writer, 1);
        const cls = writer < 0 ? CLASS_EMPTY : requestTenant[writer] === tenant ? CLASS_OWN : CLASS_FOREIGN;
        const kv = keyTokens[slot]! * V + valueTokens[slot]!;
        const at = (cls * VV + kv) << 1;
        const c = cl[at]!;
        if (c === 0) touched[touchedCount++] = kv * CLASS_COUNT + cls;
        cl[at] = c + 1;
        cl[at + 1] = logical;
      }
    }
    p++;
  }
  // Hand the groups over in the layout the steps read, and leave the interleaved table zeroed.
  for (let i = first; i < touchedCount; i++) {
    const g = touched[i]!;
    const cls = g % CLASS_COUNT;
    const at = (cls * VV + (g - cls) / CLASS_COUNT) << 1;
    counts[g] = cl[at]!;
    lastSlot[g] = cl[at + 1]!;
    cl[at] = 0;
  }
  s.touchedCount = touchedCount;
}

/** True when blockTable[p … p + S − 1] are the pages first, first + 1, …, first + S − 1. */
function holdsRun(blockTable: ArrayLike<number>, p: number, first: number, S: number): boolean {
  for (let j = 1; j < S; j++) if (blockTable[p + j] !== first + j) return false;
  return true;
}

/**
 * Adds a run's summary as the slot loop above would add its slots, from logical position `logical`:
 * entries come in first-appearance order, so groups are first touched in the same order, and a
 * group's latest slot is the latest of its entries.
 */
function addSummary(
  summary: SlotSummary, V: number, cl: Int32Array, touched: Int32Array, touchedCount: number,
  requestTenant: ArrayLike<number>, tenant: number, onSlots: ((writer: number, slots: number) => void) | undefined, logical: number,
): number {
  const VV = V * V;
  const { data, entries } = summary;
  for (let at4 = 0, end = 4 * entries; at4 < end; at4 += 4) {
    const w = data[at4 + 1]!;
    const cls = w < 0 ? CLASS_EMPTY : requestTenant[w] === tenant ? CLASS_OWN : CLASS_FOREIGN;
    const kvPacked = data[at4]!;
    const kv = (kvPacked >>> 16) * V + (kvPacked & 0xffff);
    const at = (cls * VV + kv) << 1;
    const c = cl[at]!;
    const slot = logical + data[at4 + 3]!;
    if (c === 0) {
      touched[touchedCount++] = kv * CLASS_COUNT + cls;
      cl[at + 1] = slot;
    } else if (slot > cl[at + 1]!) {
      cl[at + 1] = slot;
    }
    cl[at] = c + data[at4 + 2]!;
  }
  if (onSlots) for (let k = 4 * entries, end = data.length; k < end; k += 2) onSlots(data[k]!, data[k + 1]!);
  return touchedCount;
}

/**
 * A context's (key, value, writer-class) groups, counted elsewhere (the WebGPU backend counts them on
 * the GPU). Group id: (key · vocabSize + value) · 3 + class. They must come in order of first
 * appearance in the context, as `generate` meets them: the steps sum group masses in float64 in that
 * order, and only the same order gives bit-identical probabilities and tie-breaks.
 */
export interface ContextGroups {
  length: number;
  group: Int32Array;
  count: Int32Array;
  /** Logical index of the group's latest slot. */
  lastSlot: Int32Array;
}

/** `generate` over groups counted elsewhere: the same steps, the same arithmetic, the same output. */
export function generateFromGroups(model: DecodeModel, ctx: KvContext, groups: ContextGroups, opts: GenerateOptions): GeneratedToken[] {
  const s = scratchFor(model);
  const limit = model.vocabSize * model.vocabSize * CLASS_COUNT;
  s.touchedCount = 0;
  try {
    for (let i = 0; i < groups.length; i++) {
      const g = groups.group[i]!;
      const n = groups.count[i]!;
      if (!(g >= 0 && g < limit) || !(n > 0) || s.counts[g] !== 0) throw new Error(`invalid group table at entry ${i} (group ${g}, count ${n})`);
      s.counts[g] = n;
      s.lastSlot[g] = groups.lastSlot[i]!;
      s.touched[s.touchedCount++] = g;
    }
    return runSteps(model, s, ctx, opts);
  } finally {
    clearScratch(s);
  }
}

function countCyclicOwn(V: number, s: GroupScratch, prompt: CyclicPrompt): void {
  countCyclicRun(V, s, prompt.source, prompt.start % prompt.source.length, prompt.length, prompt.previous, CLASS_OWN, 0);
}

/**
 * Counts `n` slots holding source[start], source[start + 1], … (cyclically), the first keyed by
 * `previous`, all of class `cls`, at logical positions logicalBase… . Every pair of the run occurs in
 * its first C + 1 positions, which are scanned in order (same first-seen order as a slot scan); the
 * pair at run position j ≥ 1 recurs at j + C, j + 2C, …, which are added in one pass.
 */
function countCyclicRun(V: number, s: GroupScratch, source: Uint16Array, start: number, n: number, previous: number, cls: number, logicalBase: number): void {
  const { counts, lastSlot, touched } = s;
  const C = source.length;
  let touchedCount = s.touchedCount;
  const head = Math.min(n, C + 1);
  let prev = previous;
  for (let i = 0, idx = start; i < head; i++) {
    const token = source[idx]!;
    const g = (prev * V + token) * CLASS_COUNT + cls;
    const c = counts[g]!;
    if (c === 0) touched[touchedCount++] = g;
    counts[g] = c + 1;
    lastSlot[g] = logicalBase + i;
    prev = token;
    if (++idx === C) idx = 0;
  }
  s.touchedCount = touchedCount;
  if (n <= head) return;
  // With m = n − 1 = qC + r, the pair at j occurs q more times if j ≤ r, else q − 1 more times.
  const m = n - 1;
  const q = Math.floor(m / C);
  const r = m - q * C;
  let keyIdx = start;
  let valueIdx = start + 1 === C ? 0 : start + 1;
  for (let j = 1; j <= C; j++) {
    const extra = j <= r ? q : q - 1;
    if (extra > 0) {
      const g = (source[keyIdx]! * V + source[valueIdx]!) * CLASS_COUNT + cls;
      counts[g]! += extra;
      const last = logicalBase + j + extra * C;
      if (last > lastSlot[g]!) lastSlot[g] = last;
    }
    keyIdx = valueIdx;
    if (++valueIdx === C) valueIdx = 0;
  }
}

/**
 * The touched groups unpacked into flat arrays, in first-seen order, once per generate call. The
 * attention sums run over (key, value) pairs with the writer classes merged (`pair*`), in order of
 * each pair's first slot: what a step computes depends on the KV alone, never on who wrote it, down to
 * the order of float additions. The provenance pass then visits only the (key, value, class) groups
 * voting for the chosen token (a per-value list, in first-seen order).
 */
class Unpacked {
  key = new Int32Array(0);
  value = new Int32Array(0);
  cls = new Uint8Array(0);
  count = new Float64Array(0);
  last = new Int32Array(0);
  next = new Int32Array(0);
  head = new Int32Array(0);
  size = 0;
  pairKey = new Int32Array(0);
  pairValue = new Int32Array(0);
  pairCount = new Float64Array(0);
  pairs = 0;
  /** The values some group votes for, ascending: the only tokens whose logit a step can make nonzero. */
  candidates = new Int32Array(0);
  candidateCount = 0;
  /** (key · V + value) → index in pair*, −1 when not seen; reset after each fill. */
  private pairIndex = new Int32Array(0);

  fill(s: GroupScratch, V: number): void {
    const n = s.touchedCount;
    if (this.key.length < n) {
      const cap = Math.max(n, this.key.length * 2, 1024);
      this.key = new Int32Array(cap);
      this.value = new Int32Array(cap);
      this.cls = new Uint8Array(cap);
      this.count = new Float64Array(cap);
      this.last = new Int32Array(cap);
      this.next = new Int32Array(cap);
      this.pairKey = new Int32Array(cap);
      this.pairValue = new Int32Array(cap);
      this.pairCount = new Float64Array(cap);
    }
    if (this.head.length < V) {
      this.head = new Int32Array(V);
      this.candidates = new Int32Array(V);
    }
    if (this.pairIndex.length < V * V) this.pairIndex = new Int32Array(V * V).fill(-1);
    this.head.fill(-1, 0, V);
    const { touched, counts, lastSlot } = s;
    const pairIndex = this.pairIndex;
    let pairs = 0;
    for (let i = 0; i < n; i++) {
      const g = touched[i]!;
      const cls = g % CLASS_COUNT;
      const kv = (g - cls) / CLASS_COUNT;
      const key = (kv / V) | 0;
      const value = kv - key * V;
      const count = counts[g]!;
      this.key[i] = key;
      this.value[i] = value;
      this.cls[i] = cls;
      this.count[i] = count;
      this.last[i] = lastSlot[g]!;
      const at = pairIndex[kv]!;
      if (at < 0) {
        pairIndex[kv] = pairs;
        this.pairKey[pairs] = key;
        this.pairValue[pairs] = value;
        this.pairCount[pairs] = count;
        pairs++;
      } else {
        this.pairCount[at]! += count; // integer counts: exact in float64
      }
    }
    for (let i = 0; i < pairs; i++) pairIndex[this.pairKey[i]! * V + this.pairValue[i]!] = -1;
    for (let i = n - 1; i >= 0; i--) {
      const v = this.value[i]!;
      this.next[i] = this.head[v]!;
      this.head[v] = i;
    }
    let candidates = 0;
    for (let v = 0; v < V; v++) if (this.head[v]! >= 0) this.candidates[candidates++] = v;
    this.candidateCount = candidates;
    this.size = n;
    this.pairs = pairs;
  }
}

const unpackedByModel = new WeakMap<DecodeModel, Unpacked>();

function runSteps(model: DecodeModel, s: GroupScratch, ctx: KvContext | null, opts: GenerateOptions): GeneratedToken[] {
  let u = unpackedByModel.get(model);
  if (!u) {
    u = new Unpacked();
    unpackedByModel.set(model, u);
  }
  u.fill(s, model.vocabSize);
  // Every logit starts at zero; a step writes (and then clears) only its candidates' logits.
  s.logits.fill(0);
  const out: GeneratedToken[] = [];
  const history = [...(opts.history ?? [])];
  let query = opts.query;
  for (let step = 0; step < opts.steps; step++) {
    const token = stepGrouped(model, s, u, ctx, query, history);
    out.push(token);
    history.push(token.token);
    query = token.token;
  }
  return out;
}

function stepGrouped(model: DecodeModel, s: GroupScratch, u: Unpacked, ctx: KvContext | null, query: number, history: readonly number[]): GeneratedToken {
  const V = model.vocabSize;
  const W = model.weights;
  const row = query * V;
  const { logits } = s;
  const { key, count, cls, last, next, head, pairKey, pairValue, pairCount, candidates, candidateCount } = u;
  for (let i = 0; i < candidateCount; i++) logits[candidates[i]!] = 0;
  let z = 0;
  for (let i = 0, n = u.pairs; i < n; i++) {
    const mass = W[row + pairKey[i]!]! * pairCount[i]!;
    z += mass;
    logits[pairValue[i]!]! += mass;
  }
  const best = pickCandidate(logits, candidates, candidateCount, history, model.config.repetitionPenalty);

  // Provenance: the heaviest group that voted for `best`; ties go to the latest slot.
  let bestMass = -1;
  let bestSlot = -1;
  let foreign = 0;
  for (let i = head[best]!; i >= 0; i = next[i]!) {
    const mass = W[row + key[i]!]! * count[i]!;
    if (cls[i] === CLASS_FOREIGN) foreign += mass;
    const slot = last[i]!;
    if (mass > bestMass || (mass === bestMass && slot > bestSlot)) {
      bestMass = mass;
      bestSlot = slot;
    }
  }
  return describe(best, z > 0 ? logits[best]! / z : 0, bestSlot, z > 0 ? foreign / z : 0, ctx);
}

/** Repetition penalty, special-token mask, argmax with ties to the lowest id. */
function pickToken(logits: Float64Array, V: number, history: readonly number[], penalty: number): number {
  for (const t of history) logits[t]! /= penalty;
  let best = SPECIAL_TOKEN_COUNT;
  let bestLogit = logits[best] ?? 0;
  for (let v = SPECIAL_TOKEN_COUNT + 1; v < V; v++) {
    if (logits[v]! > bestLogit) {
      bestLogit = logits[v]!;
      best = v;
    }
  }
  // Undo the penalty so probabilities report the model's attention share, not the sampler's tweak.
  for (const t of history) logits[t]! *= penalty;
  return best;
}

/**
 * `pickToken` over the candidates alone: every other logit is zero, so it can never beat the
 * running best (which starts at a logit ≥ 0), and the same token wins with the same logit.
 */
function pickCandidate(logits: Float64Array, candidates: Int32Array, candidateCount: number, history: readonly number[], penalty: number): number {
  for (const t of history) logits[t]! /= penalty;
  let best = SPECIAL_TOKEN_COUNT;
  let bestLogit = logits[best] ?? 0;
  for (let i = 0; i < candidateCount; i++) {
    const v = candidates[i]!;
    if (v > SPECIAL_TOKEN_COUNT && logits[v]! > bestLogit) {
      bestLogit = logits[v]!;
      best = v;
    }
  }
  for (const t of history) logits[t]! *= penalty;
  return best;
}

function describe(token: number, probability: number, slot: number, foreignShare: number, ctx: KvContext | null): GeneratedToken {
  if (slot < 0) return { token, probability, slot: -1, page: -1, writer: -1, foreignShare };
  if (ctx === null) return { token, probability, slot, page: -1, writer: -1, foreignShare };
  const page = ctx.blockTable[Math.floor(slot / ctx.pageSize)]!;
  const physical = page * ctx.pageSize + (slot % ctx.pageSize);
  return { token, probability, slot, page, writer: ctx.slotWriter[physical]!, foreignShare };
}

/**
 * Per-slot reference implementation of `generate`: no grouping, one pass over the context per step.
 * Slow on purpose; tests and the GPU backend's agreement checks compare against it.
 */
export function generateNaive(model: DecodeModel, ctx: KvContext, who: WriterClassifier, opts: GenerateOptions): GeneratedToken[] {
  const V = model.vocabSize;
  const W = model.weights;
  const out: GeneratedToken[] = [];
  const history = [...(opts.history ?? [])];
  let query = opts.query;
  const logits = new Float64Array(V);
  const physical = (logical: number) =>
    ctx.blockTable[Math.floor(logical / ctx.pageSize)]! * ctx.pageSize + (logical % ctx.pageSize);
  for (let step = 0; step < opts.steps; step++) {
    logits.fill(0);
    let z = 0;
    for (let i = 0; i < ctx.seqLen; i++) {
      const slot = physical(i);
      const w = W[query * V + ctx.keyTokens[slot]!]!;
      z += w;
      logits[ctx.valueTokens[slot]!]! += w;
    }
    const best = pickToken(logits, V, history, model.config.repetitionPenalty);
    const groups = new Map<string, { mass: number; last: number }>();
    let foreign = 0;
    for (let i = 0; i < ctx.seqLen; i++) {
      const slot = physical(i);
      if (ctx.valueTokens[slot] !== best) continue;
      const w = W[query * V + ctx.keyTokens[slot]!]!;
      const cls = classOf(ctx.slotWriter[slot]!, who);
      if (cls === CLASS_FOREIGN) foreign += w;
      const key = `${ctx.keyTokens[slot]}:${cls}`;
      const g = groups.get(key) ?? { mass: 0, last: -1 };
      g.mass += w;
      g.last = i;
      groups.set(key, g);
    }
    let bestMass = -1;
    let bestSlot = -1;
    for (const g of groups.values()) {
      if (g.mass > bestMass || (g.mass === bestMass && g.last > bestSlot)) {
        bestMass = g.mass;
        bestSlot = g.last;
      }
    }
    const token = describe(best, z > 0 ? logits[best]! / z : 0, bestSlot, z > 0 ? foreign / z : 0, ctx);
    out.push(token);
    history.push(best);
    query = best;
  }
  return out;
}

/** A private, contiguous context holding exactly `tokens`, written by `writer`: what the model should see. */
export function cleanContext(tokens: Uint16Array, previous: number, writer: number): KvContext {
  const keys = new Uint16Array(tokens.length);
  keys[0] = previous;
  keys.set(tokens.subarray(0, tokens.length - 1), 1);
  return {
    keyTokens: keys,
    valueTokens: tokens,
    slotWriter: new Int32Array(tokens.length).fill(writer),
    pageSize: Math.max(1, tokens.length),
    blockTable: [0],
    seqLen: tokens.length,
  };
}
