/**
 * The trained transformer's decode on WebGPU: the pool's per-layer K and V, the block table and the
 * weights live in GPU buffers, and each decode step is one submission of the kernels in
 * modelShaders.ts (attention over the block table, the matrix products, the MLP), with one readback
 * of the logits; the greedy choice is made on the CPU by the engine's own rule, so that JS and GPU
 * tokens can be compared one for one. The JS engine (transformer.ts `decodeStep`) is the reference
 * and the fallback.
 */
import { SPECIAL_TOKEN_COUNT } from '../engine/core/vocab.ts';
import type { PageTensors } from '../engine/model/kvTensors.ts';
import { argmax, flatWeights, ropeFrequencies, type TransformerWeights } from '../engine/model/transformer.ts';
import { ATTENTION_CHUNK, MODEL_PARAMS_BYTES, modelWgsl, stateLayout } from './modelShaders.ts';
import { BufferUsage, MapModeRead, type GpuBindGroupLike, type GpuBindGroupLayoutLike, type GpuBufferLike, type GpuComputePipelineLike, type GpuDeviceLike, type GpuShaderModuleLike } from './webgpuTypes.ts';

/** What this module needs of a device beyond webgpuTypes.ts: explicit layouts, shared by every entry point. */
interface LayoutDevice extends GpuDeviceLike {
  createBindGroupLayout(descriptor: { entries: { binding: number; visibility: number; buffer: { type: 'uniform' | 'storage' | 'read-only-storage' } }[] }): GpuBindGroupLayoutLike;
  createPipelineLayout(descriptor: { bindGroupLayouts: GpuBindGroupLayoutLike[] }): object;
  createComputePipeline(descriptor: { layout: object; compute: { module: GpuShaderModuleLike; entryPoint: string } }): GpuComputePipelineLike;
}

const COMPUTE = 0x4;
const ENTRY_POINTS = ['embed', 'qkv', 'attnPartial', 'attnCombine', 'outMlp', 'logits'] as const;
type EntryPoint = (typeof ENTRY_POINTS)[number];

export class GpuTransformer {
  private readonly params: GpuBufferLike[];
  private readonly groups: GpuBindGroupLike[];
  private readonly pipelines: Record<EntryPoint, GpuComputePipelineLike>;
  private readonly buffers: GpuBufferLike[];
  private readonly readback: GpuBufferLike;
  private readonly kCache: GpuBufferLike;
  private readonly vCache: GpuBufferLike;
  private readonly blockTable: GpuBufferLike;
  private readonly state: GpuBufferLike;
  private readonly freqs: Float64Array;
  private seqLen = 0;
  private pageSize = 1;

  private constructor(
    private readonly device: LayoutDevice,
    readonly weights: TransformerWeights,
    readonly slotCount: number,
    readonly tailCapacity: number,
    module: GpuShaderModuleLike,
  ) {
    const s = weights.shape;
    const d = device;
    const buffer = (size: number, usage: number) => d.createBuffer({ size: Math.max(16, Math.ceil(size / 4) * 4), usage });
    const storage = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;
    const flat = flatWeights(weights);
    const weightBuffer = buffer(flat.byteLength, storage);
    d.queue.writeBuffer(weightBuffer, 0, flat);
    this.blockTable = buffer(Math.ceil(slotCount / 1) * 4, storage);
    this.kCache = buffer(s.layers * slotCount * s.dim * 4, storage);
    this.vCache = buffer(s.layers * slotCount * s.dim * 4, storage);
    const tailK = buffer(s.layers * tailCapacity * s.dim * 4, storage);
    const tailV = buffer(s.layers * tailCapacity * s.dim * 4, storage);
    this.state = buffer(stateLayout(s).size * 4, storage);
    const maxChunks = Math.ceil((slotCount + tailCapacity) / ATTENTION_CHUNK);
    const partials = buffer(s.heads * maxChunks * (s.dim / s.heads + 2) * 4, storage);
    this.readback = buffer(s.vocab * 4, BufferUsage.MAP_READ | BufferUsage.COPY_DST);
    this.freqs = ropeFrequencies(s);

    const layout = d.createBindGroupLayout({
      entries: [
        { binding: 0, visibility: COMPUTE, buffer: { type: 'uniform' } },
        { binding: 1, visibility: COMPUTE, buffer: { type: 'read-only-storage' } },
        { binding: 2, visibility: COMPUTE, buffer: { type: 'read-only-storage' } },
        { binding: 3, visibility: COMPUTE, buffer: { type: 'read-only-storage' } },
        { binding: 4, visibility: COMPUTE, buffer: { type: 'read-only-storage' } },
        { binding: 5, visibility: COMPUTE, buffer: { type: 'storage' } },
        { binding: 6, visibility: COMPUTE, buffer: { type: 'storage' } },
        { binding: 7, visibility: COMPUTE, buffer: { type: 'storage' } },
        { binding: 8, visibility: COMPUTE, buffer: { type: 'storage' } },
      ],
    });
    const pipelineLayout = d.createPipelineLayout({ bindGroupLayouts: [layout] });
    this.pipelines = Object.fromEntries(ENTRY_POINTS.map((e) => [e, d.createComputePipeline({ layout: pipelineLayout, compute: { module, entryPoint: e } })])) as Record<EntryPoint, GpuComputePipelineLike>;
    // One uniform (and bind group) per layer, plus one for the steps outside the layers.
    this.params = Array.from({ length: s.layers + 1 }, () => buffer(MODEL_PARAMS_BYTES, BufferUsage.UNIFORM | BufferUsage.COPY_DST));
    const shared = [weightBuffer, this.blockTable, this.kCache, this.vCache, tailK, tailV, this.state, partials];
    this.groups = this.params.map((p) =>
      d.createBindGroup({ layout, entries: [p, ...shared].map((b, binding) => ({ binding, resource: { buffer: b } })) }),
    );
    this.buffers = [...shared, ...this.params, this.readback];
  }

  /** Compiles the kernels for `weights` and a pool of `slotCount` slots; throws with the compiler's message if they do not compile. */
  static async create(device: GpuDeviceLike, weights: TransformerWeights, slotCount: number, tailCapacity: number): Promise<GpuTransformer> {
    const module = device.createShaderModule({ label: 'transformer decode', code: modelWgsl(weights.shape, slotCount) });
    const info = await module.getCompilationInfo();
    const errors = info.messages.filter((m) => m.type === 'error');
    if (errors.length > 0) throw new Error(`transformer shader failed to compile: ${errors.map((m) => `line ${m.lineNum}:${m.linePos}: ${m.message}`).join('; ')}`);
    device.pushErrorScope('validation');
    const model = new GpuTransformer(device as LayoutDevice, weights, slotCount, tailCapacity, module);
    const error = await device.popErrorScope();
    if (error) throw new Error(`transformer pipelines: ${error.message}`);
    return model;
  }

  /** Uploads a pool's K and V (every slot, every layer) and a block table of `seqLen` slots. */
  uploadContext(tensors: PageTensors, blockTable: ArrayLike<number>, seqLen: number, pageSize: number): void {
    if (tensors.slotCount > this.slotCount) throw new Error(`pool of ${tensors.slotCount} slots, the GPU model was built for ${this.slotCount}`);
    const q = this.device.queue;
    const per = this.slotCount * tensors.dim * 4;
    for (let l = 0; l < tensors.layers; l++) {
      q.writeBuffer(this.kCache, l * per, tensors.keys[l]!);
      q.writeBuffer(this.vCache, l * per, tensors.values[l]!);
    }
    q.writeBuffer(this.blockTable, 0, Uint32Array.from(Array.from({ length: Math.ceil(seqLen / pageSize) }, (_, i) => blockTable[i]!)));
    this.seqLen = seqLen;
    this.pageSize = pageSize;
  }

  /** One decode step: token `token` at `position`, tail index `tail`; returns the logits. */
  async step(token: number, position: number, tail: number): Promise<Float32Array> {
    const s = this.weights.shape;
    if (tail >= this.tailCapacity) throw new Error(`tail of ${this.tailCapacity} tokens is full`);
    const chunks = Math.ceil((this.seqLen + tail + 1) / ATTENTION_CHUNK);
    const q = this.device.queue;
    const rope = new Float32Array(2 * this.freqs.length);
    for (let i = 0; i < this.freqs.length; i++) {
      rope[2 * i] = Math.cos(position * this.freqs[i]!);
      rope[2 * i + 1] = Math.sin(position * this.freqs[i]!);
    }
    q.writeBuffer(this.state, stateLayout(s).rope * 4, rope);
    this.params.forEach((p, l) => q.writeBuffer(p, 0, Uint32Array.of(this.seqLen, this.pageSize, position, tail, token, chunks, Math.min(l, s.layers - 1), this.tailCapacity)));
    const encoder = this.device.createCommandEncoder({ label: 'transformer step' });
    const pass = encoder.beginComputePass();
    const run = (entry: EntryPoint, group: number, x: number, y = 1) => {
      pass.setPipeline(this.pipelines[entry]);
      pass.setBindGroup(0, this.groups[group]!);
      pass.dispatchWorkgroups(x, y);
    };
    const outside = s.layers;
    run('embed', outside, Math.ceil(s.dim / 64));
    for (let l = 0; l < s.layers; l++) {
      run('qkv', l, 1);
      run('attnPartial', l, chunks, s.heads);
      run('attnCombine', l, Math.ceil(s.dim / 64));
      run('outMlp', l, 1);
    }
    run('logits', outside, Math.ceil(s.vocab / 64));
    pass.end();
    encoder.copyBufferToBuffer(this.state, stateLayout(s).logits * 4, this.readback, 0, s.vocab * 4);
    q.submit([encoder.finish()]);
    await this.readback.mapAsync(MapModeRead);
    const logits = new Float32Array(this.readback.getMappedRange().slice(0));
    this.readback.unmap();
    return logits;
  }

  /**
   * Greedy decode as the engine's TransformerDecoder does it (model token ids): `first` is the first
   * output token, each next one a step at seqLen, seqLen + 1, …. Returns the tokens and each step's logits.
   */
  async generate(first: number, steps: number, unknown: number): Promise<{ tokens: number[]; logits: Float32Array[] }> {
    const tokens = [first];
    const logits: Float32Array[] = [];
    let input = first;
    for (let s = 1; s < steps; s++) {
      const l = await this.step(input, this.seqLen + s - 1, s - 1);
      logits.push(l);
      input = argmax(l, SPECIAL_TOKEN_COUNT, unknown);
      tokens.push(input);
    }
    return { tokens, logits };
  }

  destroy(): void {
    for (const b of this.buffers) b.destroy();
  }
}
