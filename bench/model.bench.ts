/**
 * npm run bench -- model
 *
 * The trained transformer's speed, beside the compressed model's in the same run:
 *  - JS decode tokens/s over 1,024 / 16,384 / 65,536 tokens of paged context (a shuffled block table
 *    over seeded random K and V), with the attention shares the engine records, and without;
 *  - JS prefill of a 2,000-token prompt;
 *  - the compressed model's decode over a context of the same length (its grouped steps), as baseline;
 *  - WebGPU decode tokens/s at the same sizes, in headless Chromium (`--enable-unsafe-webgpu`): here a
 *    software adapter, whose figures show the kernels run, not how fast a GPU is. BENCH_NO_GPU=1 skips it.
 * Steps per size: BENCH_STEPS (default 24; a third of that at 65,536), after 4 warm-up steps; the
 * median step is reported (the machine is shared), with the rate from CPU time beside it.
 */
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { chromium } from '@playwright/test';
import { existsSync } from 'node:fs';
import { buildDecodeModel, generate, type KvContext } from '../src/engine/attention.ts';
import { INCIDENT_CONFIG } from '../src/engine/config.ts';
import { WEIGHTS_PATH } from '../src/engine/model/recipe.ts';
import { modelVocabulary } from '../src/engine/model/train.ts';
import { DecodeState, decodeStep, decodeWeights, parameterCount, prefill, type StepAttention } from '../src/engine/model/transformer.ts';
import { PageTensors } from '../src/engine/model/kvTensors.ts';
import { Prng } from '../src/engine/core/prng.ts';
import { tenantCorpus } from '../src/engine/core/vocab.ts';
import { randomContext, type ModelSpeedRow } from '../src/gpu/modelAgreement.ts';
import { gpuCheckBundle } from '../tools/gpuCheckBundle.ts';
import { report, type BenchRow } from './table.ts';

const SIZES = [1_024, 16_384, 65_536];
const STEPS = Number(process.env.BENCH_STEPS ?? 24);
const PORT = Number(process.env.BENCH_PORT ?? 4304);
const weightsFile = new URL(`../public/${WEIGHTS_PATH}`, import.meta.url);
const bytes = new Uint8Array(readFileSync(weightsFile));
const { weights } = decodeWeights(bytes);
const s = weights.shape;
const stepsAt = (size: number) => (size >= 65_536 ? Math.max(4, Math.round(STEPS / 3)) : STEPS);

/** Per-step timing: the median wall time (what a step takes when the machine lets it) and the mean CPU time. */
interface StepTimes {
  tokensPerSecond: number;
  cpuTokensPerSecond: number;
}

function timeSteps(steps: number, step: (i: number) => void): StepTimes {
  const wall: number[] = [];
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < steps; i++) {
    const started = performance.now();
    step(i);
    wall.push(performance.now() - started);
  }
  const cpuMs = process.cpuUsage(cpu0).user / 1000;
  wall.sort((a, b) => a - b);
  return { tokensPerSecond: 1000 / wall[Math.floor(steps / 2)]!, cpuTokensPerSecond: steps / (cpuMs / 1000) };
}

function jsDecode(size: number, withShares: boolean): StepTimes {
  const ctx = randomContext(weights, size, `speed-${size}`);
  const paged = { tensors: ctx.tensors, pageSize: ctx.pageSize, blockTable: ctx.blockTable, seqLen: ctx.seqLen };
  const steps = stepsAt(size);
  const warm = 4;
  const state = new DecodeState(weights, steps + warm);
  const attention: StepAttention | null = withShares ? { slotShare: new Float64Array(size), tailShare: new Float64Array(steps + warm), headSlotShare: null } : null;
  for (let i = 0; i < warm; i++) decodeStep(state, ctx.first, size + i, paged, attention);
  return timeSteps(steps, (i) => decodeStep(state, ctx.first, size + warm + i, paged, attention));
}

/** The compressed model over a context of `size` slots of random tokens: tokens/s of a whole decode. */
function compressedDecode(size: number): number {
  const vocab = modelVocabulary();
  const model = buildDecodeModel(vocab.size, INCIDENT_CONFIG.model);
  const rng = new Prng(`compressed-${size}`);
  const values = Uint16Array.from({ length: size }, () => 3 + rng.int(vocab.size - 3));
  const keys = Uint16Array.from({ length: size }, (_, i) => (i === 0 ? 2 : values[i - 1]!));
  const ctx: KvContext = { keyTokens: keys, valueTokens: values, slotWriter: new Int32Array(size), pageSize: 16, blockTable: Int32Array.from({ length: size / 16 }, (_, i) => i), seqLen: size };
  const steps = stepsAt(size);
  const who = { requestTenant: [0], tenant: 0 };
  generate(model, ctx, who, { query: 5, steps });
  const started = performance.now();
  generate(model, ctx, who, { query: 5, steps });
  return steps / ((performance.now() - started) / 1000);
}

function jsPrefill(tokens: number): number {
  const vocab = modelVocabulary();
  const doc = tenantCorpus(vocab, { name: 'acme', topic: 'invoices', canary: true }, 'bench', tokens);
  const tensors = new PageTensors(tokens, s.layers, s.dim, s.heads);
  prefill(weights, doc.subarray(0, 200), 0, { tensors, pageSize: tokens, blockTable: [0] });
  const started = performance.now();
  prefill(weights, doc, 0, { tensors, pageSize: tokens, blockTable: [0] });
  return (performance.now() - started) / 1000;
}

async function gpuSpeed(): Promise<{ adapter: string; isFallbackAdapter: boolean; rows: ModelSpeedRow[] } | string> {
  if (process.env.BENCH_NO_GPU) return 'skipped (BENCH_NO_GPU)';
  const bundle = await gpuCheckBundle();
  const server = createServer((req, res) => {
    if (req.url === `/${WEIGHTS_PATH}`) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.from(bytes));
    } else {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>model bench</title>');
    }
  });
  await new Promise<void>((resolve) => server.listen(PORT, '127.0.0.1', resolve));
  const executablePath = process.env.PW_CHROMIUM || ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  const browser = await chromium.launch({
    ...(executablePath ? { executablePath } : {}),
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--enable-unsafe-webgpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${PORT}/`);
    await page.addScriptTag({ type: 'module', content: bundle });
    await page.waitForFunction(() => 'stalePagesModelCheck' in globalThis);
    const steps = Object.fromEntries(SIZES.map((n) => [n, Math.max(2, Math.round(stepsAt(n) / 4))]));
    const rows: ModelSpeedRow[] = [];
    let meta = { adapter: '', isFallbackAdapter: false };
    for (const size of SIZES) {
      const r = (await page.evaluate(
        async ([path, size, steps]) => {
          const b = new Uint8Array(await (await fetch(`/${path}`)).arrayBuffer());
          const check = (globalThis as unknown as { stalePagesModelCheck: { speed: (g: unknown, b: Uint8Array, s: number[], n: number) => Promise<unknown> } }).stalePagesModelCheck;
          return check.speed((navigator as unknown as { gpu: unknown }).gpu, b, [size], steps);
        },
        [WEIGHTS_PATH, size, steps[size]!] as const,
      )) as { adapter: string; isFallbackAdapter: boolean; rows: ModelSpeedRow[] };
      rows.push(...r.rows);
      meta = r;
    }
    return { adapter: meta.adapter, isFallbackAdapter: meta.isFallbackAdapter, rows };
  } catch (e) {
    return `unavailable (${(e as Error).message.split('\n')[0]})`;
  } finally {
    await browser.close();
    server.close();
  }
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });
console.log(`transformer: ${s.layers} layers × ${s.heads} heads, dim ${s.dim}, MLP ${s.hidden}, ${fmt(parameterCount(s))} parameters; decode steps per size ${SIZES.map(stepsAt).join(' / ')}`);
const rows: BenchRow[] = [];
const js = SIZES.map((n) => ({ n, shares: jsDecode(n, true), plain: jsDecode(n, false), compressed: compressedDecode(n) }));
const prefillSeconds = Math.min(jsPrefill(2000), jsPrefill(2000), jsPrefill(2000));
const gpu = await gpuSpeed();
console.log('');
console.log('decode tokens/s: JS from the median step (and from CPU time, which other processes on the machine disturb less)');
console.log(`${'context tokens'.padStart(15)}  ${'JS (shares)'.padStart(18)}  ${'JS (no shares)'.padStart(18)}  ${'WebGPU'.padStart(8)}  ${'compressed (baseline)'.padStart(22)}`);
for (const r of js) {
  const g = typeof gpu === 'string' ? null : gpu.rows.find((x) => x.contextTokens === r.n);
  const both = (t: StepTimes) => `${fmt(t.tokensPerSecond)} (${fmt(t.cpuTokensPerSecond)} cpu)`;
  console.log(`${fmt(r.n).padStart(15)}  ${both(r.shares).padStart(18)}  ${both(r.plain).padStart(18)}  ${(g ? g.tokensPerSecond.toFixed(1) : '—').padStart(8)}  ${fmt(r.compressed).padStart(22)}`);
}
console.log(`WebGPU: ${typeof gpu === 'string' ? gpu : `${gpu.adapter}${gpu.isFallbackAdapter ? ' (a software adapter: shows the kernels run, not how fast a GPU is)' : ''}`}`);
console.log(`JS prefill of a 2,000-token prompt: ${prefillSeconds.toFixed(2)} s (${fmt(2000 / prefillSeconds)} tokens/s; best of 3)`);
for (const r of js) {
  rows.push({ what: `transformer decode, JS, ${fmt(r.n)} context (ms/token)`, now: 1000 / r.shares.tokensPerSecond, unit: 'ms', detail: `${fmt(r.shares.tokensPerSecond)} tok/s; ${fmt(r.shares.cpuTokensPerSecond)} by CPU time`, baselineLabel: 'compressed model', baseline: 1000 / r.compressed, goal: r.n === 16_384 ? 1000 / 300 : null });
}
if (typeof gpu !== 'string') {
  for (const g of gpu.rows) {
    const base = js.find((r) => r.n === g.contextTokens)!;
    rows.push({ what: `transformer decode, WebGPU, ${fmt(g.contextTokens)} context (ms/token)`, now: 1000 / g.tokensPerSecond, unit: 'ms', detail: gpu.isFallbackAdapter ? 'software adapter' : gpu.adapter, baselineLabel: 'JS', baseline: 1000 / base.shares.tokensPerSecond, goal: null });
  }
}
rows.push({ what: 'transformer prefill, 2,000 tokens, JS', now: prefillSeconds, unit: 's', detail: `${fmt(2000 / prefillSeconds)} tok/s`, baselineLabel: 'none', baseline: null, goal: 1 });
report(rows);
