/**
 * WGSL for one decode step of the trained transformer (src/engine/model/transformer.ts), generated
 * for its shape: the weights are one float32 array whose tensor offsets are compiled in.
 *
 * A step is ten dispatches in one submission (two layers):
 *   embed                  h = embed[token]
 *   per layer: qkv         one workgroup: RMS norm, q, k, v (matrix × vector), rotary on q and k at the
 *                          step's position (cos and sin from the host), k and v appended to the tail
 *              attnPartial one workgroup per (chunk of 1,024 slots, head): gathers each slot through
 *                          the block table (page = blockTable[i / pageSize]), scores q·k, and keeps
 *                          an online softmax (running max, sum, weighted value sum), reduced in the group
 *              attnCombine per head: merges the chunks' partial softmaxes into the head's output
 *              outMlp      one workgroup: h += o·Wo; h += W2·relu(W1·norm(h) + b1)
 *   logits                 final norm and the output projection
 * Float32 throughout; the JS engine sums in float64, hence a tolerance, not bit equality.
 */
import { parameterLayout, type TransformerShape } from '../engine/model/transformer.ts';

/** Slots one attnPartial workgroup covers. */
export const ATTENTION_CHUNK = 1024;
export const ATTENTION_THREADS = 128;
/** Uniform: seqLen, pageSize, position, tail index, token, chunks, layer, capacity of the tail. */
export const MODEL_PARAMS_BYTES = 32;

/**
 * Floats of the state buffer: h, a, q, o (dim each), the MLP's hidden layer, the logits, and the
 * step's rotary cos and sin per pair (head width of them, written by the host).
 */
export function stateLayout(shape: TransformerShape): { h: number; a: number; q: number; o: number; z: number; logits: number; rope: number; size: number } {
  const d = shape.dim;
  const logits = 4 * d + shape.hidden;
  const rope = logits + shape.vocab;
  return { h: 0, a: d, q: 2 * d, o: 3 * d, z: 4 * d, logits, rope, size: rope + d / shape.heads };
}

export function modelWgsl(shape: TransformerShape, slotCount: number): string {
  const offsets = new Map<string, number>();
  let at = 0;
  for (const t of parameterLayout(shape)) {
    offsets.set(t.name, at);
    at += t.size;
  }
  const D = shape.dim;
  const H = shape.heads;
  const DH = D / H;
  const HID = shape.hidden;
  const V = shape.vocab;
  const L = shape.layers;
  const s = stateLayout(shape);
  // Per-layer tensor offsets as WGSL arrays indexed by the layer in the uniform.
  const perLayer = (name: string) => `array<u32, ${L}>(${Array.from({ length: L }, (_, l) => `${offsets.get(`l${l}.${name}`)}u`).join(', ')})`;
  return /* wgsl */ `
const D: u32 = ${D}u;
const H: u32 = ${H}u;
const DH: u32 = ${DH}u;
const HID: u32 = ${HID}u;
const V: u32 = ${V}u;
const SLOTS: u32 = ${slotCount}u;
const CHUNK: u32 = ${ATTENTION_CHUNK}u;
const THREADS: u32 = ${ATTENTION_THREADS}u;
const EMBED: u32 = ${offsets.get('embed')}u;
const NORM_OUT: u32 = ${offsets.get('normOut')}u;
const UNEMBED: u32 = ${offsets.get('unembed')}u;
const S_H: u32 = ${s.h}u;
const S_A: u32 = ${s.a}u;
const S_Q: u32 = ${s.q}u;
const S_O: u32 = ${s.o}u;
const S_Z: u32 = ${s.z}u;
const S_LOGITS: u32 = ${s.logits}u;
const S_ROPE: u32 = ${s.rope}u;
const EPS: f32 = 1e-5;
const NEG: f32 = -3.0e38;

struct Params {
  seqLen: u32,
  pageSize: u32,
  position: u32,
  tail: u32,
  token: u32,
  chunks: u32,
  layer: u32,
  capacity: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> weights: array<f32>;
@group(0) @binding(2) var<storage, read> blockTable: array<u32>;
// Layer-major: [layer][slot][D]. The pool's keys (rotated at their writers' positions) and values.
@group(0) @binding(3) var<storage, read> kCache: array<f32>;
@group(0) @binding(4) var<storage, read> vCache: array<f32>;
// The request's own generated tokens' keys and values: [layer][tail index][D].
@group(0) @binding(5) var<storage, read_write> tailK: array<f32>;
@group(0) @binding(6) var<storage, read_write> tailV: array<f32>;
@group(0) @binding(7) var<storage, read_write> state: array<f32>;
// Per (head, chunk): running max, sum of weights, then DH weighted value sums.
@group(0) @binding(8) var<storage, read_write> partials: array<f32>;

fn wq_at(l: u32) -> u32 { return ${perLayer('wq')}[l]; }
fn wk_at(l: u32) -> u32 { return ${perLayer('wk')}[l]; }
fn wv_at(l: u32) -> u32 { return ${perLayer('wv')}[l]; }
fn wo_at(l: u32) -> u32 { return ${perLayer('wo')}[l]; }
fn norm1_at(l: u32) -> u32 { return ${perLayer('norm1')}[l]; }
fn norm2_at(l: u32) -> u32 { return ${perLayer('norm2')}[l]; }
fn w1_at(l: u32) -> u32 { return ${perLayer('w1')}[l]; }
fn b1_at(l: u32) -> u32 { return ${perLayer('b1')}[l]; }
fn w2_at(l: u32) -> u32 { return ${perLayer('w2')}[l]; }

var<workgroup> shared_sum: array<f32, 256>;
var<workgroup> shared_m: array<f32, ${ATTENTION_THREADS}>;
var<workgroup> shared_l: array<f32, ${ATTENTION_THREADS}>;
var<workgroup> shared_acc: array<f32, ${ATTENTION_THREADS * DH}>;
var<workgroup> shared_vec: array<f32, ${Math.max(3 * D, HID)}>;

@compute @workgroup_size(64)
fn embed(@builtin(global_invocation_id) id: vec3<u32>) {
  if (id.x < D) {
    state[S_H + id.x] = weights[EMBED + params.token * D + id.x];
  }
}

/** RMS norm of state[S_H ..] with gain at g, into state[S_A ..]; every thread of the group calls it. */
fn normInto(g: u32, tid: u32, threads: u32) {
  var ss = 0.0;
  for (var i = tid; i < D; i += threads) {
    let x = state[S_H + i];
    ss += x * x;
  }
  shared_sum[tid] = ss;
  workgroupBarrier();
  for (var stride = threads / 2u; stride > 0u; stride /= 2u) {
    if (tid < stride) {
      shared_sum[tid] += shared_sum[tid + stride];
    }
    workgroupBarrier();
  }
  let r = inverseSqrt(shared_sum[0] / f32(D) + EPS);
  workgroupBarrier();
  for (var i = tid; i < D; i += threads) {
    state[S_A + i] = state[S_H + i] * r * weights[g + i];
  }
  workgroupBarrier();
}

@compute @workgroup_size(128)
fn qkv(@builtin(local_invocation_id) lid: vec3<u32>) {
  let tid = lid.x;
  let l = params.layer;
  normInto(norm1_at(l), tid, 128u);
  // q, k, v: 3·D outputs, each a dot product over the normed input.
  for (var j = tid; j < 3u * D; j += 128u) {
    let which = j / D;
    let col = j % D;
    var w0 = wq_at(l);
    if (which == 1u) { w0 = wk_at(l); }
    if (which == 2u) { w0 = wv_at(l); }
    var acc = 0.0;
    for (var i = 0u; i < D; i++) {
      acc += state[S_A + i] * weights[w0 + i * D + col];
    }
    shared_vec[j] = acc;
  }
  workgroupBarrier();
  // Rotary on q and k, per head and pair; k and v go to the tail.
  for (var j = tid; j < D / 2u; j += 128u) {
    let head = j / (DH / 2u);
    let pair = j % (DH / 2u);
    let o = head * DH + 2u * pair;
    // cos and sin of the step's angle, written by the host in float64 as the JS engine computes them:
    // a float32 angle of position × frequency loses the phase at long positions.
    let c = state[S_ROPE + 2u * pair];
    let s = state[S_ROPE + 2u * pair + 1u];
    let qa = shared_vec[o];
    let qb = shared_vec[o + 1u];
    state[S_Q + o] = qa * c - qb * s;
    state[S_Q + o + 1u] = qa * s + qb * c;
    let ka = shared_vec[D + o];
    let kb = shared_vec[D + o + 1u];
    let t = (l * params.capacity + params.tail) * D;
    tailK[t + o] = ka * c - kb * s;
    tailK[t + o + 1u] = ka * s + kb * c;
  }
  for (var j = tid; j < D; j += 128u) {
    tailV[(l * params.capacity + params.tail) * D + j] = shared_vec[2u * D + j];
  }
}

@compute @workgroup_size(${ATTENTION_THREADS})
fn attnPartial(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  let tid = lid.x;
  let chunk = wid.x;
  let head = wid.y;
  let l = params.layer;
  let total = params.seqLen + params.tail + 1u;
  let scale = inverseSqrt(f32(DH));
  var q: array<f32, ${DH}>;
  for (var e = 0u; e < DH; e++) {
    q[e] = state[S_Q + head * DH + e] * scale;
  }
  var m = NEG;
  var sum = 0.0;
  var acc: array<f32, ${DH}>;
  let start = chunk * CHUNK;
  let end = min(total, start + CHUNK);
  for (var i = start + tid; i < end; i += THREADS) {
    var kb: u32;
    var fromTail = false;
    if (i < params.seqLen) {
      // PagedAttention: the block table maps the logical slot to its page.
      let slot = blockTable[i / params.pageSize] * params.pageSize + i % params.pageSize;
      kb = (l * SLOTS + slot) * D + head * DH;
    } else {
      fromTail = true;
      kb = (l * params.capacity + (i - params.seqLen)) * D + head * DH;
    }
    var dot = 0.0;
    for (var e = 0u; e < DH; e++) {
      var k: f32;
      if (fromTail) { k = tailK[kb + e]; } else { k = kCache[kb + e]; }
      dot += q[e] * k;
    }
    let mNew = max(m, dot);
    let correction = exp(m - mNew);
    let w = exp(dot - mNew);
    sum = sum * correction + w;
    for (var e = 0u; e < DH; e++) {
      var v: f32;
      if (fromTail) { v = tailV[kb + e]; } else { v = vCache[kb + e]; }
      acc[e] = acc[e] * correction + w * v;
    }
    m = mNew;
  }
  shared_m[tid] = m;
  shared_l[tid] = sum;
  for (var e = 0u; e < DH; e++) {
    shared_acc[tid * DH + e] = acc[e];
  }
  workgroupBarrier();
  for (var stride = THREADS / 2u; stride > 0u; stride /= 2u) {
    if (tid < stride) {
      let m1 = shared_m[tid];
      let m2 = shared_m[tid + stride];
      let mm = max(m1, m2);
      let c1 = exp(m1 - mm);
      let c2 = exp(m2 - mm);
      shared_m[tid] = mm;
      shared_l[tid] = shared_l[tid] * c1 + shared_l[tid + stride] * c2;
      for (var e = 0u; e < DH; e++) {
        shared_acc[tid * DH + e] = shared_acc[tid * DH + e] * c1 + shared_acc[(tid + stride) * DH + e] * c2;
      }
    }
    workgroupBarrier();
  }
  if (tid == 0u) {
    let p = (head * params.chunks + chunk) * (DH + 2u);
    partials[p] = shared_m[0];
    partials[p + 1u] = shared_l[0];
    for (var e = 0u; e < DH; e++) {
      partials[p + 2u + e] = shared_acc[e];
    }
  }
}

@compute @workgroup_size(64)
fn attnCombine(@builtin(global_invocation_id) id: vec3<u32>) {
  if (id.x >= D) {
    return;
  }
  let head = id.x / DH;
  let e = id.x % DH;
  var mm = NEG;
  for (var c = 0u; c < params.chunks; c++) {
    mm = max(mm, partials[(head * params.chunks + c) * (DH + 2u)]);
  }
  var sum = 0.0;
  var acc = 0.0;
  for (var c = 0u; c < params.chunks; c++) {
    let p = (head * params.chunks + c) * (DH + 2u);
    let w = exp(partials[p] - mm);
    sum += partials[p + 1u] * w;
    acc += partials[p + 2u + e] * w;
  }
  state[S_O + id.x] = acc / sum;
}

@compute @workgroup_size(128)
fn outMlp(@builtin(local_invocation_id) lid: vec3<u32>) {
  let tid = lid.x;
  let l = params.layer;
  for (var j = tid; j < D; j += 128u) {
    var acc = 0.0;
    for (var i = 0u; i < D; i++) {
      acc += state[S_O + i] * weights[wo_at(l) + i * D + j];
    }
    shared_vec[j] = acc;
  }
  workgroupBarrier();
  for (var j = tid; j < D; j += 128u) {
    state[S_H + j] += shared_vec[j];
  }
  workgroupBarrier();
  normInto(norm2_at(l), tid, 128u);
  for (var j = tid; j < HID; j += 128u) {
    var acc = weights[b1_at(l) + j];
    for (var i = 0u; i < D; i++) {
      acc += state[S_A + i] * weights[w1_at(l) + i * HID + j];
    }
    state[S_Z + j] = max(acc, 0.0);
  }
  workgroupBarrier();
  for (var j = tid; j < D; j += 128u) {
    var acc = 0.0;
    for (var k = 0u; k < HID; k++) {
      acc += state[S_Z + k] * weights[w2_at(l) + k * D + j];
    }
    state[S_H + j] += acc;
  }
}

@compute @workgroup_size(64)
fn logits(@builtin(global_invocation_id) id: vec3<u32>, @builtin(local_invocation_id) lid: vec3<u32>) {
  // Every group recomputes the final norm (D values) into private memory: no race on the state.
  var ss = 0.0;
  for (var i = 0u; i < D; i++) {
    let x = state[S_H + i];
    ss += x * x;
  }
  let r = inverseSqrt(ss / f32(D) + EPS);
  if (id.x >= V) {
    return;
  }
  var acc = 0.0;
  for (var i = 0u; i < D; i++) {
    acc += state[S_H + i] * r * weights[NORM_OUT + i] * weights[UNEMBED + i * V + id.x];
  }
  state[S_LOGITS + id.x] = acc;
}
`;
}
