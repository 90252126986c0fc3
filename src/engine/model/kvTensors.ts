/**
 * The real model's KV in a pool's slots: per layer, each slot's key (rotated to the position of the
 * token that wrote it) and value, float32, slot-major, plus the norm of each head's slice of the
 * value (provenance weighs attention by it). A KvPool carries one of these when the transformer
 * decodes (kvPool.ts `tensors`): its writes, page copies and zeroing move these bytes with the
 * token ids. Freed pages keep their vectors; only a pool rule (a mitigation) zeroes them.
 */
export class PageTensors {
  readonly keys: Float32Array[];
  readonly values: Float32Array[];
  /** Per layer, slot-major: ‖value‖ of each head's slice. */
  readonly valueNorms: Float32Array[];

  constructor(
    readonly slotCount: number,
    readonly layers: number,
    readonly dim: number,
    readonly heads: number,
  ) {
    this.keys = Array.from({ length: layers }, () => new Float32Array(slotCount * dim));
    this.values = Array.from({ length: layers }, () => new Float32Array(slotCount * dim));
    this.valueNorms = Array.from({ length: layers }, () => new Float32Array(slotCount * heads));
  }

  writeSlot(layer: number, slot: number, key: ArrayLike<number>, value: ArrayLike<number>): void {
    const d = this.dim;
    const H = this.heads;
    const dh = d / H;
    this.keys[layer]!.set(key, slot * d);
    this.values[layer]!.set(value, slot * d);
    const norms = this.valueNorms[layer]!;
    const stored = this.values[layer]!;
    for (let h = 0; h < H; h++) {
      let ss = 0;
      for (let e = 0; e < dh; e++) {
        const x = stored[slot * d + h * dh + e]!;
        ss += x * x;
      }
      norms[slot * H + h] = Math.sqrt(ss);
    }
  }

  /** Zeroes `count` slots from `first`: keys, values and norms. */
  zeroSlots(first: number, count: number): void {
    const d = this.dim;
    for (let l = 0; l < this.layers; l++) {
      this.keys[l]!.fill(0, first * d, (first + count) * d);
      this.values[l]!.fill(0, first * d, (first + count) * d);
      this.valueNorms[l]!.fill(0, first * this.heads, (first + count) * this.heads);
    }
  }

  /** Copies `count` slots from `src` (slot `from`) to this store (slot `to`): bytes, as RDMA does. */
  copySlots(src: PageTensors, from: number, to: number, count: number): void {
    if (src.dim !== this.dim || src.layers !== this.layers || src.heads !== this.heads) throw new Error('page tensors differ in shape between prefill and decode');
    const d = this.dim;
    const H = this.heads;
    for (let l = 0; l < this.layers; l++) {
      this.keys[l]!.set(src.keys[l]!.subarray(from * d, (from + count) * d), to * d);
      this.values[l]!.set(src.values[l]!.subarray(from * d, (from + count) * d), to * d);
      this.valueNorms[l]!.set(src.valueNorms[l]!.subarray(from * H, (from + count) * H), to * H);
    }
  }

  get byteSize(): number {
    return this.layers * this.slotCount * (2 * this.dim + this.heads) * 4;
  }
}
