/**
 * The slice of the WebGPU API this project uses, as plain interfaces.
 *
 * TypeScript 5.9's lib.dom has no WebGPU types, and @webgpu/types is not a dependency. Declaring them
 * here as module types (not ambient globals) keeps them from clashing with @webgpu/types should it be
 * added later, and lets tests hand in fake GPUs that implement only what a code path touches.
 */

export interface GpuLike {
  requestAdapter(options?: { powerPreference?: 'low-power' | 'high-performance' }): Promise<GpuAdapterLike | null>;
}

export interface GpuAdapterInfoLike {
  readonly vendor: string;
  readonly architecture: string;
  readonly device?: string;
  readonly description?: string;
  /** Chromium ≥ 131 reports it here; older ones on the adapter. */
  readonly isFallbackAdapter?: boolean;
}

export interface GpuLimitsLike {
  readonly maxStorageBufferBindingSize: number;
  readonly maxBufferSize: number;
  readonly maxComputeWorkgroupsPerDimension: number;
  readonly maxStorageBuffersPerShaderStage: number;
}

export interface GpuAdapterLike {
  readonly info?: GpuAdapterInfoLike;
  readonly isFallbackAdapter?: boolean;
  readonly limits: GpuLimitsLike;
  requestDevice(descriptor?: { label?: string; requiredLimits?: Record<string, number> }): Promise<GpuDeviceLike>;
}

export interface GpuDeviceLostInfoLike {
  readonly reason: 'unknown' | 'destroyed';
  readonly message: string;
}

export interface GpuErrorLike {
  readonly message: string;
}

export interface GpuCompilationMessageLike {
  readonly message: string;
  readonly type: 'error' | 'warning' | 'info';
  readonly lineNum: number;
  readonly linePos: number;
}

export interface GpuShaderModuleLike {
  getCompilationInfo(): Promise<{ readonly messages: readonly GpuCompilationMessageLike[] }>;
}

export interface GpuBufferLike {
  readonly size: number;
  mapAsync(mode: number, offset?: number, size?: number): Promise<void>;
  getMappedRange(offset?: number, size?: number): ArrayBuffer;
  unmap(): void;
  destroy(): void;
}

export interface GpuBindGroupLayoutLike {
  readonly label?: string;
}

export type GpuBindGroupLike = object;

export interface GpuComputePipelineLike {
  getBindGroupLayout(index: number): GpuBindGroupLayoutLike;
}

export interface GpuComputePassLike {
  setPipeline(pipeline: GpuComputePipelineLike): void;
  setBindGroup(index: number, group: GpuBindGroupLike): void;
  dispatchWorkgroups(x: number, y?: number, z?: number): void;
  end(): void;
}

export type GpuCommandBufferLike = object;

export interface GpuCommandEncoderLike {
  beginComputePass(descriptor?: { label?: string }): GpuComputePassLike;
  copyBufferToBuffer(source: GpuBufferLike, sourceOffset: number, destination: GpuBufferLike, destinationOffset: number, size: number): void;
  clearBuffer(buffer: GpuBufferLike, offset?: number, size?: number): void;
  finish(): GpuCommandBufferLike;
}

export interface GpuQueueLike {
  writeBuffer(buffer: GpuBufferLike, bufferOffset: number, data: ArrayBufferView | ArrayBuffer, dataOffset?: number, size?: number): void;
  submit(commandBuffers: GpuCommandBufferLike[]): void;
  onSubmittedWorkDone(): Promise<void>;
}

export interface GpuDeviceLike {
  readonly limits: GpuLimitsLike;
  readonly lost: Promise<GpuDeviceLostInfoLike>;
  readonly queue: GpuQueueLike;
  createBuffer(descriptor: { label?: string; size: number; usage: number; mappedAtCreation?: boolean }): GpuBufferLike;
  createShaderModule(descriptor: { label?: string; code: string }): GpuShaderModuleLike;
  createComputePipelineAsync(descriptor: {
    label?: string;
    layout: 'auto';
    compute: { module: GpuShaderModuleLike; entryPoint: string };
  }): Promise<GpuComputePipelineLike>;
  createBindGroup(descriptor: {
    label?: string;
    layout: GpuBindGroupLayoutLike;
    entries: { binding: number; resource: { buffer: GpuBufferLike; offset?: number; size?: number } }[];
  }): GpuBindGroupLike;
  createCommandEncoder(descriptor?: { label?: string }): GpuCommandEncoderLike;
  pushErrorScope(filter: 'validation' | 'out-of-memory' | 'internal'): void;
  popErrorScope(): Promise<GpuErrorLike | null>;
  destroy(): void;
}

/** GPUBufferUsage and GPUMapMode flags (fixed by the spec); the globals are absent in Node tests. */
export const BufferUsage = {
  MAP_READ: 0x0001,
  COPY_SRC: 0x0004,
  COPY_DST: 0x0008,
  UNIFORM: 0x0040,
  STORAGE: 0x0080,
} as const;
export const MapModeRead = 0x0001;

/** The navigator's GPU, if this browser (or worker) exposes one. */
export function navigatorGpu(): GpuLike | undefined {
  const nav = (globalThis as { navigator?: { gpu?: GpuLike } }).navigator;
  return nav?.gpu ?? undefined;
}
