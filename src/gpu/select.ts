/**
 * Which backend decodes, and what happens when WebGPU fails.
 *
 * WebGPU is tried when preferred; any reason it cannot start (no navigator.gpu, no adapter, no
 * device, a shader that does not compile) leaves the JS engine running with a notice saying why. A
 * device lost while a decode is in flight does not lose the decode: `ResilientDecoder` re-runs that
 * request on the JS engine, which is deterministic, so the result is what WebGPU would have given.
 */
import type { DecodeModel, GenerateOptions, GeneratedToken, KvContext, WriterClassifier } from '../engine/index.ts';
import { JsBackend, type BackendName, type DecodeBackend } from './backend.ts';
import { WebGpuBackend, WebGpuRunFailed, WebGpuUnavailable, type WebGpuOptions } from './webgpuBackend.ts';
import type { GpuLike } from './webgpuTypes.ts';

export type NoticeKind = 'no-webgpu' | 'no-adapter' | 'device' | 'shader' | 'lost' | 'run-failed';

/** Why the JS engine runs although WebGPU was asked for. */
export interface BackendNotice {
  kind: NoticeKind;
  message: string;
}

export interface SelectOptions {
  preferred: BackendName;
  /** navigator.gpu, or a stand-in (tests inject fakes; `?gpu-fault=no-adapter` injects one). */
  gpu: GpuLike | undefined;
  webgpu?: WebGpuOptions;
  /** Builds the GPU backend; tests replace it. */
  createWebGpu?: (gpu: GpuLike, options: WebGpuOptions) => Promise<DecodeBackend & Partial<Pick<WebGpuBackend, 'onLost'>>>;
  /**
   * A GPU request still pending after this long is given up and finished on the JS engine (a hung
   * driver must not hang the page). Default 30 s: SwiftShader, a CPU emulation, needs ~0.2 s at
   * 1,048,576 tokens.
   */
  gpuTimeoutMs?: number;
}

export interface Selection {
  backend: DecodeBackend;
  notice: BackendNotice | null;
}

const FALLBACK = 'the JS engine decodes instead';

export async function selectBackend(options: SelectOptions): Promise<Selection> {
  if (options.preferred === 'js') return { backend: new JsBackend(), notice: null };
  if (!options.gpu) {
    return { backend: new JsBackend(), notice: { kind: 'no-webgpu', message: `This browser does not expose WebGPU (navigator.gpu is missing); ${FALLBACK}.` } };
  }
  const create = options.createWebGpu ?? ((gpu, o) => WebGpuBackend.create(gpu, o));
  try {
    return { backend: await create(options.gpu, options.webgpu ?? {}), notice: null };
  } catch (err) {
    const kind: NoticeKind = err instanceof WebGpuUnavailable ? err.kind : 'device';
    const reason = err instanceof Error ? err.message : String(err);
    return { backend: new JsBackend(), notice: { kind, message: `WebGPU is unavailable: ${reason}; ${FALLBACK}.` } };
  }
}

export interface DecodeResult {
  tokens: GeneratedToken[];
  /** The backend that produced `tokens` (after a fallback, 'js'). */
  ranOn: BackendName;
  /** True when the request started on WebGPU and was finished by the JS engine. */
  fellBack: boolean;
}

/** A backend that survives WebGPU failing under it. */
export class ResilientDecoder {
  private backend: DecodeBackend;
  private currentNotice: BackendNotice | null;
  private readonly listeners = new Set<() => void>();

  private constructor(
    selection: Selection,
    private readonly options: SelectOptions,
  ) {
    this.backend = selection.backend;
    this.currentNotice = selection.notice;
    this.watch(this.backend);
  }

  static async create(options: SelectOptions): Promise<ResilientDecoder> {
    return new ResilientDecoder(await selectBackend(options), options);
  }

  get running(): DecodeBackend {
    return this.backend;
  }

  get notice(): BackendNotice | null {
    return this.currentNotice;
  }

  /** Called when the backend or notice changes without a request (a device lost while idle). */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Switches backend; asking for WebGPU where it cannot run leaves JS running with a notice. */
  async switchTo(preferred: BackendName): Promise<void> {
    if (preferred === this.backend.name) {
      if (preferred === 'js') this.currentNotice = null;
      return;
    }
    const selection = await selectBackend({ ...this.options, preferred });
    this.backend.dispose();
    this.backend = selection.backend;
    this.currentNotice = selection.notice;
    this.watch(this.backend);
  }

  async generate(model: DecodeModel, ctx: KvContext, who: WriterClassifier, opts: GenerateOptions): Promise<DecodeResult> {
    const backend = this.backend;
    try {
      if (backend.name === 'js') return { tokens: await backend.generate(model, ctx, who, opts), ranOn: 'js', fellBack: false };
      return { tokens: await withTimeout(backend.generate(model, ctx, who, opts), this.options.gpuTimeoutMs ?? 30_000), ranOn: backend.name, fellBack: false };
    } catch (err) {
      if (backend.name === 'js') throw err;
      const lost = err instanceof WebGpuRunFailed && err.lost;
      const reason = err instanceof Error ? err.message : String(err);
      this.fallBack(backend, {
        kind: lost ? 'lost' : 'run-failed',
        message: `WebGPU stopped: ${reason}. The request was finished on the JS engine, which decodes from now on.`,
      });
      return { tokens: await this.backend.generate(model, ctx, who, opts), ranOn: 'js', fellBack: true };
    }
  }

  dispose(): void {
    this.backend.dispose();
    this.listeners.clear();
  }

  /**
   * Replaces a failed backend by the JS engine. A loss during a request is seen twice (the device's
   * `lost` and the request's rejection); the request's notice, which says more, lands last and wins.
   */
  private fallBack(from: DecodeBackend, notice: BackendNotice): void {
    if (this.backend === from) {
      from.dispose();
      this.backend = new JsBackend();
    } else if (this.backend.name !== 'js') {
      return; // a newer backend took over meanwhile; this failure is old news
    }
    this.currentNotice = notice;
    for (const l of this.listeners) l();
  }

  private watch(backend: DecodeBackend): void {
    const withLoss = backend as DecodeBackend & Partial<Pick<WebGpuBackend, 'onLost'>>;
    withLoss.onLost?.((message) =>
      this.fallBack(backend, { kind: 'lost', message: `WebGPU stopped: ${message}. The JS engine decodes from now on.` }),
    );
  }
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new WebGpuRunFailed(false, `the GPU did not answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
