/**
 * A decode backend: the engine's greedy decode over a paged KV context, behind an async interface so
 * that a GPU implementation (which must wait for the device) and the JS engine are interchangeable.
 */
import { generate, type DecodeModel, type GenerateOptions, type GeneratedToken, type KvContext, type WriterClassifier } from '../engine/index.ts';

export type BackendName = 'webgpu' | 'js';

/** What the page shows about the adapter a WebGPU backend runs on. */
export interface AdapterSummary {
  vendor: string;
  architecture: string;
  device: string;
  description: string;
  /** True for software adapters such as SwiftShader: correct, but says nothing about GPU speed. */
  isFallbackAdapter: boolean;
}

export interface DecodeBackend {
  readonly name: BackendName;
  readonly adapter?: AdapterSummary;
  generate(model: DecodeModel, ctx: KvContext, who: WriterClassifier, opts: GenerateOptions): Promise<GeneratedToken[]>;
  dispose(): void;
}

/** The reference backend: the engine's own grouped decode, run where it is called. */
export class JsBackend implements DecodeBackend {
  readonly name = 'js' as const;

  async generate(model: DecodeModel, ctx: KvContext, who: WriterClassifier, opts: GenerateOptions): Promise<GeneratedToken[]> {
    return generate(model, ctx, who, opts);
  }

  dispose(): void {}
}

export function describeAdapter(a: AdapterSummary | undefined | null): string {
  if (!a) return 'no adapter';
  const name = [a.vendor, a.architecture].filter(Boolean).join(' / ') || 'unnamed adapter';
  return `${name}${a.description ? ` (${a.description})` : ''}${a.isFallbackAdapter ? ', software fallback adapter' : ''}`;
}
