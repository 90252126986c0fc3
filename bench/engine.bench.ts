/**
 * Engine benchmark: requests simulated per second on a mixed trace (audit on, and off as the
 * baseline), one decode step over a 1,048,576-token block table (grouped decode vs the per-slot
 * reference), and the memory each node's KV pool holds.
 */
import {
  INCIDENT_CONFIG,
  KvPool,
  Prng,
  Simulation,
  TENANT_NAMES,
  buildDecodeModel,
  generate,
  generateNaive,
  type KvContext,
  type Trace,
} from '../src/engine/index.ts';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function time(fn: () => void, runs: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    out.push(performance.now() - t0);
  }
  return out;
}

/** 2,000 requests from 20 tenants over ~3 hours: mostly short prompts, a long tail, 20 over-capacity. */
function mixedTrace(): Trace {
  const rng = new Prng('bench-mixed');
  const tenants = TENANT_NAMES.slice(0, 20);
  const requests = Array.from({ length: 2000 }, (_, i) => {
    const u = rng.next();
    const promptTokens = i % 100 === 99 ? 700_000 + rng.int(300_000) : Math.floor(500 + 4000 * Math.pow(u, 3) + (u > 0.97 ? 150_000 * rng.next() : 0));
    return { id: `m${i}`, at: i * 5_000, tenant: tenants[rng.int(tenants.length)]!, promptTokens };
  });
  return { version: 1, name: 'mixed', tenants: tenants.map((name) => ({ name })), requests };
}

const trace = mixedTrace();
const totalTokens = trace.requests.reduce((a, r) => a + r.promptTokens, 0);
console.log(`mixed trace: ${trace.requests.length} requests, ${(totalTokens / 1e6).toFixed(1)} M prompt tokens`);
for (const audit of [false, true]) {
  const times = time(() => new Simulation(INCIDENT_CONFIG, trace, { keepEvents: false, audit }).run(), 3);
  const ms = median(times);
  console.log(`  simulate, audit ${audit ? 'on ' : 'off'}: ${ms.toFixed(0)} ms median of 3 → ${(trace.requests.length / (ms / 1000)).toFixed(0)} requests/s`);
}

// One decode step over a full-size block table of a warm pool.
const tokens = 1_048_576;
const pool = new KvPool('decode', 0, 1_310_720, 64);
const pages = pool.allocate(tokens / 64, 0)!;
const rng = new Prng('bench-decode');
const words = Uint16Array.from({ length: tokens }, () => 3 + rng.int(120));
pool.writeTokens(pages, words, 2, 0, 0, 0);
const model = buildDecodeModel(200, INCIDENT_CONFIG.model);
const ctx: KvContext = { keyTokens: pool.keyTokens, valueTokens: pool.valueTokens, slotWriter: pool.slotWriter, pageSize: 64, blockTable: pages, seqLen: tokens };
const who = { requestTenant: [0], tenant: 1 };
generate(model, ctx, who, { query: 5, steps: 1 }); // warm up the JIT
const grouped = median(time(() => generate(model, ctx, who, { query: 5, steps: 1 }), 7));
const groupedPerStep = (median(time(() => generate(model, ctx, who, { query: 5, steps: 24 }), 3)) - grouped) / 23;
const naive = median(time(() => generateNaive(model, ctx, who, { query: 5, steps: 1 }), 3));
console.log(`decode over a 1,048,576-token block table (16,384 pages):`);
console.log(`  grouped (engine): first step ${grouped.toFixed(1)} ms (one pass over every slot), each further step ${groupedPerStep.toFixed(3)} ms`);
console.log(`  per-slot reference (baseline): ${naive.toFixed(1)} ms per step → grouped first step is ${(naive / grouped).toFixed(1)}× faster`);

const sim = new Simulation(INCIDENT_CONFIG, { version: 1, tenants: [{ name: 'acme' }], requests: [] });
console.log('memory per node (typed arrays):');
for (const n of sim.memoryByNode()) console.log(`  ${n.node}: ${(n.bytes / 2 ** 20).toFixed(1)} MiB for ${n.pages.toLocaleString('en-US')} pages`);
globalThis.gc?.();
console.log(`process heap after: ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB used, rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
