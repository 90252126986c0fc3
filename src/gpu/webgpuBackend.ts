/**
 * The WebGPU decode backend.
 *
 * What runs where. The GPU does the part that grows with the context: one invocation per logical
 * slot of the block table (up to 1,048,576 and beyond) gathers the slot through its page, classifies
 * its writer and counts it into its (key, value, writer-class) group, keeping the group's first and
 * latest slot (shaders.ts). One readback per request brings the touched groups home (usually a few
 * thousand; at most min(context, 3·V²)). The greedy steps then run on the CPU through the engine's
 * own `generateFromGroups`, because
 *  - each step's query is the previous step's argmax, so a GPU step loop would need a readback (or a
 *    single-workgroup serial loop) per token, for O(groups) work that the CPU does in microseconds;
 *  - float64 on the CPU in the engine's summation order makes tokens, tie-breaks, provenance and
 *    probabilities identical to the JS engine, where float32 on the GPU could flip a near-tie.
 * Integer counts are exact, so the hand-off loses nothing.
 *
 * Buffers are reused between requests and grown on demand; the pool's slot arrays and the block
 * table are uploaded per request (a copy, not a computation), as the engine's pools are mutable.
 */
import { generateFromGroups, type DecodeModel, type GenerateOptions, type GeneratedToken, type KvContext, type WriterClassifier } from '../engine/index.ts';
import type { AdapterSummary, DecodeBackend } from './backend.ts';
import { blockTableWords, dispatchGrid, groupsFromEntries, packedWords, u16AsWords } from './packing.ts';
import { DECODE_WGSL, PARAMS_BYTES, WORKGROUP_SIZE } from './shaders.ts';
import {
  BufferUsage,
  MapModeRead,
  type GpuAdapterLike,
  type GpuBufferLike,
  type GpuComputePipelineLike,
  type GpuDeviceLike,
  type GpuDeviceLostInfoLike,
  type GpuLike,
} from './webgpuTypes.ts';

const GROUP_CLASSES = 3;
const STATS_WORDS_PER_GROUP = 3;
const ENTRY_BYTES = 16;
/** Entries read back in the same round trip as the count; more need a second one. */
const SPECULATIVE_ENTRIES = 16_384;

export interface WebGpuOptions {
  /** Test-only: replaces the WGSL; a broken source exercises the compile-failure fallback. */
  shaderSource?: string;
  /** Test-only: destroys the device right after the next decode's work is submitted (device loss). */
  destroyDeviceDuringNextRun?: boolean;
}

export type UnavailableKind = 'no-adapter' | 'device' | 'shader';

/** WebGPU cannot start; `message` is meant for the person reading the page. */
export class WebGpuUnavailable extends Error {
  constructor(readonly kind: UnavailableKind, message: string) {
    super(message);
    this.name = 'WebGpuUnavailable';
  }
}

/** A decode failed on the GPU (the device was lost, or a check on the result did not hold). */
export class WebGpuRunFailed extends Error {
  constructor(readonly lost: boolean, message: string) {
    super(message);
    this.name = 'WebGpuRunFailed';
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function summarizeAdapter(adapter: GpuAdapterLike): AdapterSummary {
  const info = adapter.info;
  return {
    vendor: info?.vendor ?? '',
    architecture: info?.architecture ?? '',
    device: info?.device ?? '',
    description: info?.description ?? '',
    isFallbackAdapter: Boolean(info?.isFallbackAdapter ?? adapter.isFallbackAdapter),
  };
}

type BufferName = 'stats' | 'kv' | 'writers' | 'tenants' | 'blockTable' | 'touched' | 'entries' | 'readSmall' | 'readLarge';

export class WebGpuBackend implements DecodeBackend {
  readonly name = 'webgpu' as const;
  private readonly buffers = new Map<BufferName, GpuBufferLike>();
  private readonly params: GpuBufferLike;
  private lostInfo: GpuDeviceLostInfoLike | null = null;
  private disposed = false;
  private readonly lostListeners: ((message: string) => void)[] = [];
  /** Runs share buffers, so they go one at a time. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly device: GpuDeviceLike,
    readonly adapter: AdapterSummary,
    private readonly countPipeline: GpuComputePipelineLike,
    private readonly compactPipeline: GpuComputePipelineLike,
    private readonly options: WebGpuOptions,
  ) {
    this.params = device.createBuffer({ label: 'decode params', size: PARAMS_BYTES, usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST });
    void device.lost.then((info) => {
      this.lostInfo = info;
      if (this.disposed) return;
      const message = `the WebGPU device was lost (${info.reason}${info.message ? `: ${info.message}` : ''})`;
      for (const l of this.lostListeners) l(message);
    });
  }

  /** Starts WebGPU on `gpu`, or throws WebGpuUnavailable saying why not. */
  static async create(gpu: GpuLike, options: WebGpuOptions = {}): Promise<WebGpuBackend> {
    let adapter: GpuAdapterLike | null;
    try {
      adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
    } catch (err) {
      throw new WebGpuUnavailable('no-adapter', `requesting a WebGPU adapter failed: ${messageOf(err)}`);
    }
    if (!adapter) throw new WebGpuUnavailable('no-adapter', 'this browser offers no WebGPU adapter');

    let device: GpuDeviceLike;
    try {
      // The largest binding is the group table, 36·V² bytes (37.7 MB at the engine's 1,024 tokens):
      // ask for what the adapter allows rather than the 128 MiB default.
      device = await adapter.requestDevice({
        label: 'stale-pages decode',
        requiredLimits: {
          maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
          maxBufferSize: adapter.limits.maxBufferSize,
        },
      });
    } catch (err) {
      throw new WebGpuUnavailable('device', `the WebGPU adapter would not give a device: ${messageOf(err)}`);
    }
    if (device.limits.maxStorageBuffersPerShaderStage < 7) {
      device.destroy();
      throw new WebGpuUnavailable('device', 'the WebGPU device allows fewer than 7 storage buffers per shader');
    }

    try {
      device.pushErrorScope('validation');
      const module = device.createShaderModule({ label: 'decode attention', code: options.shaderSource ?? DECODE_WGSL });
      const info = await module.getCompilationInfo();
      const scopeError = await device.popErrorScope();
      const errors = info.messages.filter((m) => m.type === 'error');
      if (errors.length > 0 || scopeError) {
        const first = errors[0];
        const detail = first ? `line ${first.lineNum}:${first.linePos}: ${first.message}` : scopeError!.message;
        throw new WebGpuUnavailable('shader', `the decode shader failed to compile (${detail.split('\n')[0]})`);
      }
      const [countPipeline, compactPipeline] = await Promise.all([
        device.createComputePipelineAsync({ label: 'count groups', layout: 'auto', compute: { module, entryPoint: 'countGroups' } }),
        device.createComputePipelineAsync({ label: 'compact groups', layout: 'auto', compute: { module, entryPoint: 'compact' } }),
      ]);
      return new WebGpuBackend(device, summarizeAdapter(adapter), countPipeline, compactPipeline, options);
    } catch (err) {
      device.destroy();
      if (err instanceof WebGpuUnavailable) throw err;
      throw new WebGpuUnavailable('shader', `the decode pipeline could not be built: ${messageOf(err)}`);
    }
  }

  get lost(): boolean {
    return this.lostInfo !== null;
  }

  /** Called once if the device is lost while this backend is in use (not after dispose). */
  onLost(listener: (message: string) => void): void {
    this.lostListeners.push(listener);
  }

  generate(model: DecodeModel, ctx: KvContext, who: WriterClassifier, opts: GenerateOptions): Promise<GeneratedToken[]> {
    const run = this.queue.then(() => this.run(model, ctx, who, opts));
    this.queue = run.catch(() => undefined);
    return run;
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const b of this.buffers.values()) b.destroy();
    this.buffers.clear();
    this.device.destroy();
  }

  private async run(model: DecodeModel, ctx: KvContext, who: WriterClassifier, opts: GenerateOptions): Promise<GeneratedToken[]> {
    if (this.disposed) throw new WebGpuRunFailed(false, 'the WebGPU backend was closed');
    if (this.lostInfo) throw new WebGpuRunFailed(true, `the WebGPU device was lost (${this.lostInfo.message || this.lostInfo.reason})`);
    if (ctx.seqLen === 0) return generateFromGroups(model, ctx, { length: 0, group: new Int32Array(0), count: new Int32Array(0), lastSlot: new Int32Array(0) }, opts);
    try {
      const groups = await this.countOnGpu(model, ctx, who);
      return generateFromGroups(model, ctx, groups, opts);
    } catch (err) {
      if (err instanceof WebGpuRunFailed) throw err;
      // A lost device makes mapAsync reject (AbortError) before `lost` settles: wait for it briefly
      // so that the notice names the loss, not its symptom.
      const lostInfo = this.lostInfo ?? (await Promise.race([this.device.lost, new Promise<null>((r) => setTimeout(() => r(null), 250))]));
      if (lostInfo) throw new WebGpuRunFailed(true, `the WebGPU device was lost during the decode (${lostInfo.reason}${lostInfo.message ? `: ${lostInfo.message.trim()}` : ''})`);
      throw new WebGpuRunFailed(false, `the WebGPU decode failed: ${messageOf(err)}`);
    }
  }

  private buffer(name: BufferName, bytes: number, usage: number): GpuBufferLike {
    const size = Math.max(16, Math.ceil(bytes / 16) * 16);
    const have = this.buffers.get(name);
    if (have && have.size >= size) return have;
    have?.destroy();
    // Grow by half again so that a slowly rising context length does not reallocate every request.
    const grown = have ? Math.max(size, Math.ceil((have.size * 1.5) / 16) * 16) : size;
    const max = this.device.limits.maxStorageBufferBindingSize;
    const b = this.device.createBuffer({ label: name, size: usage & BufferUsage.STORAGE ? Math.min(grown, Math.max(size, max)) : grown, usage });
    this.buffers.set(name, b);
    return b;
  }

  private async countOnGpu(model: DecodeModel, ctx: KvContext, who: WriterClassifier) {
    const { device } = this;
    const V = model.vocabSize;
    const groupLimit = V * V * GROUP_CLASSES;
    const statsBytes = groupLimit * STATS_WORDS_PER_GROUP * 4;
    const limit = device.limits.maxStorageBufferBindingSize;
    if (statsBytes > limit) throw new WebGpuRunFailed(false, `a ${V}-token vocabulary needs a ${statsBytes}-byte group table; the device binds at most ${limit}`);
    const slots = Math.min(ctx.keyTokens.length, ctx.valueTokens.length, ctx.slotWriter.length);
    const table = blockTableWords(ctx.blockTable, ctx.seqLen, ctx.pageSize);
    const capacity = Math.min(ctx.seqLen, groupLimit);
    const halfWords = packedWords(slots);
    const tenants = Int32Array.from(who.requestTenant);

    const storage = BufferUsage.STORAGE | BufferUsage.COPY_DST;
    // Zero-initialised at creation, and `compact` returns every group it touches to zero.
    const stats = this.buffer('stats', statsBytes, BufferUsage.STORAGE);
    const kv = this.buffer('kv', halfWords * 2 * 4, storage);
    const writers = this.buffer('writers', slots * 4, storage);
    const tenantBuf = this.buffer('tenants', tenants.length * 4, storage);
    const tableBuf = this.buffer('blockTable', table.byteLength, storage);
    const touched = this.buffer('touched', (capacity + 1) * 4, storage | BufferUsage.COPY_SRC);
    const entries = this.buffer('entries', capacity * ENTRY_BYTES, BufferUsage.STORAGE | BufferUsage.COPY_SRC);
    const speculative = Math.min(capacity, SPECULATIVE_ENTRIES);
    const readSmall = this.buffer('readSmall', 16 + SPECULATIVE_ENTRIES * ENTRY_BYTES, BufferUsage.MAP_READ | BufferUsage.COPY_DST);

    const countGrid = dispatchGrid(ctx.seqLen, WORKGROUP_SIZE, device.limits.maxComputeWorkgroupsPerDimension);
    const compactGrid = dispatchGrid(capacity, WORKGROUP_SIZE, device.limits.maxComputeWorkgroupsPerDimension);
    const params = new Uint32Array([ctx.seqLen, ctx.pageSize, V, who.tenant >>> 0, tenants.length, halfWords, countGrid.rowThreads, compactGrid.rowThreads]);

    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    const q = device.queue;
    q.writeBuffer(this.params, 0, params);
    q.writeBuffer(kv, 0, u16AsWords(ctx.keyTokens.subarray(0, slots)));
    q.writeBuffer(kv, halfWords * 4, u16AsWords(ctx.valueTokens.subarray(0, slots)));
    q.writeBuffer(writers, 0, ctx.slotWriter.subarray(0, slots));
    if (tenants.length > 0) q.writeBuffer(tenantBuf, 0, tenants);
    q.writeBuffer(tableBuf, 0, table);
    q.writeBuffer(touched, 0, new Uint32Array(1));

    const bind = (pipeline: GpuComputePipelineLike, bindings: [number, GpuBufferLike][]) =>
      device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: bindings.map(([binding, buffer]) => ({ binding, resource: { buffer } })) });
    const countGroup = bind(this.countPipeline, [[0, this.params], [1, tableBuf], [2, kv], [3, writers], [4, tenantBuf], [5, stats], [6, touched]]);
    const compactGroup = bind(this.compactPipeline, [[0, this.params], [5, stats], [6, touched], [7, entries]]);

    const enc = device.createCommandEncoder({ label: 'decode' });
    const pass = enc.beginComputePass({ label: 'count + compact' });
    pass.setPipeline(this.countPipeline);
    pass.setBindGroup(0, countGroup);
    pass.dispatchWorkgroups(countGrid.x, countGrid.y);
    pass.setPipeline(this.compactPipeline);
    pass.setBindGroup(0, compactGroup);
    pass.dispatchWorkgroups(compactGrid.x, compactGrid.y);
    pass.end();
    enc.copyBufferToBuffer(touched, 0, readSmall, 0, 4);
    enc.copyBufferToBuffer(entries, 0, readSmall, 16, speculative * ENTRY_BYTES);
    q.submit([enc.finish()]);
    if (this.options.destroyDeviceDuringNextRun) {
      this.options.destroyDeviceDuringNextRun = false;
      device.destroy();
    }
    // Popping on a lost device may reject; the loss is reported through `lost` instead.
    const scopes = Promise.all([device.popErrorScope(), device.popErrorScope()]).catch(() => [null, null] as const);

    await readSmall.mapAsync(MapModeRead, 0, 16 + speculative * ENTRY_BYTES);
    let n: number;
    let data: Uint32Array;
    try {
      const view = new Uint32Array(readSmall.getMappedRange(0, 16 + speculative * ENTRY_BYTES));
      n = view[0]!;
      if (n > capacity) throw new WebGpuRunFailed(false, `GPU reported ${n} groups, more than the ${capacity} possible`);
      data = view.slice(4, 4 + Math.min(n, speculative) * 4);
    } finally {
      readSmall.unmap();
    }
    if (n > speculative) {
      // Many distinct groups (random contexts): a second round trip for the rest of the list.
      const readLarge = this.buffer('readLarge', n * ENTRY_BYTES, BufferUsage.MAP_READ | BufferUsage.COPY_DST);
      const enc2 = device.createCommandEncoder({ label: 'read groups' });
      enc2.copyBufferToBuffer(entries, 0, readLarge, 0, n * ENTRY_BYTES);
      q.submit([enc2.finish()]);
      await readLarge.mapAsync(MapModeRead, 0, n * ENTRY_BYTES);
      try {
        data = new Uint32Array(readLarge.getMappedRange(0, n * ENTRY_BYTES)).slice();
      } finally {
        readLarge.unmap();
      }
    }
    const [validation, oom] = await scopes;
    const scopeError = validation ?? oom;
    if (scopeError) throw new WebGpuRunFailed(false, `the GPU rejected the decode: ${scopeError.message}`);
    return groupsFromEntries(data, n, ctx.seqLen, groupLimit);
  }
}
