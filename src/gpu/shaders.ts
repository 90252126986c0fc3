/**
 * WGSL for the decode attention's O(context) pass.
 *
 * The model's attention weight depends only on a slot's key token (attention.ts), so a decode over a
 * context is fully described by how many slots fall in each (key, value, writer-class) group, plus
 * each group's first and latest slot. `countGroups` walks the block table (one invocation per
 * logical slot) and builds that table with integer atomics, which are exact and order-independent;
 * `compact` turns the touched groups into a dense list (and resets them, so the 36·V² byte table is
 * never cleared in full). The per-step softmax over the few groups runs on the CPU: see
 * webgpuBackend.ts for why.
 */

export const WORKGROUP_SIZE = 256;

/** Uniform layout shared by both entry points; the host writes it as 8 × u32. */
export const PARAMS_BYTES = 32;

export const DECODE_WGSL = /* wgsl */ `
struct Params {
  seqLen: u32,
  pageSize: u32,
  vocab: u32,
  tenant: i32,
  requestCount: u32,
  valuesBase: u32,      // word index where the packed value tokens start in kv
  countRowThreads: u32, // invocations per row of the 2-D count dispatch
  compactRowThreads: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> blockTable: array<u32>;
// Key tokens then value tokens, two u16 per word (WGSL has no 16-bit storage type).
@group(0) @binding(2) var<storage, read> kv: array<u32>;
@group(0) @binding(3) var<storage, read> writers: array<i32>;
@group(0) @binding(4) var<storage, read> requestTenant: array<i32>;
// Per group g: [3g] slot count, [3g+1] ~first logical slot (bitwise-not, so that all-zero memory
// means "untouched" and atomicMax finds the minimum), [3g+2] latest logical slot.
@group(0) @binding(5) var<storage, read_write> stats: array<atomic<u32>>;
// [0] number of touched groups, then their ids in arbitrary order.
@group(0) @binding(6) var<storage, read_write> touched: array<atomic<u32>>;
// Per touched group: id, count, ~first, latest.
@group(0) @binding(7) var<storage, read_write> entries: array<u32>;

fn halfword(word: u32, slot: u32) -> u32 {
  return (word >> ((slot & 1u) * 16u)) & 0xffffu;
}

@compute @workgroup_size(${WORKGROUP_SIZE})
fn countGroups(@builtin(global_invocation_id) id: vec3<u32>) {
  let logical = id.x + id.y * params.countRowThreads;
  if (logical >= params.seqLen) {
    return;
  }
  let page = blockTable[logical / params.pageSize];
  let slot = page * params.pageSize + logical % params.pageSize;
  let key = halfword(kv[slot >> 1u], slot);
  let value = halfword(kv[params.valuesBase + (slot >> 1u)], slot);
  let writer = writers[slot];
  // Same rule as the engine: −1 is empty memory; a writer outside the table counts as foreign.
  var cls = 2u;
  if (writer >= 0) {
    cls = 1u;
    if (u32(writer) < params.requestCount && requestTenant[u32(writer)] == params.tenant) {
      cls = 0u;
    }
  }
  let g = (key * params.vocab + value) * 3u + cls;
  let before = atomicAdd(&stats[g * 3u], 1u);
  if (before == 0u) {
    // Exactly one invocation sees the group's first increment; distinct groups ≤ seqLen, so the
    // list cannot overflow its min(seqLen, groups) capacity.
    let i = atomicAdd(&touched[0], 1u);
    atomicStore(&touched[1u + i], g);
  }
  atomicMax(&stats[g * 3u + 1u], ~logical);
  atomicMax(&stats[g * 3u + 2u], logical);
}

@compute @workgroup_size(${WORKGROUP_SIZE})
fn compact(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x + id.y * params.compactRowThreads;
  if (i >= atomicLoad(&touched[0])) {
    return;
  }
  let g = atomicLoad(&touched[1u + i]);
  entries[i * 4u] = g;
  entries[i * 4u + 1u] = atomicExchange(&stats[g * 3u], 0u);
  entries[i * 4u + 2u] = atomicExchange(&stats[g * 3u + 1u], 0u);
  entries[i * 4u + 3u] = atomicExchange(&stats[g * 3u + 2u], 0u);
}
`;

/** Test-only (`?gpu-fault=shader`): the real source with one misspelt builtin, so compilation fails. */
export const BROKEN_DECODE_WGSL = DECODE_WGSL.replace('atomicAdd(&stats', 'atomicAddd(&stats');
