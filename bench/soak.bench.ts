/**
 * Soak: the built page in headless Chromium, playing the whole incident window at the highest speed
 * (36,000×, from the start again whenever it ends) for `--minutes=N` (default 10; SOAK_MINUTES too),
 * switching a defect or mitigation and the comparison once a minute (`--every=S` seconds). Reports
 * the JS heap (after a forced GC) and the DOM node count at the start and the end, in the same
 * state (the default switches, no comparison, paused). The start is taken after a warm-up
 * (`--warm=S`, default a fifth of the time, at least two switches) in which the page fills what it
 * keeps by design (the runs react-query caches, the three kept run workers, the matrix); the
 * figure at load is printed too. Growth goal ≤ 10 %; no worker left behind: at the end no more
 * than the page keeps (3 run workers + the matrix's), and Chromium runs no worker the page lost.
 * `--snapshots` also takes a heap snapshot at the start and the end and prints what grew, by
 * constructor (count and retained-by-self bytes), to find what holds the growth.
 * Only `npm run bench -- soak` runs it.
 */
import type { Page } from '@playwright/test';
import { report } from './table.ts';
import { launchChromium, serveSite } from './harness.ts';

const flag = (name: string, fallback: number) => {
  const arg = process.argv.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.split('=')[1]) : fallback;
};
const MINUTES = flag('minutes', Number(process.env.SOAK_MINUTES ?? 10));
const EVERY_S = flag('every', 60);
const WARM_S = flag('warm', Math.max(2 * EVERY_S, (MINUTES * 60) / 5));
const SNAPSHOTS = process.argv.includes('--snapshots');
const KEPT_WORKERS = 3 + 1; // runClient's MAX_KEPT_WORKERS run workers and the matrix's
const PORT = Number(process.env.BENCH_PORT ?? 4321);
const root = process.cwd();

const { stop } = await serveSite(PORT, root);
const browser = await launchChromium();
const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
const cdp = await page.context().newCDPSession(page);
await page.goto(`http://127.0.0.1:${PORT}/?s=incident&bench`);

const settled = () =>
  page.waitForFunction(
    () => {
      const grids = [...document.querySelectorAll('canvas[data-node]')] as HTMLCanvasElement[];
      return grids.length > 0 && grids.every((c) => c.dataset.drawnT !== undefined) && !document.querySelector('[data-testid="replay-progress"]');
    },
    null,
    { timeout: 600_000, polling: 500 },
  );

type Sample = { heapMB: number; nodes: number; listeners: number; workers: number; workerNames: string[]; byConstructor?: Map<string, [number, number]> };

/** A heap snapshot of the page, summed by node type and constructor name: [count, self bytes]. */
async function snapshotByConstructor(): Promise<Map<string, [number, number]>> {
  const chunks: string[] = [];
  const onChunk = (e: { chunk: string }) => chunks.push(e.chunk);
  cdp.on('HeapProfiler.addHeapSnapshotChunk', onChunk);
  await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
  cdp.off('HeapProfiler.addHeapSnapshotChunk', onChunk);
  const snap = JSON.parse(chunks.join('')) as { snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[]; strings: string[] };
  const fields = snap.snapshot.meta.node_fields;
  const [typeAt, nameAt, sizeAt] = [fields.indexOf('type'), fields.indexOf('name'), fields.indexOf('self_size')];
  const types = snap.snapshot.meta.node_types[0];
  const out = new Map<string, [number, number]>();
  for (let i = 0; i < snap.nodes.length; i += fields.length) {
    const type = types[snap.nodes[i + typeAt]!]!;
    const key = type === 'object' || type === 'closure' ? `${type} ${snap.strings[snap.nodes[i + nameAt]!]}` : type;
    const e = out.get(key) ?? [0, 0];
    e[0]++;
    e[1] += snap.nodes[i + sizeAt]!;
    out.set(key, e);
  }
  return out;
}

function printGrowth(a: Map<string, [number, number]>, b: Map<string, [number, number]>): void {
  const rows = [...new Set([...a.keys(), ...b.keys()])].map((k) => {
    const [n0, s0] = a.get(k) ?? [0, 0];
    const [n1, s1] = b.get(k) ?? [0, 0];
    return { k, dn: n1 - n0, ds: s1 - s0 };
  });
  rows.sort((x, y) => y.ds - x.ds);
  console.log('heap growth by constructor (start → end, self bytes):');
  for (const r of rows.slice(0, 15)) console.log(`  ${(r.ds / 1024).toFixed(0).padStart(8)} KB ${String(r.dn).padStart(8)} objects  ${r.k.slice(0, 90)}`);
}
async function sample(p: Page): Promise<Sample> {
  await p.evaluate(`(() => { const s = window.__stalePages.state(); s.set({ playing: false, compare: null, time: 0 }); })()`);
  await p.evaluate(`(() => { const s = window.__stalePages.state(); for (const [k, v] of Object.entries(window.__soakSwitches)) s.setSwitch(k, v); })()`);
  await settled();
  await p.waitForTimeout(1000);
  for (let i = 0; i < 3; i++) await cdp.send('HeapProfiler.collectGarbage');
  const heap = (await cdp.send('Runtime.getHeapUsage')) as { usedSize: number };
  const dom = (await cdp.send('Memory.getDOMCounters')) as { nodes: number; jsEventListeners: number };
  const workerNames = (await p.evaluate('window.__stalePages.workers()')) as string[];
  const byConstructor = SNAPSHOTS ? await snapshotByConstructor() : undefined;
  return { heapMB: heap.usedSize / 1024 / 1024, nodes: dom.nodes, listeners: dom.jsEventListeners, workers: p.workers().length, workerNames, ...(byConstructor ? { byConstructor } : {}) };
}

await settled();
await page.evaluate(`window.__soakSwitches = { ...window.__stalePages.state().switches }`);
const keys = (await page.evaluate('Object.keys(window.__soakSwitches)')) as string[];
await page.waitForTimeout(5000);
const describe = (s: Sample) => `heap ${s.heapMB.toFixed(1)} MB, ${s.nodes} DOM nodes, ${s.listeners} listeners, ${s.workers} workers (${s.workerNames.join(', ')})`;
console.log(`at load: ${describe(await sample(page))}`);
let start: Sample | null = null;

const t0 = Date.now();
let minute = 0;
// A refused deployment (a capacity check switched on) has no timeline to play: wait for the next switch.
const PLAY = `(() => { const s = window.__stalePages.state(); const slider = document.querySelector('[role="slider"]'); if (!slider) return; const end = Number(slider.getAttribute('aria-valuemax')); if (!s.playing || s.time >= end) s.set({ time: s.time >= end ? 0 : s.time, playing: true, speed: 36000 }); })()`;
while (Date.now() - t0 < MINUTES * 60_000) {
  if (!start && Date.now() - t0 >= WARM_S * 1000) {
    start = await sample(page);
    console.log(`start (after ${(WARM_S / 60).toFixed(1)} min of warm-up): ${describe(start)}`);
  }
  const key = keys[minute % keys.length]!;
  const compare = minute % 2 === 0 ? keys[(minute + 1) % keys.length]! : null;
  await page.evaluate(`(() => { const s = window.__stalePages.state(); s.setSwitch(${JSON.stringify(key)}, !s.switches[${JSON.stringify(key)}]); s.set({ compare: ${JSON.stringify(compare)} }); })()`);
  minute++;
  const until = Math.min(t0 + MINUTES * 60_000, Date.now() + EVERY_S * 1000);
  while (Date.now() < until) {
    await page.evaluate(PLAY);
    await page.waitForTimeout(500);
  }
  console.log(`${((Date.now() - t0) / 60_000).toFixed(1)} min: switched ${key}${compare ? `, comparing with ${compare}` : ''}; ${page.workers().length} workers`);
}
start ??= await sample(page);
const end = await sample(page);
console.log(`end: ${describe(end)}`);
if (start.byConstructor && end.byConstructor) printGrowth(start.byConstructor, end.byConstructor);
const growth = (a: number, b: number) => (b - a) / a;
report([
  { what: `soak ${MINUTES} min: JS heap growth`, now: 100 * growth(start.heapMB, end.heapMB), unit: '%', detail: `${start.heapMB.toFixed(1)} → ${end.heapMB.toFixed(1)} MB`, baselineLabel: 'start', baseline: 0, goal: 10 },
  { what: `soak ${MINUTES} min: DOM node growth`, now: 100 * growth(start.nodes, end.nodes), unit: '%', detail: `${start.nodes} → ${end.nodes}`, baselineLabel: 'start', baseline: 0, goal: 10 },
  { what: `soak ${MINUTES} min: workers alive at the end`, now: end.workers, unit: 'n', detail: `${end.workerNames.length} known to the page`, baselineLabel: 'start', baseline: start.workers, goal: Math.min(KEPT_WORKERS, end.workerNames.length) },
]);
await browser.close();
stop();
process.exit(0);
