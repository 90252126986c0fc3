/**
 * A small trained decoder-only transformer (docs/MODEL.md, "The real model"): token embeddings,
 * `layers` pre-norm blocks of multi-head causal self-attention with rotary positions and a ReLU MLP,
 * a final norm and an output projection. Weights come from `npm run train` (train.ts); this module
 * only runs them.
 *
 * Its KV lives in the pages: prefill writes, per layer, each token's rotated key and its value into
 * the token's slot (`PageTensors`), and a decode step attends over every slot a block table maps,
 * page by page (PagedAttention), plus the request's own generated tokens. Nothing here knows who
 * wrote a slot: writers are read afterwards, only to attribute the attention (provenance.ts).
 *
 * Arithmetic: weights and KV in float32, dot products and softmax sums in float64 (JS numbers),
 * stored back as float32; attention weights through `attentionExp` (only + − × and tables, so the
 * same bits in every JS engine). Deterministic: same weights and memory → same bits.
 */
import type { PageTensors } from './kvTensors.ts';

export interface TransformerShape {
  vocab: number;
  dim: number;
  layers: number;
  heads: number;
  /** Width of the MLP's hidden layer. */
  hidden: number;
  /** Rotary base: pair i of a head rotates by position · ropeBase^(−2i / headDim). */
  ropeBase: number;
}

export interface LayerWeights {
  norm1: Float32Array;
  /** dim × dim, row-major: out[j] = Σ_i in[i] · w[i·dim + j]. */
  wq: Float32Array;
  wk: Float32Array;
  wv: Float32Array;
  wo: Float32Array;
  norm2: Float32Array;
  /** dim × hidden. */
  w1: Float32Array;
  b1: Float32Array;
  /** hidden × dim. */
  w2: Float32Array;
}

export interface TransformerWeights {
  shape: TransformerShape;
  /** The model's vocabulary, by token id (word-level). */
  words: readonly string[];
  /** vocab × dim. */
  embed: Float32Array;
  layers: LayerWeights[];
  normOut: Float32Array;
  /** dim × vocab. */
  unembed: Float32Array;
}

export const RMS_EPS = 1e-5;

/** Parameter tensors in their one fixed order: the trainer's flat vector and the weights file share it. */
export function parameterLayout(shape: TransformerShape): { name: string; size: number }[] {
  const { vocab: V, dim: d, hidden: m } = shape;
  const out = [{ name: 'embed', size: V * d }];
  for (let l = 0; l < shape.layers; l++) {
    out.push(
      { name: `l${l}.norm1`, size: d },
      { name: `l${l}.wq`, size: d * d },
      { name: `l${l}.wk`, size: d * d },
      { name: `l${l}.wv`, size: d * d },
      { name: `l${l}.wo`, size: d * d },
      { name: `l${l}.norm2`, size: d },
      { name: `l${l}.w1`, size: d * m },
      { name: `l${l}.b1`, size: m },
      { name: `l${l}.w2`, size: m * d },
    );
  }
  out.push({ name: 'normOut', size: d }, { name: 'unembed', size: d * V });
  return out;
}

export function parameterCount(shape: TransformerShape): number {
  return parameterLayout(shape).reduce((n, t) => n + t.size, 0);
}

export function shapeProblems(shape: TransformerShape): string[] {
  const problems: string[] = [];
  for (const key of ['vocab', 'dim', 'layers', 'heads', 'hidden', 'ropeBase'] as const) {
    const v = shape[key];
    if (!(Number.isInteger(v) && v >= 1)) problems.push(`${key} must be a positive integer, got ${JSON.stringify(v)}`);
  }
  if (problems.length === 0 && shape.dim % shape.heads !== 0) problems.push(`dim ${shape.dim} is not a multiple of heads ${shape.heads}`);
  if (problems.length === 0 && (shape.dim / shape.heads) % 8 !== 0) problems.push(`head width ${shape.dim / shape.heads} must be a multiple of 8 (rotary pairs; the kernels read 8 at a time)`);
  return problems;
}

/** Weights as views (float32 copies) of a flat parameter vector laid out by `parameterLayout`. */
export function weightsFromFlat(shape: TransformerShape, words: readonly string[], flat: ArrayLike<number>): TransformerWeights {
  const layout = parameterLayout(shape);
  const total = layout.reduce((n, t) => n + t.size, 0);
  if (flat.length !== total) throw new Error(`weights: ${flat.length} parameters given, the shape needs ${total}`);
  if (words.length !== shape.vocab) throw new Error(`weights: ${words.length} words for a vocabulary of ${shape.vocab}`);
  const all = Float32Array.from(flat as ArrayLike<number>);
  const byName = new Map<string, Float32Array>();
  let at = 0;
  for (const t of layout) {
    byName.set(t.name, all.subarray(at, at + t.size));
    at += t.size;
  }
  const get = (name: string) => byName.get(name)!;
  return {
    shape,
    words,
    embed: get('embed'),
    layers: Array.from({ length: shape.layers }, (_, l) => ({
      norm1: get(`l${l}.norm1`),
      wq: get(`l${l}.wq`),
      wk: get(`l${l}.wk`),
      wv: get(`l${l}.wv`),
      wo: get(`l${l}.wo`),
      norm2: get(`l${l}.norm2`),
      w1: get(`l${l}.w1`),
      b1: get(`l${l}.b1`),
      w2: get(`l${l}.w2`),
    })),
    normOut: get('normOut'),
    unembed: get('unembed'),
  };
}

/** The flat float32 vector of a model's parameters, in layout order (what the file and the GPU hold). */
export function flatWeights(w: TransformerWeights): Float32Array {
  const parts: Float32Array[] = [w.embed];
  for (const l of w.layers) parts.push(l.norm1, l.wq, l.wk, l.wv, l.wo, l.norm2, l.w1, l.b1, l.w2);
  parts.push(w.normOut, w.unembed);
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const MAGIC = 'SPLM1';

/** UTF-8 by hand: the engine's library is ES2022 alone (no TextEncoder), and it runs everywhere. */
function utf8Encode(text: string): Uint8Array {
  const out: number[] = [];
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return Uint8Array.from(out);
}

function utf8Decode(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i]!;
    const extra = b < 0x80 ? 0 : b < 0xe0 ? 1 : b < 0xf0 ? 2 : 3;
    let c = extra === 0 ? b : b & (0x3f >> extra);
    for (let k = 1; k <= extra; k++) c = (c << 6) | (bytes[i + k]! & 63);
    out += String.fromCodePoint(c);
    i += extra + 1;
  }
  return out;
}

/**
 * The weights file: "SPLM1", a u32 (little-endian) header length, a JSON header {shape, words,
 * parameters, meta}, zero padding to a multiple of 4, then the parameters as little-endian float32.
 */
export function encodeWeights(w: TransformerWeights, meta: Record<string, unknown> = {}): Uint8Array {
  const flat = flatWeights(w);
  const header = utf8Encode(JSON.stringify({ shape: w.shape, words: w.words, parameters: flat.length, meta }));
  const headLen = MAGIC.length + 4 + header.length;
  const pad = (4 - (headLen % 4)) % 4;
  const out = new Uint8Array(headLen + pad + flat.length * 4);
  out.set(utf8Encode(MAGIC), 0);
  new DataView(out.buffer).setUint32(MAGIC.length, header.length, true);
  out.set(header, MAGIC.length + 4);
  const view = new DataView(out.buffer, headLen + pad);
  for (let i = 0; i < flat.length; i++) view.setFloat32(i * 4, flat[i]!, true);
  return out;
}

export interface DecodedWeights {
  weights: TransformerWeights;
  meta: Record<string, unknown>;
}

/** Reads a weights file; a bad one throws an error naming what is wrong with it. */
export function decodeWeights(bytes: Uint8Array): DecodedWeights {
  const magic = utf8Decode(bytes.subarray(0, MAGIC.length));
  if (magic !== MAGIC) throw new Error(`weights file: starts with ${JSON.stringify(magic)}, expected ${JSON.stringify(MAGIC)}`);
  if (bytes.length < MAGIC.length + 4) throw new Error('weights file: truncated header');
  const headerLen = new DataView(bytes.buffer, bytes.byteOffset).getUint32(MAGIC.length, true);
  const headLen = MAGIC.length + 4 + headerLen;
  if (bytes.length < headLen) throw new Error(`weights file: header of ${headerLen} bytes runs past the end (${bytes.length} bytes)`);
  let header: { shape: TransformerShape; words: string[]; parameters: number; meta?: Record<string, unknown> };
  try {
    header = JSON.parse(utf8Decode(bytes.subarray(MAGIC.length + 4, headLen)));
  } catch (e) {
    throw new Error(`weights file: header is not JSON (${(e as Error).message})`);
  }
  const problems = shapeProblems(header.shape ?? ({} as TransformerShape));
  if (problems.length > 0) throw new Error(`weights file: shape: ${problems.join('; ')}`);
  const need = parameterCount(header.shape);
  if (header.parameters !== need) throw new Error(`weights file: header says ${header.parameters} parameters, the shape needs ${need}`);
  const pad = (4 - (headLen % 4)) % 4;
  const body = headLen + pad;
  if (bytes.length !== body + need * 4) throw new Error(`weights file: ${bytes.length} bytes, expected ${body + need * 4}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset + body, need * 4);
  const flat = new Float32Array(need);
  for (let i = 0; i < need; i++) flat[i] = view.getFloat32(i * 4, true);
  return { weights: weightsFromFlat(header.shape, header.words, flat), meta: header.meta ?? {} };
}

/** y = x · W for one row: x of length n, W n × m row-major; y of length m (overwritten). */
export function vecMat(x: ArrayLike<number>, w: Float32Array, n: number, m: number, y: Float32Array | Float64Array): void {
  y.fill(0, 0, m);
  for (let i = 0; i < n; i++) {
    const xi = x[i]!;
    if (xi === 0) continue;
    const row = i * m;
    for (let j = 0; j < m; j++) y[j]! += xi * w[row + j]!;
  }
}

/** RMS norm with a learned gain, into `out`. */
export function rmsNorm(x: ArrayLike<number>, gain: Float32Array, out: Float32Array | Float64Array, d: number): void {
  let ss = 0;
  for (let i = 0; i < d; i++) ss += x[i]! * x[i]!;
  const r = 1 / Math.sqrt(ss / d + RMS_EPS);
  for (let i = 0; i < d; i++) out[i] = x[i]! * r * gain[i]!;
}

/** Rotary frequencies of one head: ropeBase^(−2i / headDim) for each pair i. */
export function ropeFrequencies(shape: TransformerShape): Float64Array {
  const dh = shape.dim / shape.heads;
  const f = new Float64Array(dh / 2);
  for (let i = 0; i < dh / 2; i++) f[i] = Math.pow(shape.ropeBase, (-2 * i) / dh);
  return f;
}

/** Rotates every head of x (length dim) in place to `position`. */
export function applyRope(x: Float32Array | Float64Array, at: number, shape: TransformerShape, freqs: Float64Array, position: number): void {
  const dh = shape.dim / shape.heads;
  const half = dh / 2;
  for (let i = 0; i < half; i++) {
    const angle = position * freqs[i]!;
    const c = Math.cos(angle);
    const s = Math.sin(angle);
    for (let h = 0; h < shape.heads; h++) {
      const o = at + h * dh + 2 * i;
      const a = x[o]!;
      const b = x[o + 1]!;
      x[o] = a * c - b * s;
      x[o + 1] = a * s + b * c;
    }
  }
}

/** Where a prefill's tokens go: `tensors`' slots, laid over `blockTable`'s pages in order. */
export interface PagedKv {
  tensors: PageTensors;
  pageSize: number;
  blockTable: ArrayLike<number>;
}

function physicalSlot(kv: PagedKv, logical: number): number {
  return kv.blockTable[Math.floor(logical / kv.pageSize)]! * kv.pageSize + (logical % kv.pageSize);
}

/**
 * Prefill: runs tokens[from … tokens.length − 1] at positions from…, each attending causally over
 * every earlier position, and writes their keys (rotated to their positions) and values into their
 * slots. Positions before `from` are read back from the slots (what an earlier chunk wrote).
 * Returns the logits after the last token.
 */
export function prefill(w: TransformerWeights, tokens: ArrayLike<number>, from: number, kv: PagedKv): Float32Array {
  const { dim: d, heads: H, hidden: m, vocab: V } = w.shape;
  const dh = d / H;
  const N = tokens.length;
  const n = N - from;
  if (n <= 0) throw new Error(`prefill: nothing to compute (from ${from} of ${N} tokens)`);
  const freqs = ropeFrequencies(w.shape);
  const scale = 1 / Math.sqrt(dh);
  const t = kv.tensors;
  const h = new Float32Array(n * d);
  for (let i = 0; i < n; i++) h.set(w.embed.subarray(tokens[from + i]! * d, tokens[from + i]! * d + d), i * d);
  const a = new Float32Array(d);
  const q = new Float32Array(n * d);
  const keys = new Float32Array(N * d);
  const values = new Float32Array(N * d);
  const row = new Float32Array(d);
  const scores = new Float64Array(H * N);
  const o = new Float32Array(d);
  const proj = new Float32Array(Math.max(d, m));
  const slots = new Int32Array(N);
  for (let i = 0; i < N; i++) slots[i] = physicalSlot(kv, i);
  for (let l = 0; l < w.layers.length; l++) {
    const L = w.layers[l]!;
    const K = t.keys[l]!;
    const Vv = t.values[l]!;
    for (let i = 0; i < from; i++) {
      keys.set(K.subarray(slots[i]! * d, slots[i]! * d + d), i * d);
      values.set(Vv.subarray(slots[i]! * d, slots[i]! * d + d), i * d);
    }
    for (let i = 0; i < n; i++) {
      rmsNorm(h.subarray(i * d, i * d + d), L.norm1, a, d);
      vecMat(a, L.wq, d, d, row);
      applyRope(row, 0, w.shape, freqs, from + i);
      q.set(row, i * d);
      vecMat(a, L.wk, d, d, row);
      applyRope(row, 0, w.shape, freqs, from + i);
      keys.set(row, (from + i) * d);
      vecMat(a, L.wv, d, d, row);
      values.set(row, (from + i) * d);
    }
    for (let i = from; i < N; i++) t.writeSlot(l, slots[i]!, keys.subarray(i * d, i * d + d), values.subarray(i * d, i * d + d));
    for (let i = 0; i < n; i++) {
      const pos = from + i;
      causalAttention(q, i * d, keys, values, pos, H, dh, scale, scores, o);
      vecMat(o, L.wo, d, d, proj);
      for (let e = 0; e < d; e++) h[i * d + e]! += proj[e]!;
      mlp(L, h, i * d, d, m, a, proj);
    }
  }
  const logits = new Float32Array(V);
  rmsNorm(h.subarray((n - 1) * d, n * d), w.normOut, a, d);
  vecMat(a, w.unembed, d, V, logits);
  return logits;
}

/**
 * Attention of the query at `qAt` (all heads) over keys and values at positions 0 … pos, contiguous:
 * each key row read once for every head, then each value row. `scores` holds heads × (pos + 1).
 */
function causalAttention(q: Float32Array, qAt: number, keys: Float32Array, values: Float32Array, pos: number, H: number, dh: number, scale: number, scores: Float64Array, o: Float32Array): void {
  const d = H * dh;
  const n = pos + 1;
  const qs = new Float64Array(d);
  for (let e = 0; e < d; e++) qs[e] = q[qAt + e]! * scale;
  const max = new Float64Array(H).fill(-Infinity);
  const acc = new Float64Array(d);
  const z = new Float64Array(H);
  if (H === 2 && dh === 16) {
    // The decode kernels over one contiguous page of n slots.
    scorePage2x16(qs, keys, 0, n, scores, n, max);
    weighPage2x16(scores, n, max, z, new Float64Array(2), acc, values, NO_NORMS, 0, n, null, 0, 0);
  } else {
    for (let u = 0; u < n; u++) {
      const ko = u * d;
      for (let hh = 0, off = 0; hh < H; hh++, off += dh) {
        const dot = dot8(qs, off, keys, ko + off, dh);
        scores[hh * n + u] = dot;
        if (dot > max[hh]!) max[hh] = dot;
      }
    }
    for (let u = 0; u < n; u++) {
      const vo = u * d;
      for (let hh = 0, off = 0; hh < H; hh++, off += dh) {
        const e = attentionExp(scores[hh * n + u]! - max[hh]!);
        z[hh]! += e;
        axpy8(acc, off, e, values, vo + off, dh);
      }
    }
  }
  for (let hh = 0, off = 0; hh < H; hh++, off += dh) for (let k = 0; k < dh; k++) o[off + k] = acc[off + k]! / z[hh]!;
}

const NO_NORMS = new Float32Array(0);

const hiddenScratch = new Map<number, Float32Array>();

/** h[at … at + d) += W2 · relu(W1 · norm2(h) + b1). */
function mlp(L: LayerWeights, h: Float32Array, at: number, d: number, m: number, a: Float32Array, out: Float32Array): void {
  let z = hiddenScratch.get(m);
  if (!z) {
    z = new Float32Array(m);
    hiddenScratch.set(m, z);
  }
  rmsNorm(h.subarray(at, at + d), L.norm2, a, d);
  vecMat(a, L.w1, d, m, z);
  for (let j = 0; j < m; j++) {
    const v = z[j]! + L.b1[j]!;
    z[j] = v > 0 ? v : 0;
  }
  vecMat(z, L.w2, m, d, out);
  for (let e = 0; e < d; e++) h[at + e]! += out[e]!;
}

/** What a decode reads: `seqLen` slots of `tensors` laid over `blockTable`'s pages. */
export interface PagedContext extends PagedKv {
  seqLen: number;
}

/**
 * Where one decode step's attention went, per logical slot of the context and per tail token,
 * summed over layers and heads of (attention weight × value norm) / (the same summed over the
 * row): the share of what each slot carried into the step's output, averaged over layers and heads.
 * A slot holding zeros carries nothing, whatever its writer tag says.
 */
export interface StepAttention {
  slotShare: Float64Array;
  tailShare: Float64Array;
  /** Per (layer, head), layer-major, each slot's share within that head alone (seqLen each); null: not asked for. */
  headSlotShare: Float64Array | null;
}

/** A request's decode: the KV of the tokens it generated (its own tail), and scratch. */
export class DecodeState {
  readonly tailKeys: Float32Array[];
  readonly tailValues: Float32Array[];
  readonly tailNorms: Float32Array[];
  tailLength = 0;
  private scores = new Float64Array(0);

  constructor(readonly w: TransformerWeights, readonly capacity: number) {
    const { dim: d, heads: H } = w.shape;
    this.tailKeys = w.layers.map(() => new Float32Array(capacity * d));
    this.tailValues = w.layers.map(() => new Float32Array(capacity * d));
    this.tailNorms = w.layers.map(() => new Float32Array(capacity * H));
  }

  private carried = new Float64Array(0);

  /** Per-head scores of a step (heads × n). */
  scratch(n: number): Float64Array {
    if (this.scores.length < n) this.scores = new Float64Array(Math.max(n, this.scores.length * 2));
    return this.scores;
  }

  private pageMax = new Float64Array(0);

  /** Per head, the running maximum each page's weights were taken against. */
  pageMaxScratch(n: number): Float64Array {
    if (this.pageMax.length < n) this.pageMax = new Float64Array(Math.max(n, this.pageMax.length * 2));
    return this.pageMax;
  }

  /** Per-head attention weight × value norm of a step (heads × n), for the shares. */
  carriedScratch(n: number): Float64Array {
    if (this.carried.length < n) this.carried = new Float64Array(Math.max(n, this.carried.length * 2));
    return this.carried;
  }
}

/**
 * One decode step: token `input` at `position`, its own key and value appended to the tail, then
 * per layer attention over the context's slots (through the block table) and the tail. Returns
 * the logits; fills `attention` when given (its arrays sized seqLen and ≥ tail length + 1).
 */
export function decodeStep(state: DecodeState, input: number, position: number, ctx: PagedContext, attention: StepAttention | null): Float32Array {
  const w = state.w;
  const { dim: d, heads: H, hidden: m, vocab: V } = w.shape;
  const dh = d / H;
  if (state.tailLength >= state.capacity) throw new Error(`decode: tail of ${state.capacity} tokens is full`);
  const freqs = ropeFrequencies(w.shape);
  const scale = 1 / Math.sqrt(dh);
  const h = Float32Array.from(w.embed.subarray(input * d, input * d + d));
  const a = new Float32Array(d);
  const q = new Float32Array(d);
  const row = new Float32Array(d);
  const o = new Float32Array(d);
  const proj = new Float32Array(Math.max(d, m));
  const t = state.tailLength++;
  const seqLen = ctx.seqLen;
  const weight = 1 / (w.layers.length * H);
  if (attention) {
    attention.slotShare.fill(0, 0, seqLen);
    attention.tailShare.fill(0, 0, t + 1);
    attention.headSlotShare?.fill(0);
  }
  for (let l = 0; l < w.layers.length; l++) {
    const L = w.layers[l]!;
    rmsNorm(h, L.norm1, a, d);
    vecMat(a, L.wq, d, d, q);
    applyRope(q, 0, w.shape, freqs, position);
    vecMat(a, L.wk, d, d, row);
    applyRope(row, 0, w.shape, freqs, position);
    state.tailKeys[l]!.set(row, t * d);
    vecMat(a, L.wv, d, d, row);
    state.tailValues[l]!.set(row, t * d);
    for (let hh = 0; hh < H; hh++) {
      let ss = 0;
      for (let e = 0; e < dh; e++) ss += row[hh * dh + e]! * row[hh * dh + e]!;
      state.tailNorms[l]![t * H + hh] = Math.sqrt(ss);
    }
    attendPaged(state, l, q, ctx, t, o, attention, scale, weight);
    vecMat(o, L.wo, d, d, proj);
    for (let e = 0; e < d; e++) h[e]! += proj[e]!;
    mlp(L, h, 0, d, m, a, proj);
  }
  const logits = new Float32Array(V);
  rmsNorm(h, w.normOut, a, d);
  vecMat(a, w.unembed, d, V, logits);
  return logits;
}

/** Greedy choice: the highest logit among `allowed` tokens (ties to the lowest id). */
export function argmax(logits: Float32Array, firstAllowed: number, excluded: number): number {
  let best = firstAllowed;
  for (let v = firstAllowed + 1; v < logits.length; v++) if (v !== excluded && logits[v]! > logits[best]!) best = v;
  return best;
}

/**
 * One layer's attention for a decode step, all heads in one walk over the block table, page by
 * page: a page's scores (its slots' key rows, every head), then an online softmax step — when the
 * page raises a head's running maximum, what was summed so far is rescaled once — then the page's
 * weighted values. The tail (the answer's own tokens) is one more page. Sums in float64.
 * For the shares, each slot keeps weight × value norm relative to the maximum its page was
 * weighed against; one factor per page and head brings them to the final maximum.
 */
function attendPaged(state: DecodeState, l: number, q: Float32Array, ctx: PagedContext, t: number, o: Float32Array, attention: StepAttention | null, scale: number, weight: number): void {
  const w = state.w;
  const { dim: d, heads: H } = w.shape;
  const dh = d / H;
  const seqLen = ctx.seqLen;
  const ps = ctx.pageSize;
  const pages = Math.ceil(seqLen / ps);
  const total = seqLen + t + 1;
  const X = attention ? state.carriedScratch(H * total) : null;
  const pageMax = attention ? state.pageMaxScratch(H * (pages + 1)) : null;
  const K = ctx.tensors.keys[l]!;
  const Vv = ctx.tensors.values[l]!;
  const norms = ctx.tensors.valueNorms[l]!;
  const bt = ctx.blockTable;
  const qs = new Float64Array(d);
  for (let e = 0; e < d; e++) qs[e] = q[e]! * scale;
  const block = Math.max(ps, t + 1);
  // The committed model's shape (two heads of 16) takes unrolled loops: the same operations in the
  // same order as the general ones (bit for bit, transformer.test.ts), about twice as fast in V8.
  const twoBy16 = H === 2 && dh === 16;
  const sc = state.scratch(H * block);
  const m = new Float64Array(H).fill(-Infinity);
  const pm = new Float64Array(H);
  const z = new Float64Array(H);
  const zv = new Float64Array(H);
  const acc = new Float64Array(d);
  let i = 0;
  for (let p = 0; p <= pages; p++) {
    // Page p of the block table, or (p = pages) the tail.
    const tail = p === pages;
    const Kp = tail ? state.tailKeys[l]! : K;
    const Vp = tail ? state.tailValues[l]! : Vv;
    const Np = tail ? state.tailNorms[l]! : norms;
    const base = tail ? 0 : bt[p]! * ps;
    const n = tail ? t + 1 : Math.min(ps, seqLen - p * ps);
    pm.fill(-Infinity);
    if (twoBy16) {
      scorePage2x16(qs, Kp, base, n, sc, block, pm);
    } else {
      for (let j = 0; j < n; j++) {
        const ko = (base + j) * d;
        for (let hh = 0, off = 0; hh < H; hh++, off += dh) {
          const dot = dot8(qs, off, Kp, ko + off, dh);
          sc[hh * block + j] = dot;
          if (dot > pm[hh]!) pm[hh] = dot;
        }
      }
    }
    for (let hh = 0, off = 0; hh < H; hh++, off += dh) {
      if (pm[hh]! > m[hh]!) {
        const c = Math.exp(m[hh]! - pm[hh]!);
        z[hh]! *= c;
        zv[hh]! *= c;
        for (let k = 0; k < dh; k++) acc[off + k]! *= c;
        m[hh] = pm[hh]!;
      }
      if (pageMax) pageMax[hh * (pages + 1) + p] = m[hh]!;
    }
    if (twoBy16) {
      weighPage2x16(sc, block, m, z, zv, acc, Vp, Np, base, n, X, total, i);
      i += n;
      continue;
    }
    for (let j = 0; j < n; j++, i++) {
      const slot = base + j;
      const vo = slot * d;
      for (let hh = 0, off = 0; hh < H; hh++, off += dh) {
        const e = attentionExp(sc[hh * block + j]! - m[hh]!);
        z[hh]! += e;
        axpy8(acc, off, e, Vp, vo + off, dh);
        if (X) {
          const x = e * Np[slot * H + hh]!;
          X[hh * total + i] = x;
          zv[hh]! += x;
        }
      }
    }
  }
  for (let hh = 0, off = 0; hh < H; hh++, off += dh) for (let k = 0; k < dh; k++) o[off + k] = acc[off + k]! / z[hh]!;
  if (!attention || !X || !pageMax) return;
  const share = attention.slotShare;
  const tailShare = attention.tailShare;
  const headSlots = attention.headSlotShare;
  if (H === 2 && !headSlots && zv[0]! > 0 && zv[1]! > 0) {
    // Both heads in one pass over the slots (the shares need no bit-exact order).
    const stride = pages + 1;
    for (let p = 0; p <= pages; p++) {
      const g0 = (Math.exp(pageMax[p]! - m[0]!) / zv[0]!) * weight;
      const g1 = (Math.exp(pageMax[stride + p]! - m[1]!) / zv[1]!) * weight;
      if (p === pages) {
        for (let k = seqLen; k < total; k++) tailShare[k - seqLen]! += X[k]! * g0 + X[total + k]! * g1;
      } else {
        for (let k = p * ps, end = Math.min(seqLen, k + ps); k < end; k++) share[k]! += X[k]! * g0 + X[total + k]! * g1;
      }
    }
    return;
  }
  for (let hh = 0; hh < H; hh++) {
    if (!(zv[hh]! > 0)) continue;
    const row = hh * total;
    for (let p = 0; p <= pages; p++) {
      // This page's weights were taken against the running maximum then; bring them to the final one.
      const f = Math.exp(pageMax[hh * (pages + 1) + p]! - m[hh]!) / zv[hh]!;
      const from = p === pages ? seqLen : p * ps;
      const to = p === pages ? total : Math.min(seqLen, from + ps);
      if (p === pages) {
        for (let k = from; k < to; k++) tailShare[k - seqLen]! += X[row + k]! * f * weight;
      } else {
        const own = headSlots ? (l * H + hh) * seqLen : 0;
        for (let k = from; k < to; k++) {
          const x = X[row + k]! * f;
          share[k]! += x * weight;
          if (headSlots) headSlots[own + k] = x;
        }
      }
    }
  }
}

/** 2^(i/64), i < 64 (the nearest doubles, written out so that every engine holds the same bits). */
const EXP_FRACTION = Float64Array.of(
  1, 1.0108892860517005, 1.0218971486541166, 1.0330248790212284, 1.0442737824274138, 1.0556451783605572, 1.0671404006768237, 1.0787607977571199,
  1.0905077326652577, 1.102382583307841, 1.1143867425958924, 1.1265216186082418, 1.1387886347566916, 1.1511892299529827, 1.1637248587775775, 1.1763969916502812,
  1.189207115002721, 1.202156731452703, 1.215247359980469, 1.22848053610687, 1.241857812073484, 1.255380757024691, 1.2690509571917332, 1.2828700160787783,
  1.2968395546510096, 1.3109612115247644, 1.3252366431597413, 1.339667524053303, 1.3542555469368927, 1.3690024229745905, 1.3839098819638318, 1.398979672538311,
  1.4142135623730951, 1.42961333839197, 1.4451808069770467, 1.4609177941806468, 1.4768261459394993, 1.4929077282912648, 1.5091644275934228, 1.5255981507445382,
  1.542210825407941, 1.559004400237837, 1.5759808451078865, 1.593142151342267, 1.6104903319492543, 1.6280274218573478, 1.6457554781539647, 1.6636765803267364,
  1.6817928305074292, 1.7001063537185235, 1.718619298122478, 1.7373338352737062, 1.7562521603732995, 1.7753764925265212, 1.7947090750031072, 1.8142521755003989,
  1.8340080864093424, 1.8539791250833857, 1.8741676341103, 1.8945759815869656, 1.9152065613971474, 1.9360617934922946, 1.9571441241754002, 1.978456026387951,
);
/** 2^j for j from −EXP_TWO_BIAS to 0, exactly (halving a power of two is exact down to 2^−1022). */
const EXP_TWO_BIAS = 1022;
const EXP_TWO = new Float64Array(EXP_TWO_BIAS + 1);
for (let j = 0, x = 1; j <= EXP_TWO_BIAS; j++, x /= 2) EXP_TWO[EXP_TWO_BIAS - j] = x;
/** 64 / ln 2, and ln 2 / 64 in two parts (the high part's trailing bits zero: k · it is exact). */
const EXP_K = 92.33248261689366;
const EXP_LN2HI_64 = 6.93147180369123816490e-1 / 64;
const EXP_LN2LO_64 = 1.90821492927058770002e-10 / 64;

/**
 * e^x for an attention weight (x = score − running maximum ≤ 0): x = k·ln2/64 + r with |r| ≤ ln2/64,
 * e^x = 2^(k>>6) · 2^((k&63)/64) · (a degree-6 polynomial of r); within 5e-16 of Math.exp (relative),
 * the same bits on every engine (only + − × and tables), and about twice as fast in V8 when written
 * out in a loop (the decode kernel does). Outside [−700, 0] it is Math.exp.
 */
export function attentionExp(x: number): number {
  if (!(x >= -700 && x <= 0)) return Math.exp(x);
  const k = (x * EXP_K - 0.5) | 0;
  const r = x - k * EXP_LN2HI_64 - k * EXP_LN2LO_64;
  const r2 = r * r;
  return EXP_FRACTION[k & 63]! * (1 + r + r2 * (0.5 + r * (1 / 6)) + r2 * r2 * (1 / 24 + r * (1 / 120) + r2 * (1 / 720))) * EXP_TWO[(k >> 6) + EXP_TWO_BIAS]!;
}

/** Σ a[ao + e] · b[bo + e] for e < n (n a multiple of 8, as every head width here is: shapeProblems). */
function dot8(a: Float64Array, ao: number, b: Float32Array, bo: number, n: number): number {
  let s0 = 0;
  let s1 = 0;
  for (let e = 0; e < n; e += 8) {
    const x = ao + e;
    const y = bo + e;
    s0 += a[x]! * b[y]! + a[x + 1]! * b[y + 1]! + a[x + 2]! * b[y + 2]! + a[x + 3]! * b[y + 3]!;
    s1 += a[x + 4]! * b[y + 4]! + a[x + 5]! * b[y + 5]! + a[x + 6]! * b[y + 6]! + a[x + 7]! * b[y + 7]!;
  }
  return s0 + s1;
}

/** acc[ao + e] += c · v[vo + e] for e < n (n a multiple of 8). */
function axpy8(acc: Float64Array, ao: number, c: number, v: Float32Array, vo: number, n: number): void {
  for (let e = 0; e < n; e += 8) {
    const x = ao + e;
    const y = vo + e;
    acc[x]! += c * v[y]!;
    acc[x + 1]! += c * v[y + 1]!;
    acc[x + 2]! += c * v[y + 2]!;
    acc[x + 3]! += c * v[y + 3]!;
    acc[x + 4]! += c * v[y + 4]!;
    acc[x + 5]! += c * v[y + 5]!;
    acc[x + 6]! += c * v[y + 6]!;
    acc[x + 7]! += c * v[y + 7]!;
  }
}

/**
 * Scores of a page's n slots for two heads of 16 (q in locals), each summed exactly as `dot8`
 * sums it: ((x0 + … + x3) + (x8 + … + x11)) + ((x4 + … + x7) + (x12 + … + x15)).
 */
function scorePage2x16(qs: Float64Array, K: Float32Array, base: number, n: number, sc: Float64Array, block: number, pm: Float64Array): void {
  const a0 = qs[0]!, a1 = qs[1]!, a2 = qs[2]!, a3 = qs[3]!, a4 = qs[4]!, a5 = qs[5]!, a6 = qs[6]!, a7 = qs[7]!;
  const a8 = qs[8]!, a9 = qs[9]!, a10 = qs[10]!, a11 = qs[11]!, a12 = qs[12]!, a13 = qs[13]!, a14 = qs[14]!, a15 = qs[15]!;
  const b0 = qs[16]!, b1 = qs[17]!, b2 = qs[18]!, b3 = qs[19]!, b4 = qs[20]!, b5 = qs[21]!, b6 = qs[22]!, b7 = qs[23]!;
  const b8 = qs[24]!, b9 = qs[25]!, b10 = qs[26]!, b11 = qs[27]!, b12 = qs[28]!, b13 = qs[29]!, b14 = qs[30]!, b15 = qs[31]!;
  let m0 = pm[0]!;
  let m1 = pm[1]!;
  for (let j = 0; j < n; j++) {
    const k = (base + j) * 32;
    const s0 = a0 * K[k]! + a1 * K[k + 1]! + a2 * K[k + 2]! + a3 * K[k + 3]! + (a8 * K[k + 8]! + a9 * K[k + 9]! + a10 * K[k + 10]! + a11 * K[k + 11]!);
    const s1 = a4 * K[k + 4]! + a5 * K[k + 5]! + a6 * K[k + 6]! + a7 * K[k + 7]! + (a12 * K[k + 12]! + a13 * K[k + 13]! + a14 * K[k + 14]! + a15 * K[k + 15]!);
    const t0 = b0 * K[k + 16]! + b1 * K[k + 17]! + b2 * K[k + 18]! + b3 * K[k + 19]! + (b8 * K[k + 24]! + b9 * K[k + 25]! + b10 * K[k + 26]! + b11 * K[k + 27]!);
    const t1 = b4 * K[k + 20]! + b5 * K[k + 21]! + b6 * K[k + 22]! + b7 * K[k + 23]! + (b12 * K[k + 28]! + b13 * K[k + 29]! + b14 * K[k + 30]! + b15 * K[k + 31]!);
    const x = s0 + s1;
    const y = t0 + t1;
    sc[j] = x;
    sc[block + j] = y;
    if (x > m0) m0 = x;
    if (y > m1) m1 = y;
  }
  pm[0] = m0;
  pm[1] = m1;
}

/** The weighted values of a page's n slots for two heads of 16, as the general loop adds them. */
function weighPage2x16(sc: Float64Array, block: number, m: Float64Array, z: Float64Array, zv: Float64Array, acc: Float64Array, V: Float32Array, norms: Float32Array, base: number, n: number, X: Float64Array | null, total: number, first: number): void {
  const m0 = m[0]!;
  const m1 = m[1]!;
  let z0 = z[0]!;
  let z1 = z[1]!;
  let zv0 = zv[0]!;
  let zv1 = zv[1]!;
  // First the page's weights, in place of its scores (attentionExp, written out: a call would box
  // its result), so no running sum is live across them, and each sum below still sees its
  // additions in slot order.
  for (let j = 0; j < n; j++) {
    const x0 = sc[j]! - m0;
    const x1 = sc[block + j]! - m1;
    let e: number;
    let f: number;
    if (x0 >= -700 && x0 <= 0 && x1 >= -700 && x1 <= 0) {
      const k0 = (x0 * EXP_K - 0.5) | 0;
      const k1 = (x1 * EXP_K - 0.5) | 0;
      const r = x0 - k0 * EXP_LN2HI_64 - k0 * EXP_LN2LO_64;
      const u = x1 - k1 * EXP_LN2HI_64 - k1 * EXP_LN2LO_64;
      const r2 = r * r;
      const u2 = u * u;
      e = EXP_FRACTION[k0 & 63]! * (1 + r + r2 * (0.5 + r * (1 / 6)) + r2 * r2 * (1 / 24 + r * (1 / 120) + r2 * (1 / 720))) * EXP_TWO[(k0 >> 6) + EXP_TWO_BIAS]!;
      f = EXP_FRACTION[k1 & 63]! * (1 + u + u2 * (0.5 + u * (1 / 6)) + u2 * u2 * (1 / 24 + u * (1 / 120) + u2 * (1 / 720))) * EXP_TWO[(k1 >> 6) + EXP_TWO_BIAS]!;
    } else {
      e = attentionExp(x0);
      f = attentionExp(x1);
    }
    sc[j] = e;
    sc[block + j] = f;
    z0 += e;
    z1 += f;
  }
  if (X) {
    for (let j = 0; j < n; j++) {
      const slot = base + j;
      const x = sc[j]! * norms[slot * 2]!;
      const y = sc[block + j]! * norms[slot * 2 + 1]!;
      X[first + j] = x;
      X[total + first + j] = y;
      zv0 += x;
      zv1 += y;
    }
  }
  // Head by head: a head's 16 running sums stay in locals (registers) through the page; the heads
  // share nothing, so each sum sees the same additions in the same order as slot by slot.
  {
    let c0 = acc[0]!;
    let c1 = acc[1]!;
    let c2 = acc[2]!;
    let c3 = acc[3]!;
    let c4 = acc[4]!;
    let c5 = acc[5]!;
    let c6 = acc[6]!;
    let c7 = acc[7]!;
    let c8 = acc[8]!;
    let c9 = acc[9]!;
    let c10 = acc[10]!;
    let c11 = acc[11]!;
    let c12 = acc[12]!;
    let c13 = acc[13]!;
    let c14 = acc[14]!;
    let c15 = acc[15]!;
    for (let j = 0; j < n; j++) {
      const slot = base + j;
      const v = slot * 32;
      const e = sc[j]!;
      c0 += e * V[v]!;
      c1 += e * V[v + 1]!;
      c2 += e * V[v + 2]!;
      c3 += e * V[v + 3]!;
      c4 += e * V[v + 4]!;
      c5 += e * V[v + 5]!;
      c6 += e * V[v + 6]!;
      c7 += e * V[v + 7]!;
      c8 += e * V[v + 8]!;
      c9 += e * V[v + 9]!;
      c10 += e * V[v + 10]!;
      c11 += e * V[v + 11]!;
      c12 += e * V[v + 12]!;
      c13 += e * V[v + 13]!;
      c14 += e * V[v + 14]!;
      c15 += e * V[v + 15]!;
    }
    acc[0] = c0;
    acc[1] = c1;
    acc[2] = c2;
    acc[3] = c3;
    acc[4] = c4;
    acc[5] = c5;
    acc[6] = c6;
    acc[7] = c7;
    acc[8] = c8;
    acc[9] = c9;
    acc[10] = c10;
    acc[11] = c11;
    acc[12] = c12;
    acc[13] = c13;
    acc[14] = c14;
    acc[15] = c15;
  }
  {
    let c16 = acc[16]!;
    let c17 = acc[17]!;
    let c18 = acc[18]!;
    let c19 = acc[19]!;
    let c20 = acc[20]!;
    let c21 = acc[21]!;
    let c22 = acc[22]!;
    let c23 = acc[23]!;
    let c24 = acc[24]!;
    let c25 = acc[25]!;
    let c26 = acc[26]!;
    let c27 = acc[27]!;
    let c28 = acc[28]!;
    let c29 = acc[29]!;
    let c30 = acc[30]!;
    let c31 = acc[31]!;
    for (let j = 0; j < n; j++) {
      const slot = base + j;
      const v = slot * 32;
      const f = sc[block + j]!;
      c16 += f * V[v + 16]!;
      c17 += f * V[v + 17]!;
      c18 += f * V[v + 18]!;
      c19 += f * V[v + 19]!;
      c20 += f * V[v + 20]!;
      c21 += f * V[v + 21]!;
      c22 += f * V[v + 22]!;
      c23 += f * V[v + 23]!;
      c24 += f * V[v + 24]!;
      c25 += f * V[v + 25]!;
      c26 += f * V[v + 26]!;
      c27 += f * V[v + 27]!;
      c28 += f * V[v + 28]!;
      c29 += f * V[v + 29]!;
      c30 += f * V[v + 30]!;
      c31 += f * V[v + 31]!;
    }
    acc[16] = c16;
    acc[17] = c17;
    acc[18] = c18;
    acc[19] = c19;
    acc[20] = c20;
    acc[21] = c21;
    acc[22] = c22;
    acc[23] = c23;
    acc[24] = c24;
    acc[25] = c25;
    acc[26] = c26;
    acc[27] = c27;
    acc[28] = c28;
    acc[29] = c29;
    acc[30] = c30;
    acc[31] = c31;
  }
  z[0] = z0;
  z[1] = z1;
  zv[0] = zv0;
  zv[1] = zv1;
}
