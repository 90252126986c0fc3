/// <reference lib="webworker" />
/**
 * Hosts the decode backends off the main thread: building the 1,048,576-token warm pool, the JS
 * decode and the WebGPU round trips never hold up the page (WebGPU is exposed to workers in Chromium).
 */
import { generate } from '../../engine/index.ts';
import { compareTokens, SCORE_TOLERANCE } from '../../gpu/agreement.ts';
import { JsBackend, type BackendName, type DecodeBackend } from '../../gpu/backend.ts';
import { ResilientDecoder, selectBackend, type SelectOptions } from '../../gpu/select.ts';
import { BROKEN_DECODE_WGSL } from '../../gpu/shaders.ts';
import { navigatorGpu, type GpuLike } from '../../gpu/webgpuTypes.ts';
import { FULL_CONTEXT_TOKENS, randomCase, warmCase, warmWorkload, type DecodeCase, type WarmWorkload } from '../../gpu/workload.ts';
import type { BackendStatus, BenchReport, CompareReport, CompareRow, DecodeRunResult, GpuFault } from '../../gpu/reports.ts';
import type { DecodeEvent, DecodeProtocol } from './decodeProtocol.ts';
import { serveRpc } from './rpc.ts';

/** `?gpu-fault=no-adapter`: a GPU that exists but offers no adapter, as on a blocklisted driver. */
const gpuWithoutAdapter: GpuLike = { requestAdapter: async () => null };

let decoder: ResilientDecoder | null = null;
let preferred: BackendName = 'webgpu';
let fault: GpuFault | null = null;
let workload: WarmWorkload | null = null;

function selectOptions(p: BackendName, forRun: boolean): SelectOptions {
  return {
    preferred: p,
    gpu: fault === 'no-adapter' ? gpuWithoutAdapter : navigatorGpu(),
    webgpu: {
      ...(fault === 'shader' ? { shaderSource: BROKEN_DECODE_WGSL } : {}),
      // The loss is staged once, on the decoder the panel's runs go through.
      ...(fault === 'lost' && forRun ? { destroyDeviceDuringNextRun: true } : {}),
    },
  };
}

function status(): BackendStatus {
  const running = decoder?.running;
  return { running: running?.name ?? 'js', preferred, adapter: running?.adapter ?? null, notice: decoder?.notice ?? null, fault };
}

function getWorkload(): WarmWorkload {
  workload ??= warmWorkload();
  return workload;
}

async function timed<T>(f: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await f();
  return { value, ms: performance.now() - t0 };
}

/**
 * A WebGPU backend for comparisons and benchmarks: the panel's own when it is on WebGPU, else a
 * fresh one (disposed after), so both can run whichever backend the panel has selected.
 */
async function withWebGpu<T>(use: (gpu: DecodeBackend) => Promise<T>): Promise<{ value: T | null; unavailable: string | null; adapter: DecodeBackend['adapter'] | null }> {
  if (decoder?.running.name === 'webgpu') {
    const gpu = decoder.running;
    return { value: await use(gpu), unavailable: null, adapter: gpu.adapter ?? null };
  }
  const selection = await selectBackend(selectOptions('webgpu', false));
  if (selection.backend.name !== 'webgpu') return { value: null, unavailable: selection.notice?.message ?? 'WebGPU did not start', adapter: null };
  try {
    return { value: await use(selection.backend), unavailable: null, adapter: selection.backend.adapter ?? null };
  } finally {
    selection.backend.dispose();
  }
}

async function run(contextTokens: number, steps: number): Promise<DecodeRunResult> {
  const w = getWorkload();
  const c = warmCase(w, contextTokens, steps);
  const { value, ms } = await timed(() => decoder!.generate(c.model, c.ctx, c.who, c.opts));
  const tenantOf = (writer: number) => (writer < 0 ? null : (w.tenantNames[w.requestTenant[writer] ?? -1] ?? `request ${writer}`));
  return {
    backend: value.ranOn,
    fellBack: value.fellBack,
    contextTokens,
    ms,
    text: w.vocab.decode(value.tokens.map((t) => t.token)),
    tokens: value.tokens.map((t) => ({
      word: w.vocab.word(t.token),
      source: tenantOf(t.writer),
      foreign: t.writer >= 0 && w.requestTenant[t.writer] !== w.tenant,
      probability: t.probability,
    })),
    tenant: w.tenantNames[w.tenant]!,
  };
}

async function compare(cases: number, seed: string): Promise<CompareReport> {
  const w = getWorkload();
  const inputs: (() => DecodeCase)[] = [() => warmCase(w, 65_536, 24), () => warmCase(w, FULL_CONTEXT_TOKENS, 24)];
  for (let i = 0; i < cases; i++) inputs.push(() => randomCase(seed, i));
  inputs.push(() => randomCase(seed, 0, 262_144, 'spread'));
  const js = new JsBackend();
  const result = await withWebGpu(async (gpu) => {
    const rows: CompareRow[] = [];
    for (const make of inputs) {
      const c = make();
      const a = await timed(() => js.generate(c.model, c.ctx, c.who, c.opts));
      const base = { label: c.label, seqLen: c.ctx.seqLen, steps: c.opts.steps, jsMs: a.ms };
      try {
        const b = await timed(() => gpu.generate(c.model, c.ctx, c.who, c.opts));
        rows.push({ ...base, ...compareTokens(a.value, b.value), webgpuMs: b.ms, error: null });
      } catch (err) {
        rows.push({ ...base, tokensEqual: false, provenanceEqual: false, maxRelativeDiff: Infinity, webgpuMs: NaN, error: err instanceof Error ? err.message : String(err) });
      }
    }
    return rows;
  });
  return { rows: result.value ?? [], adapter: result.adapter ?? null, unavailable: result.unavailable, tolerance: SCORE_TOLERANCE };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** One decode step per size, each backend once to warm up (pipelines, buffers, JIT), then `reps` timed. */
async function bench(sizes: number[], reps: number): Promise<BenchReport> {
  const w = getWorkload();
  const js = new JsBackend();
  const timeRuns = async (backend: DecodeBackend, c: DecodeCase) => {
    await backend.generate(c.model, c.ctx, c.who, c.opts);
    const runs: number[] = [];
    for (let i = 0; i < reps; i++) runs.push((await timed(() => backend.generate(c.model, c.ctx, c.who, c.opts))).ms);
    return runs;
  };
  const jsRuns = new Map<number, number[]>();
  for (const size of sizes) jsRuns.set(size, await timeRuns(js, warmCase(w, size, 1)));
  const gpu = await withWebGpu(async (backend) => {
    const out = new Map<number, number[]>();
    for (const size of sizes) {
      const c = warmCase(w, size, 1);
      // A benchmark of wrong answers would be meaningless: check before timing.
      const agreement = compareTokens(generate(c.model, c.ctx, c.who, c.opts), await backend.generate(c.model, c.ctx, c.who, c.opts));
      if (!agreement.tokensEqual || !agreement.provenanceEqual) throw new Error(`WebGPU disagrees with the JS engine at ${size} tokens`);
      out.set(size, await timeRuns(backend, c));
    }
    return out;
  });
  return {
    rows: sizes.map((size) => {
      const j = jsRuns.get(size)!;
      const g = gpu.value?.get(size) ?? [];
      return { contextTokens: size, jsMs: median(j), webgpuMs: g.length ? median(g) : null, jsRuns: j, webgpuRuns: g };
    }),
    adapter: gpu.adapter ?? null,
    unavailable: gpu.unavailable,
  };
}

// One request at a time: they share the decoder and the GPU buffers.
let chain: Promise<unknown> = Promise.resolve();
function serial<T>(f: () => Promise<T>): Promise<T> {
  const next = chain.then(f, f);
  chain = next.catch(() => undefined);
  return next;
}

const sendEvent = serveRpc<DecodeProtocol, DecodeEvent>(self as unknown as DedicatedWorkerGlobalScope, {
  init: ({ preferred: p, fault: f }) =>
    serial(async () => {
      decoder?.dispose();
      preferred = p;
      fault = f;
      decoder = await ResilientDecoder.create(selectOptions(preferred, true));
      decoder.subscribe(() => sendEvent({ status: status() }));
      return { status: status() };
    }),
  switch: ({ preferred: p }) =>
    serial(async () => {
      preferred = p;
      await decoder!.switchTo(preferred);
      return { status: status() };
    }),
  run: ({ contextTokens, steps }) => serial(async () => ({ result: await run(contextTokens, steps), status: status() })),
  compare: ({ cases, seed }) => serial(async () => ({ report: await compare(cases, seed), status: status() })),
  bench: ({ sizes, reps }) => serial(async () => ({ report: await bench(sizes, reps), status: status() })),
});
