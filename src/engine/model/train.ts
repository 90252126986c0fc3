/**
 * Training the small transformer (transformer.ts), by hand: forward and backward passes written out
 * for this one architecture, in float64, with Adam. No autodiff library: the registry's that run on
 * Node offline are either a native build that downloads a binary at install (refused here) or a
 * large pure-JS runtime whose kernels' summation order is not a contract, so the committed weights'
 * hash would hang on its version. `gradientCheck` holds the backward pass to finite differences.
 *
 * Data: windows of tenants' documents as the engine writes them (vocab.ts `tenantCorpus`), for every
 * tenant name, each time with a random topic, canary and seed, so that a tenant's name and canary
 * can only be known from the context: the model has to learn to copy them (an induction circuit),
 * and the grammar of the seven record templates. Deterministic: one seeded PRNG, fixed loop order.
 */
import { Prng } from '../core/prng.ts';
import { TENANT_NAMES, TOPICS, Vocabulary, tenantCorpus, type TenantProfile } from '../core/vocab.ts';
import { RMS_EPS, parameterCount, parameterLayout, weightsFromFlat, type TransformerShape, type TransformerWeights } from './transformer.ts';

/** The model's vocabulary: every built-in word, every tenant name and canary, and the unknown word. */
export const UNKNOWN_WORD = '⟨unk⟩';

export function modelVocabulary(): Vocabulary {
  return new Vocabulary(TENANT_NAMES, [UNKNOWN_WORD]);
}

export interface TrainOptions {
  shape: Omit<TransformerShape, 'vocab'>;
  seed: string;
  steps: number;
  /** Windows per step. */
  batch: number;
  /** Tokens per window (the model predicts each next one). */
  window: number;
  learningRate: number;
  warmupSteps: number;
  /** Called every `logEvery` steps with the mean loss over those steps. */
  onLog?: (step: number, loss: number) => void;
  logEvery?: number;
}

export interface TrainResult {
  weights: TransformerWeights;
  /** [step, mean training loss over the steps since the last point]. */
  curve: [number, number][];
  heldOutLoss: number;
  heldOutAccuracy: number;
}

/** A random window of `length` tokens of a random tenant's document. */
export function sampleWindow(rng: Prng, vocab: Vocabulary, length: number, seed: string): Uint16Array {
  const name = rng.pick(TENANT_NAMES);
  const profile: TenantProfile = { name, topic: rng.pick(TOPICS), canary: rng.next() < 0.85, canaryAtMentions: rng.next() < 0.15 };
  const doc = tenantCorpus(vocab, profile, `${seed}:${rng.int(1 << 30)}`, length + 48);
  const at = rng.int(48);
  return doc.slice(at, at + length);
}

function gaussian(rng: Prng): number {
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

/** Initial parameters: scaled Gaussians, unit norm gains, zero biases. */
export function initialParameters(shape: TransformerShape, seed: string): Float64Array {
  const rng = new Prng(`${seed}:init`);
  const p = new Float64Array(parameterCount(shape));
  let at = 0;
  const residualScale = 1 / Math.sqrt(2 * shape.layers);
  for (const t of parameterLayout(shape)) {
    const kind = t.name.split('.').pop()!;
    let std = 0;
    if (kind === 'embed') std = 0.5;
    else if (kind === 'wq' || kind === 'wk' || kind === 'wv') std = 1 / Math.sqrt(shape.dim);
    else if (kind === 'wo') std = residualScale / Math.sqrt(shape.dim);
    else if (kind === 'w1') std = 1 / Math.sqrt(shape.dim);
    else if (kind === 'w2') std = residualScale / Math.sqrt(shape.hidden);
    else if (kind === 'unembed') std = 1 / Math.sqrt(shape.dim);
    for (let i = 0; i < t.size; i++) p[at + i] = kind.startsWith('norm') ? 1 : std * gaussian(rng);
    at += t.size;
  }
  return p;
}

interface Offsets {
  embed: number;
  layers: { norm1: number; wq: number; wk: number; wv: number; wo: number; norm2: number; w1: number; b1: number; w2: number }[];
  normOut: number;
  unembed: number;
}

function offsets(shape: TransformerShape): Offsets {
  const at = new Map<string, number>();
  let o = 0;
  for (const t of parameterLayout(shape)) {
    at.set(t.name, o);
    o += t.size;
  }
  const g = (n: string) => at.get(n)!;
  return {
    embed: g('embed'),
    layers: Array.from({ length: shape.layers }, (_, l) => ({
      norm1: g(`l${l}.norm1`), wq: g(`l${l}.wq`), wk: g(`l${l}.wk`), wv: g(`l${l}.wv`), wo: g(`l${l}.wo`),
      norm2: g(`l${l}.norm2`), w1: g(`l${l}.w1`), b1: g(`l${l}.b1`), w2: g(`l${l}.w2`),
    })),
    normOut: g('normOut'),
    unembed: g('unembed'),
  };
}

/** Y (T × m) = X (T × n) · P[w …] (n × m). */
function matmul(X: Float64Array, P: Float64Array, w: number, Y: Float64Array, T: number, n: number, m: number): void {
  Y.fill(0, 0, T * m);
  for (let t = 0; t < T; t++) {
    const xo = t * n;
    const yo = t * m;
    for (let i = 0; i < n; i++) {
      const x = X[xo + i]!;
      const wo = w + i * m;
      for (let j = 0; j < m; j++) Y[yo + j]! += x * P[wo + j]!;
    }
  }
}

/** G[w …] += Xᵀ · dY, and dX (+)= dY · Wᵀ (dX overwritten unless `accumulate`). */
function matmulBack(X: Float64Array, dY: Float64Array, P: Float64Array, G: Float64Array, w: number, dX: Float64Array | null, T: number, n: number, m: number, accumulate = false): void {
  for (let t = 0; t < T; t++) {
    const xo = t * n;
    const yo = t * m;
    for (let i = 0; i < n; i++) {
      const x = X[xo + i]!;
      const wo = w + i * m;
      let s = 0;
      for (let j = 0; j < m; j++) {
        const dy = dY[yo + j]!;
        G[wo + j]! += x * dy;
        s += dy * P[wo + j]!;
      }
      if (dX) dX[xo + i] = accumulate ? dX[xo + i]! + s : s;
    }
  }
}

function rmsForward(X: Float64Array, P: Float64Array, g: number, Y: Float64Array, R: Float64Array, T: number, d: number): void {
  for (let t = 0; t < T; t++) {
    let ss = 0;
    for (let i = 0; i < d; i++) ss += X[t * d + i]! * X[t * d + i]!;
    const r = 1 / Math.sqrt(ss / d + RMS_EPS);
    R[t] = r;
    for (let i = 0; i < d; i++) Y[t * d + i] = X[t * d + i]! * r * P[g + i]!;
  }
}

/** dX += RMS-norm backward of dY. */
function rmsBackward(X: Float64Array, dY: Float64Array, R: Float64Array, P: Float64Array, G: Float64Array, g: number, dX: Float64Array, T: number, d: number): void {
  for (let t = 0; t < T; t++) {
    const r = R[t]!;
    let dot = 0;
    for (let i = 0; i < d; i++) {
      const x = X[t * d + i]!;
      const dy = dY[t * d + i]!;
      G[g + i]! += dy * x * r;
      dot += dy * P[g + i]! * x;
    }
    const c = (r * r * r * dot) / d;
    for (let i = 0; i < d; i++) dX[t * d + i]! += r * P[g + i]! * dY[t * d + i]! - X[t * d + i]! * c;
  }
}

function rope(X: Float64Array, T: number, shape: TransformerShape, freqs: Float64Array, sign: number): void {
  const dh = shape.dim / shape.heads;
  for (let t = 0; t < T; t++) {
    for (let i = 0; i < dh / 2; i++) {
      const angle = sign * t * freqs[i]!;
      const c = Math.cos(angle);
      const s = Math.sin(angle);
      for (let h = 0; h < shape.heads; h++) {
        const o = t * shape.dim + h * dh + 2 * i;
        const a = X[o]!;
        const b = X[o + 1]!;
        X[o] = a * c - b * s;
        X[o + 1] = a * s + b * c;
      }
    }
  }
}

/** Forward and backward over windows of one length, with every activation kept for the backward pass. */
class Trainer {
  readonly o: Offsets;
  readonly freqs: Float64Array;
  private readonly hIn: Float64Array[];
  private readonly r1: Float64Array[];
  private readonly a1: Float64Array[];
  private readonly q: Float64Array[];
  private readonly k: Float64Array[];
  private readonly v: Float64Array[];
  private readonly att: Float64Array[];
  private readonly ao: Float64Array[];
  private readonly h1: Float64Array[];
  private readonly r2: Float64Array[];
  private readonly a2: Float64Array[];
  private readonly z: Float64Array[];
  private readonly relu: Float64Array[];
  private readonly hF: Float64Array;
  private readonly rF: Float64Array;
  private readonly f: Float64Array;
  private readonly logits: Float64Array;
  // Backward scratch.
  private readonly dh: Float64Array;
  private readonly dA: Float64Array;
  private readonly dQ: Float64Array;
  private readonly dK: Float64Array;
  private readonly dV: Float64Array;
  private readonly dO: Float64Array;
  private readonly dZ: Float64Array;
  private readonly dF: Float64Array;

  constructor(readonly shape: TransformerShape, readonly T: number) {
    const { dim: d, layers: Ls, heads: H, hidden: m, vocab: V } = shape;
    this.o = offsets(shape);
    this.freqs = new Float64Array(d / H / 2);
    for (let i = 0; i < d / H / 2; i++) this.freqs[i] = Math.pow(shape.ropeBase, (-2 * i) / (d / H));
    const per = (n: number) => Array.from({ length: Ls }, () => new Float64Array(n));
    this.hIn = per(T * d);
    this.r1 = per(T);
    this.a1 = per(T * d);
    this.q = per(T * d);
    this.k = per(T * d);
    this.v = per(T * d);
    this.att = per(H * T * T);
    this.ao = per(T * d);
    this.h1 = per(T * d);
    this.r2 = per(T);
    this.a2 = per(T * d);
    this.z = per(T * m);
    this.relu = per(T * m);
    this.hF = new Float64Array(T * d);
    this.rF = new Float64Array(T);
    this.f = new Float64Array(T * d);
    this.logits = new Float64Array(T * V);
    this.dh = new Float64Array(T * d);
    this.dA = new Float64Array(T * d);
    this.dQ = new Float64Array(T * d);
    this.dK = new Float64Array(T * d);
    this.dV = new Float64Array(T * d);
    this.dO = new Float64Array(T * d);
    this.dZ = new Float64Array(T * m);
    this.dF = new Float64Array(T * d);
  }

  /**
   * Loss (summed over positions) of predicting tokens[1 … T] from tokens[0 … T − 1]; with G,
   * adds ∂(loss · lossScale)/∂P to G. Returns the loss sum and the number of correct greedy guesses.
   */
  run(P: Float64Array, tokens: ArrayLike<number>, G: Float64Array | null, lossScale: number): { loss: number; correct: number } {
    const { dim: d, heads: H, hidden: m, vocab: V } = this.shape;
    const T = this.T;
    const dh = d / H;
    const scale = 1 / Math.sqrt(dh);
    const o = this.o;
    let h = this.hIn[0]!;
    for (let t = 0; t < T; t++) for (let i = 0; i < d; i++) h[t * d + i] = P[o.embed + tokens[t]! * d + i]!;
    for (let l = 0; l < this.shape.layers; l++) {
      const L = o.layers[l]!;
      const hIn = this.hIn[l]!;
      if (h !== hIn) hIn.set(h);
      const a1 = this.a1[l]!;
      rmsForward(hIn, P, L.norm1, a1, this.r1[l]!, T, d);
      const q = this.q[l]!;
      const k = this.k[l]!;
      const v = this.v[l]!;
      matmul(a1, P, L.wq, q, T, d, d);
      matmul(a1, P, L.wk, k, T, d, d);
      matmul(a1, P, L.wv, v, T, d, d);
      rope(q, T, this.shape, this.freqs, 1);
      rope(k, T, this.shape, this.freqs, 1);
      const att = this.att[l]!;
      const ao = this.ao[l]!;
      ao.fill(0);
      for (let hh = 0; hh < H; hh++) {
        const off = hh * dh;
        for (let t = 0; t < T; t++) {
          const row = (hh * T + t) * T;
          let max = -Infinity;
          for (let u = 0; u <= t; u++) {
            let s = 0;
            for (let e = 0; e < dh; e++) s += q[t * d + off + e]! * k[u * d + off + e]!;
            s *= scale;
            att[row + u] = s;
            if (s > max) max = s;
          }
          let zsum = 0;
          for (let u = 0; u <= t; u++) {
            const e = Math.exp(att[row + u]! - max);
            att[row + u] = e;
            zsum += e;
          }
          for (let u = 0; u <= t; u++) {
            const p = att[row + u]! / zsum;
            att[row + u] = p;
            for (let e = 0; e < dh; e++) ao[t * d + off + e]! += p * v[u * d + off + e]!;
          }
        }
      }
      const h1 = this.h1[l]!;
      matmul(ao, P, L.wo, h1, T, d, d);
      for (let i = 0; i < T * d; i++) h1[i]! += hIn[i]!;
      const a2 = this.a2[l]!;
      rmsForward(h1, P, L.norm2, a2, this.r2[l]!, T, d);
      const z = this.z[l]!;
      const relu = this.relu[l]!;
      matmul(a2, P, L.w1, z, T, d, m);
      for (let t = 0; t < T; t++) {
        for (let j = 0; j < m; j++) {
          const x = z[t * m + j]! + P[L.b1 + j]!;
          z[t * m + j] = x;
          relu[t * m + j] = x > 0 ? x : 0;
        }
      }
      const out = l + 1 < this.shape.layers ? this.hIn[l + 1]! : this.hF;
      matmul(relu, P, L.w2, out, T, m, d);
      for (let i = 0; i < T * d; i++) out[i]! += h1[i]!;
      h = out;
    }
    rmsForward(this.hF, P, o.normOut, this.f, this.rF, T, d);
    matmul(this.f, P, o.unembed, this.logits, T, d, V);
    let loss = 0;
    let correct = 0;
    const lg = this.logits;
    for (let t = 0; t < T - 1; t++) {
      const target = tokens[t + 1]!;
      let max = -Infinity;
      let best = 0;
      for (let j = 0; j < V; j++) {
        if (lg[t * V + j]! > max) {
          max = lg[t * V + j]!;
          best = j;
        }
      }
      if (best === target) correct++;
      let zsum = 0;
      for (let j = 0; j < V; j++) zsum += Math.exp(lg[t * V + j]! - max);
      loss += Math.log(zsum) + max - lg[t * V + target]!;
      if (G) {
        for (let j = 0; j < V; j++) lg[t * V + j] = (Math.exp(lg[t * V + j]! - max) / zsum) * lossScale;
        lg[t * V + target]! -= lossScale;
      }
    }
    if (!G) return { loss, correct };
    // The last position has no target: no gradient.
    lg.fill(0, (T - 1) * V, T * V);
    this.backward(P, tokens, G);
    return { loss, correct };
  }

  private backward(P: Float64Array, tokens: ArrayLike<number>, G: Float64Array): void {
    const { dim: d, heads: H, hidden: m, vocab: V } = this.shape;
    const T = this.T;
    const dh = d / H;
    const scale = 1 / Math.sqrt(dh);
    const o = this.o;
    const dF = this.dF;
    matmulBack(this.f, this.logits, P, G, o.unembed, dF, T, d, V);
    const dH = this.dh;
    dH.fill(0);
    rmsBackward(this.hF, dF, this.rF, P, G, o.normOut, dH, T, d);
    for (let l = this.shape.layers - 1; l >= 0; l--) {
      const L = o.layers[l]!;
      // MLP: out = h1 + relu(a2 W1 + b1) W2.
      const relu = this.relu[l]!;
      const z = this.z[l]!;
      const dZ = this.dZ;
      matmulBack(relu, dH, P, G, L.w2, dZ, T, m, d);
      for (let i = 0; i < T * m; i++) {
        if (z[i]! <= 0) dZ[i] = 0;
      }
      for (let t = 0; t < T; t++) for (let j = 0; j < m; j++) G[L.b1 + j]! += dZ[t * m + j]!;
      const dA = this.dA;
      matmulBack(this.a2[l]!, dZ, P, G, L.w1, dA, T, d, m);
      // dH now holds ∂/∂h1 (the residual) plus the norm's path.
      rmsBackward(this.h1[l]!, dA, this.r2[l]!, P, G, L.norm2, dH, T, d);
      // Attention: h1 = hIn + ao Wo.
      const dO = this.dO;
      matmulBack(this.ao[l]!, dH, P, G, L.wo, dO, T, d, d);
      const q = this.q[l]!;
      const k = this.k[l]!;
      const v = this.v[l]!;
      const att = this.att[l]!;
      const dQ = this.dQ;
      const dK = this.dK;
      const dV = this.dV;
      dQ.fill(0);
      dK.fill(0);
      dV.fill(0);
      for (let hh = 0; hh < H; hh++) {
        const off = hh * dh;
        for (let t = 0; t < T; t++) {
          const row = (hh * T + t) * T;
          let sum = 0;
          // dP into a scratch row reused from dZ's memory would alias; keep a small local pass instead.
          for (let u = 0; u <= t; u++) {
            let dp = 0;
            for (let e = 0; e < dh; e++) dp += dO[t * d + off + e]! * v[u * d + off + e]!;
            const p = att[row + u]!;
            for (let e = 0; e < dh; e++) dV[u * d + off + e]! += p * dO[t * d + off + e]!;
            sum += p * dp;
            this.dpRow[u] = dp;
          }
          for (let u = 0; u <= t; u++) {
            const ds = att[row + u]! * (this.dpRow[u]! - sum) * scale;
            for (let e = 0; e < dh; e++) {
              dQ[t * d + off + e]! += ds * k[u * d + off + e]!;
              dK[u * d + off + e]! += ds * q[t * d + off + e]!;
            }
          }
        }
      }
      rope(dQ, T, this.shape, this.freqs, -1);
      rope(dK, T, this.shape, this.freqs, -1);
      const a1 = this.a1[l]!;
      matmulBack(a1, dQ, P, G, L.wq, dA, T, d, d);
      matmulBack(a1, dK, P, G, L.wk, dA, T, d, d, true);
      matmulBack(a1, dV, P, G, L.wv, dA, T, d, d, true);
      rmsBackward(this.hIn[l]!, dA, this.r1[l]!, P, G, L.norm1, dH, T, d);
    }
    for (let t = 0; t < T; t++) for (let i = 0; i < d; i++) G[o.embed + tokens[t]! * d + i]! += dH[t * d + i]!;
  }

  private dpRowStore = new Float64Array(0);
  private get dpRow(): Float64Array {
    if (this.dpRowStore.length < this.T) this.dpRowStore = new Float64Array(this.T);
    return this.dpRowStore;
  }
}

/** Mean loss over a window (no gradient), for tests and the gradient check. */
export function windowLoss(shape: TransformerShape, P: Float64Array, tokens: ArrayLike<number>): number {
  return new Trainer(shape, tokens.length).run(P, tokens, null, 1).loss / (tokens.length - 1);
}

/**
 * Largest relative difference between the analytic gradient and central finite differences, over
 * `samples` parameters drawn from every tensor.
 */
export function gradientCheck(shape: TransformerShape, P: Float64Array, tokens: ArrayLike<number>, samples: number, seed: string): number {
  const trainer = new Trainer(shape, tokens.length);
  const G = new Float64Array(P.length);
  trainer.run(P, tokens, G, 1 / (tokens.length - 1));
  const rng = new Prng(seed);
  let worst = 0;
  const eps = 1e-5;
  let at = 0;
  const layout = parameterLayout(shape);
  const perTensor = Math.max(1, Math.ceil(samples / layout.length));
  for (const t of layout) {
    for (let s = 0; s < perTensor; s++) {
      const i = at + rng.int(t.size);
      const keep = P[i]!;
      P[i] = keep + eps;
      const up = windowLoss(shape, P, tokens);
      P[i] = keep - eps;
      const down = windowLoss(shape, P, tokens);
      P[i] = keep;
      const numeric = (up - down) / (2 * eps);
      const analytic = G[i]!;
      const rel = Math.abs(numeric - analytic) / Math.max(1e-6, Math.abs(numeric) + Math.abs(analytic));
      if (rel > worst) worst = rel;
    }
    at += t.size;
  }
  return worst;
}

/** Trains from scratch; deterministic for the same options on the same JS engine. */
export function train(opts: TrainOptions): TrainResult {
  const vocab = modelVocabulary();
  const shape: TransformerShape = { ...opts.shape, vocab: vocab.size };
  const P = initialParameters(shape, opts.seed);
  const G = new Float64Array(P.length);
  const M = new Float64Array(P.length);
  const S = new Float64Array(P.length);
  const trainer = new Trainer(shape, opts.window);
  const rng = new Prng(`${opts.seed}:data`);
  const beta1 = 0.9;
  const beta2 = 0.98;
  const curve: [number, number][] = [];
  const logEvery = opts.logEvery ?? 50;
  let running = 0;
  let runningCount = 0;
  for (let step = 1; step <= opts.steps; step++) {
    G.fill(0);
    const lossScale = 1 / (opts.batch * (opts.window - 1));
    let loss = 0;
    for (let b = 0; b < opts.batch; b++) loss += trainer.run(P, sampleWindow(rng, vocab, opts.window, opts.seed), G, lossScale).loss;
    running += loss / (opts.batch * (opts.window - 1));
    runningCount++;
    let norm = 0;
    for (let i = 0; i < G.length; i++) norm += G[i]! * G[i]!;
    norm = Math.sqrt(norm);
    const clip = norm > 1 ? 1 / norm : 1;
    const warm = Math.min(1, step / opts.warmupSteps);
    const decay = 0.5 * (1 + Math.cos((Math.PI * step) / opts.steps));
    const lr = opts.learningRate * warm * (0.1 + 0.9 * decay);
    const c1 = 1 - Math.pow(beta1, step);
    const c2 = 1 - Math.pow(beta2, step);
    for (let i = 0; i < P.length; i++) {
      const g = G[i]! * clip;
      M[i] = beta1 * M[i]! + (1 - beta1) * g;
      S[i] = beta2 * S[i]! + (1 - beta2) * g * g;
      P[i]! -= (lr * (M[i]! / c1)) / (Math.sqrt(S[i]! / c2) + 1e-8);
    }
    if (step % logEvery === 0 || step === opts.steps) {
      const mean = running / runningCount;
      curve.push([step, mean]);
      opts.onLog?.(step, mean);
      running = 0;
      runningCount = 0;
    }
  }
  // Held-out windows from a seed the training data never used.
  const evalRng = new Prng(`${opts.seed}:held-out`);
  let loss = 0;
  let correct = 0;
  let count = 0;
  for (let i = 0; i < 16; i++) {
    const r = trainer.run(P, sampleWindow(evalRng, vocab, opts.window, `${opts.seed}:held-out`), null, 1);
    loss += r.loss;
    correct += r.correct;
    count += opts.window - 1;
  }
  return { weights: weightsFromFlat(shape, vocab.words, P), curve, heldOutLoss: loss / count, heldOutAccuracy: correct / count };
}
