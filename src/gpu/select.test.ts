import { describe, expect, it } from 'vitest';
import { generate } from '../engine/index.ts';
import { JsBackend, type DecodeBackend } from './backend.ts';
import { ResilientDecoder, selectBackend } from './select.ts';
import { WebGpuBackend, WebGpuRunFailed, WebGpuUnavailable } from './webgpuBackend.ts';
import type { GpuAdapterLike, GpuDeviceLike, GpuLike } from './webgpuTypes.ts';
import { randomCase } from './workload.ts';

const limits = { maxStorageBufferBindingSize: 1 << 27, maxBufferSize: 1 << 28, maxComputeWorkgroupsPerDimension: 65_535, maxStorageBuffersPerShaderStage: 8 };

/** A device that gets as far as compiling the shader, with the compiler's verdict supplied. */
function fakeDevice(compileErrors: string[], destroyed: { count: number }): GpuDeviceLike {
  return {
    limits,
    lost: new Promise(() => {}),
    queue: { writeBuffer() {}, submit() {}, onSubmittedWorkDone: async () => {} },
    createBuffer: () => ({ size: 16, mapAsync: async () => {}, getMappedRange: () => new ArrayBuffer(16), unmap() {}, destroy() {} }),
    createShaderModule: () => ({
      getCompilationInfo: async () => ({ messages: compileErrors.map((message) => ({ message, type: 'error' as const, lineNum: 42, linePos: 7 })) }),
    }),
    createComputePipelineAsync: async () => ({ getBindGroupLayout: () => ({}) }),
    createBindGroup: () => ({}),
    createCommandEncoder: () => {
      throw new Error('not used');
    },
    pushErrorScope() {},
    popErrorScope: async () => null,
    destroy() {
      destroyed.count++;
    },
  };
}

function fakeGpu(adapter: () => Promise<GpuAdapterLike | null>): GpuLike {
  return { requestAdapter: adapter };
}

const adapterWith = (device: () => Promise<GpuDeviceLike>): GpuAdapterLike => ({
  info: { vendor: 'google', architecture: 'swiftshader', isFallbackAdapter: true },
  limits,
  requestDevice: device,
});

/** A stand-in GPU backend whose runs fail (or not) as the test says. */
class FakeGpuBackend implements DecodeBackend {
  readonly name = 'webgpu' as const;
  disposed = false;
  private lostListener: ((m: string) => void) | null = null;
  constructor(private readonly fail: Error | null) {}
  async generate(...args: Parameters<DecodeBackend['generate']>) {
    if (this.fail) throw this.fail;
    return generate(...args);
  }
  onLost(l: (m: string) => void) {
    this.lostListener = l;
  }
  loseNow() {
    this.lostListener?.('the WebGPU device was lost (unknown: test)');
  }
  dispose() {
    this.disposed = true;
  }
}

describe('selectBackend', () => {
  it('runs JS without a notice when JS is asked for', async () => {
    const s = await selectBackend({ preferred: 'js', gpu: undefined });
    expect(s.backend.name).toBe('js');
    expect(s.notice).toBeNull();
  });

  it('falls back when the browser has no navigator.gpu', async () => {
    const s = await selectBackend({ preferred: 'webgpu', gpu: undefined });
    expect(s.backend.name).toBe('js');
    expect(s.notice).toMatchObject({ kind: 'no-webgpu' });
    expect(s.notice!.message).toMatch(/navigator\.gpu is missing.*JS engine/);
  });

  it('falls back when requestAdapter gives null or throws', async () => {
    const none = await selectBackend({ preferred: 'webgpu', gpu: fakeGpu(async () => null) });
    expect(none.backend.name).toBe('js');
    expect(none.notice).toMatchObject({ kind: 'no-adapter' });
    expect(none.notice!.message).toMatch(/no WebGPU adapter/);
    const broken = await selectBackend({ preferred: 'webgpu', gpu: fakeGpu(async () => Promise.reject(new Error('blocklisted'))) });
    expect(broken.notice).toMatchObject({ kind: 'no-adapter' });
    expect(broken.notice!.message).toMatch(/blocklisted/);
  });

  it('falls back when the adapter will not give a device', async () => {
    const s = await selectBackend({ preferred: 'webgpu', gpu: fakeGpu(async () => adapterWith(async () => Promise.reject(new Error('out of memory')))) });
    expect(s.backend.name).toBe('js');
    expect(s.notice).toMatchObject({ kind: 'device' });
    expect(s.notice!.message).toMatch(/out of memory/);
  });

  it('falls back, naming the line, when the shader does not compile, and releases the device', async () => {
    const destroyed = { count: 0 };
    const gpu = fakeGpu(async () => adapterWith(async () => fakeDevice(["unresolved call target 'atomicAddd'"], destroyed)));
    const s = await selectBackend({ preferred: 'webgpu', gpu });
    expect(s.backend.name).toBe('js');
    expect(s.notice).toMatchObject({ kind: 'shader' });
    expect(s.notice!.message).toMatch(/line 42:7: unresolved call target 'atomicAddd'/);
    expect(destroyed.count).toBe(1);
  });

  it('starts WebGPU when it compiles, reporting the adapter', async () => {
    const destroyed = { count: 0 };
    const gpu = fakeGpu(async () => adapterWith(async () => fakeDevice([], destroyed)));
    const s = await selectBackend({ preferred: 'webgpu', gpu });
    expect(s.backend).toBeInstanceOf(WebGpuBackend);
    expect(s.backend.adapter).toEqual({ vendor: 'google', architecture: 'swiftshader', device: '', description: '', isFallbackAdapter: true });
    s.backend.dispose();
    expect(destroyed.count).toBe(1);
  });

  it('WebGpuBackend.create says why it cannot start', async () => {
    await expect(WebGpuBackend.create(fakeGpu(async () => null))).rejects.toBeInstanceOf(WebGpuUnavailable);
  });
});

describe('ResilientDecoder', () => {
  const c = randomCase('resilient', 2, 20_000);
  const expected = generate(c.model, c.ctx, c.who, c.opts);
  const gpu = fakeGpu(async () => null);

  it('finishes a request on JS when the device is lost during it, and stays on JS', async () => {
    const failing = new FakeGpuBackend(new WebGpuRunFailed(true, 'the WebGPU device was lost during the decode (AbortError)'));
    const d = await ResilientDecoder.create({ preferred: 'webgpu', gpu, createWebGpu: async () => failing });
    expect(d.running.name).toBe('webgpu');
    const r = await d.generate(c.model, c.ctx, c.who, c.opts);
    expect(r).toEqual({ tokens: expected, ranOn: 'js', fellBack: true });
    expect(failing.disposed).toBe(true);
    expect(d.running.name).toBe('js');
    expect(d.notice).toMatchObject({ kind: 'lost' });
    expect(d.notice!.message).toMatch(/lost during the decode.*finished on the JS engine/);
    const again = await d.generate(c.model, c.ctx, c.who, c.opts);
    expect(again.fellBack).toBe(false);
  });

  it('treats any other GPU run failure the same way', async () => {
    const d = await ResilientDecoder.create({ preferred: 'webgpu', gpu, createWebGpu: async () => new FakeGpuBackend(new WebGpuRunFailed(false, 'counts add up to 3')) });
    const r = await d.generate(c.model, c.ctx, c.who, c.opts);
    expect(r.tokens).toEqual(expected);
    expect(d.notice).toMatchObject({ kind: 'run-failed' });
  });

  it('gives up on a GPU request that never answers and finishes it on JS', async () => {
    const hung: DecodeBackend = { name: 'webgpu', generate: () => new Promise(() => {}), dispose() {} };
    const d = await ResilientDecoder.create({ preferred: 'webgpu', gpu, createWebGpu: async () => hung, gpuTimeoutMs: 50 });
    const r = await d.generate(c.model, c.ctx, c.who, c.opts);
    expect(r).toEqual({ tokens: expected, ranOn: 'js', fellBack: true });
    expect(d.notice!.message).toMatch(/did not answer within 0.05 s/);
  });

  it('switches to JS when the device is lost while idle, and tells listeners', async () => {
    const backend = new FakeGpuBackend(null);
    const d = await ResilientDecoder.create({ preferred: 'webgpu', gpu, createWebGpu: async () => backend });
    let calls = 0;
    d.subscribe(() => calls++);
    backend.loseNow();
    expect(calls).toBe(1);
    expect(d.running.name).toBe('js');
    expect(d.notice).toMatchObject({ kind: 'lost' });
    expect((await d.generate(c.model, c.ctx, c.who, c.opts)).tokens).toEqual(expected);
  });

  it('switches on request, and clears the notice when JS is chosen deliberately', async () => {
    const d = await ResilientDecoder.create({ preferred: 'webgpu', gpu });
    expect(d.running.name).toBe('js');
    expect(d.notice).toMatchObject({ kind: 'no-adapter' });
    await d.switchTo('js');
    expect(d.notice).toBeNull();
    let made = 0;
    const d2 = await ResilientDecoder.create({ preferred: 'js', gpu, createWebGpu: async () => (made++, new FakeGpuBackend(null)) });
    expect(d2.running).toBeInstanceOf(JsBackend);
    await d2.switchTo('webgpu');
    expect(d2.running.name).toBe('webgpu');
    expect(made).toBe(1);
    await d2.switchTo('js');
    expect(d2.running.name).toBe('js');
  });

  it('does not swallow a failure of the JS engine itself', async () => {
    const d = await ResilientDecoder.create({ preferred: 'js', gpu });
    const table = new Proxy([0], { get: (t, k) => (k === 'length' ? t.length : (() => { throw new Error('unreadable block table'); })()) });
    await expect(d.generate(c.model, { ...c.ctx, blockTable: table }, c.who, c.opts)).rejects.toThrow(/unreadable block table/);
  });
});
