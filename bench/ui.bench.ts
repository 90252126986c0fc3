/**
 * UI benchmark in headless Chromium against the built site:
 * - page opened → scrubber usable (the scrubber there and every page grid drawn once), median of
 *   BENCH_LOADS loads (default 3): the default incident scenario from its prebuilt run, against the
 *   same page with that file refused (it then replays live in the worker); `s=demo`, prebuilt too,
 *   against the page as it was: the file refused and the outcome matrix started at load;
 * - page opened → at rest (the page's own `data-settled`: nothing loading or playing, the layout still),
 *   the default page, against the page as it was: the first screen's probe replayed live in a worker
 *   (its prebuilt file refused) and the outcome matrix started at load — what every test paid per page;
 * - one scrub step (set the time → every grid redrawn for it, then painted), p50 / p95 over random
 *   instants, at full scale, beside the same step at a tenth of the volume; from a page that has
 *   settled (no request in flight, the browser idle), the first five steps (V8 still warming up)
 *   reported on their own as in the stage bench;
 * - switch → picture: from the default page, each switch flipped alone (then back), the time until the
 *   picture shows the new run (not the previous one kept meanwhile) and its grids are drawn, and the
 *   time until something says a run is coming (the progress line, or the new picture), p95 over every
 *   switch; beside the same flips with the switched runs' files refused, so that each replays live in
 *   the page's worker as every switch did before (the baseline);
 * - input answered during a live replay: keys pressed on the scrubber while each switch replays live,
 *   their latency from the Event Timing API (key to the next paint), p95, beside the page idle;
 * - the initial JS: every script the default page fetched before its scrubber was usable (entry,
 *   preloads, lazy chunks and workers alike, from the browser's request log), gzipped, beside all
 *   the site's JS; the same measure for `s=demo` and for the page in French (`lang=fr`).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { report, type BenchRow } from './table.ts';
import { DEFAULT_RUN_REQUEST, prebuiltRunFile } from '../scripts/prebuiltRuns.ts';
import { runKeyOf } from '../src/engine/runs/index.ts';
import { PROBE_SCALES, probeRequest } from '../src/engine/runs/probe.ts';
import { INCIDENT_SWITCHES, overridesOf } from '../src/engine/switches.ts';
import { launchChromium, serveSite } from './harness.ts';

const PORT = Number(process.env.BENCH_PORT ?? 4321);
/** The opening run's file name in the site (the one the switch baseline still lets through). */
const OPENING_RUN_FILE = prebuiltRunFile(runKeyOf(DEFAULT_RUN_REQUEST)).split('/').pop()!;
/** The first screen's probe's file (prebuilt since the page declares its rest; a page before replayed it live). */
const PROBE_RUN_FILE = prebuiltRunFile(runKeyOf(probeRequest(PROBE_SCALES.demo.initial, overridesOf(INCIDENT_SWITCHES)))).split('/').pop()!;
const LOADS = Number(process.env.BENCH_LOADS ?? 3);
const root = process.cwd();
const rows: BenchRow[] = [];

const build = spawnSync('npx', ['vite', 'build'], { cwd: root, encoding: 'utf8' });
if (build.status !== 0) {
  console.error(build.stderr);
  process.exit(1);
}

// All the site's JS, and what index.html references (the entry and the modules it preloads): the
// initial JS figure itself is what the page fetched before its first screen was usable, below.
const html = readFileSync(join(root, 'dist/index.html'), 'utf8');
const referenced = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
const gzipKiB = (files: string[]) => files.reduce((n, f) => n + gzipSync(readFileSync(join(root, 'dist', f)), { level: 9 }).length, 0) / 1024;
const allJs = readdirSync(join(root, 'dist/assets')).filter((f) => f.endsWith('.js')).map((f) => `assets/${f}`);

// Built above for the size line; served as built.
const { stop } = await serveSite(PORT, root, { build: false });
const browser = await launchChromium();

const USABLE_IN_PAGE = () => {
  const slider = document.querySelector('[role="slider"]');
  const grids = [...document.querySelectorAll('canvas[data-node]')] as HTMLCanvasElement[];
  return !!slider && grids.length > 0 && grids.every((c) => c.dataset.drawnT !== undefined);
};

/** The JS files (site paths) each kind of load fetched before its scrubber was usable. */
const jsBeforeUsable = new Map<string, Set<string>>();
const loadKey = (query: string, o: object) => `${query} ${JSON.stringify(o)}`;

/** ms from navigation to a usable scrubber with every grid drawn. */
async function openToUsable(query: string, o: { refuseRunFiles?: boolean; refuseProbeFile?: boolean; matrixAtLoad?: boolean; untilRest?: boolean } = {}): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  // Every script the page asks for (entry, preloads, lazy chunks, workers) until it is usable.
  const js: string[] = [];
  let usable = false;
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname.replace(/^\//, '');
    if (!usable && path.endsWith('.js')) js.push(path);
  });
  if (o.refuseRunFiles) await page.route('**/runs/*.run', (route) => route.abort());
  if (o.refuseProbeFile) await page.route(`**/${PROBE_RUN_FILE}`, (route) => route.abort());
  if (o.matrixAtLoad) {
    // As soon as the page's hook exists, start the matrix: what the closed matrix table did at load.
    await page.addInitScript(`(function poll() { const h = window.__stalePages; if (h) h.matrix(); else setTimeout(poll, 1); })()`);
  }
  const t0 = Date.now();
  await page.goto(`http://127.0.0.1:${PORT}/?${query}&bench`);
  await page.waitForFunction(USABLE_IN_PAGE, null, { timeout: 300_000, polling: 'raf' });
  if (o.untilRest) await page.waitForFunction(() => document.documentElement.dataset.settled === 'true', null, { timeout: 300_000, polling: 'raf' });
  const ms = Date.now() - t0;
  usable = true;
  const key = loadKey(query, o);
  const seen = jsBeforeUsable.get(key) ?? new Set<string>();
  for (const f of js) seen.add(f);
  jsBeforeUsable.set(key, seen);
  await context.close();
  return ms;
}

async function loads(query: string, o: Parameters<typeof openToUsable>[1] = {}): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < LOADS; i++) out.push(await openToUsable(query, o));
  return out.sort((a, b) => a - b);
}
const median = (xs: number[]) => xs[Math.floor(xs.length / 2)]!;
const range = (xs: number[]) => `${LOADS} loads ${(xs[0]! / 1000).toFixed(2)}–${(xs[xs.length - 1]! / 1000).toFixed(2)} s`;

await openToUsable('s=demo'); // warm the server and the browser
const incident = await loads('s=incident');
const incidentLive = await loads('s=incident', { refuseRunFiles: true });
const demo = await loads('s=demo');
const demoMatrix = await loads('s=demo', { refuseRunFiles: true, matrixAtLoad: true });
const rest = await loads('s=incident', { untilRest: true });
const restBefore = await loads('s=incident', { untilRest: true, refuseProbeFile: true, matrixAtLoad: true });
await openToUsable('s=incident&lang=fr'); // for its initial JS only: French text comes on top of the first screen's
// Initial JS: what the default page fetched before it was usable (over all its loads), gzipped.
const initial = [...(jsBeforeUsable.get(loadKey('s=incident', {})) ?? [])].sort();
const missing = referenced.filter((f) => !initial.includes(f));
if (missing.length > 0) console.log(`note: index.html references ${missing.join(', ')}, not fetched before usable`);
const initialKiB = gzipKiB(initial);
console.log(`initial JS (fetched before the scrubber was usable): ${initial.length} file(s), ${initialKiB.toFixed(1)} KiB gzip: ${initial.join(', ')}`);
console.log(`referenced by index.html: ${referenced.length} file(s), ${gzipKiB(referenced).toFixed(1)} KiB; all ${allJs.length} JS files ${gzipKiB(allJs).toFixed(1)} KiB`);
rows.push({ what: 'initial JS, gzip', now: initialKiB, unit: 'KiB', detail: `${initial.length} files fetched before usable`, baselineLabel: 'all JS of the site', baseline: gzipKiB(allJs), goal: 150 });
// The same measure for the other openings people are sent to: the demo, and the page in French.
for (const [label, query] of [['s=demo', 's=demo'], ['lang=fr', 's=incident&lang=fr']] as const) {
  const files = [...(jsBeforeUsable.get(loadKey(query, {})) ?? [])].sort();
  console.log(`initial JS, ${label}: ${files.length} file(s), ${gzipKiB(files).toFixed(1)} KiB gzip: ${files.filter((f) => !initial.includes(f)).join(', ') || 'the same files'}${initial.some((f) => !files.includes(f)) ? ` (not: ${initial.filter((f) => !files.includes(f)).join(', ')})` : ''}`);
  rows.push({ what: `initial JS, gzip, ${label}`, now: gzipKiB(files), unit: 'KiB', detail: `${files.length} files fetched before usable`, baselineLabel: 'default page', baseline: initialKiB, goal: 150 });
}
rows.push({ what: 'page opened → scrubber usable, incident', now: median(incident) / 1000, unit: 's', detail: range(incident), baselineLabel: 'live replay', baseline: median(incidentLive) / 1000, goal: 1.0 });
rows.push({ what: 'page opened → at rest (data-settled), incident', now: median(rest) / 1000, unit: 's', detail: range(rest), baselineLabel: 'probe live, matrix at load', baseline: median(restBefore) / 1000, goal: 3.0 });
rows.push({ what: 'page opened → scrubber usable, s=demo', now: median(demo) / 1000, unit: 's', detail: range(demo), baselineLabel: 'live, matrix at load', baseline: median(demoMatrix) / 1000, goal: 0.3 });

// Runs in the page. A string, not a function: the TS runner would inject helpers the page lacks.
const SCRUB_IN_PAGE = `(async () => {
  const hook = window.__stalePages;
  const end = Number(document.querySelector('[role="slider"]').getAttribute('aria-valuemax'));
  const canvases = () => [...document.querySelectorAll('canvas[data-node]')];
  const drawn = (t) => canvases().every((c) => c.dataset.drawnT === String(t));
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const times = [];
  const drawnTimes = [];
  for (let i = 0; i < 85; i++) {
    const target = Math.floor(rand() * end);
    const t0 = performance.now();
    hook.seek(target);
    // Resolved by the attribute write that follows each grid's draw, then one frame for the paint.
    await new Promise((resolve) => {
      if (drawn(target)) return resolve();
      const mo = new MutationObserver(() => { if (drawn(target)) { mo.disconnect(); resolve(); } });
      for (const c of canvases()) mo.observe(c, { attributes: true, attributeFilter: ['data-drawn-t'] });
    });
    const drawnAt = performance.now() - t0;
    await new Promise((r) => requestAnimationFrame(() => r(null)));
    drawnTimes.push(drawnAt);
    times.push(performance.now() - t0);
  }
  return { warmup: drawnTimes.slice(0, 5), times: times.slice(5), drawnTimes: drawnTimes.slice(5), nodes: canvases().length };
})()`;

const quantile = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
};
async function scrub(scenario: string) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(`http://127.0.0.1:${PORT}/?s=${scenario}&bench`);
  await page.waitForFunction(USABLE_IN_PAGE, null, { timeout: 300_000, polling: 'raf' });
  await page.waitForLoadState('networkidle');
  await page.evaluate('new Promise((resolve) => requestIdleCallback(() => requestIdleCallback(resolve), { timeout: 5000 }))');
  const result = (await page.evaluate(SCRUB_IN_PAGE)) as { warmup: number[]; times: number[]; drawnTimes: number[]; nodes: number };
  await page.close();
  const painted = quantile(result.times);
  const drawn = quantile(result.drawnTimes);
  console.log(`scrub step, ${scenario}: drawn p50 ${drawn(0.5).toFixed(1)} / p95 ${drawn(0.95).toFixed(1)} ms; painted p50 ${painted(0.5).toFixed(1)} / p95 ${painted(0.95).toFixed(1)} ms; ${result.times.length} instants, ${result.nodes} grids; the first five steps, left out: ${result.warmup.map((x) => x.toFixed(1)).join(', ')} ms`);
  return { painted, drawn };
}
// Runs in the page: flips each switch from the default, waits for its picture, flips it back.
const SWITCHES_IN_PAGE = `(async () => {
  const hook = window.__stalePages;
  const frame = () => new Promise((r) => requestAnimationFrame(() => r(null)));
  const settle = async () => { while (!hook.shownRun()) await frame(); await frame(); await frame(); };
  await settle();
  const base = hook.shownRun();
  const keys = Object.keys(hook.state().switches);
  const out = [];
  for (const key of keys) {
    const on = hook.state().switches[key];
    const t0 = performance.now();
    hook.state().setSwitch(key, !on);
    let told = null;
    let shown = null;
    while (shown === null) {
      await frame();
      const now = performance.now() - t0;
      const run = hook.shownRun();
      if (told === null && (document.querySelector('[data-testid="replay-progress"]') || (run && run !== base))) told = now;
      if (run && run !== base && [...document.querySelectorAll('canvas[data-node]')].every((c) => c.dataset.drawnT !== undefined)) shown = now;
      if (now > 300000) throw new Error('no picture for ' + key);
    }
    out.push({ key, told, shown });
    hook.state().setSwitch(key, on);
    while (hook.shownRun() !== base) await frame();
    await frame();
  }
  return out;
})()`;

/**
 * Input while a replay runs: the Event Timing API's `keydown` entries (from the key's hardware time to
 * the next paint after its handlers, what Chromium calls an interaction's latency), for keys pressed on
 * the timeline's scrubber every 120 ms while each switch replays live. Entries only exist for events
 * of 16 ms or more, so a press without one was answered faster than that.
 */
const INPUT_OBSERVER = `(() => {
  window.__keyLatencies = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.name === 'keydown') window.__keyLatencies.push(e.duration);
  }).observe({ type: 'event', durationThreshold: 16, buffered: true });
})()`;

async function switchToPicture(refuseFlipped: boolean, pressKeys = false) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  // The baseline: every run file but the opening one refused, so each switch replays live.
  if (refuseFlipped) {
    const opening = readdirSync(join(root, 'dist/runs'));
    await page.route('**/runs/*.run', async (route) => {
      const file = new URL(route.request().url()).pathname.split('/').pop()!;
      if (file === OPENING_RUN_FILE && opening.includes(file)) await route.continue();
      else await route.abort();
    });
  }
  await page.goto(`http://127.0.0.1:${PORT}/?s=incident&bench`);
  await page.waitForFunction(USABLE_IN_PAGE, null, { timeout: 300_000, polling: 'raf' });
  await page.waitForLoadState('networkidle');
  let presses = 0;
  let done = false;
  if (pressKeys) {
    await page.evaluate(INPUT_OBSERVER);
    await page.focus('#scrubber');
  }
  const flips = page.evaluate(SWITCHES_IN_PAGE).finally(() => (done = true));
  while (pressKeys && !done) {
    // Only while a replay is under way: the question is whether the page answers during one.
    if (await page.locator('[data-testid="replay-progress"]').count()) {
      await page.keyboard.press(presses % 2 ? 'ArrowLeft' : 'ArrowRight');
      presses++;
    }
    await page.waitForTimeout(120);
  }
  const result = (await flips) as { key: string; told: number; shown: number }[];
  const slow = pressKeys ? ((await page.evaluate('window.__keyLatencies')) as number[]) : [];
  await context.close();
  if (pressKeys) {
    // Presses without an entry took under 16 ms: count them at 16 so the quantile is an upper bound.
    const latencies = [...slow, ...Array.from({ length: Math.max(0, presses - slow.length) }, () => 16)];
    console.log(`input during live replays: ${presses} key presses, ${slow.length} of them 16 ms or more: ${slow.map((d) => d.toFixed(0)).join(', ')} ms`);
    return { shown: quantile(result.map((r) => r.shown)), told: quantile(result.map((r) => r.told)), n: result.length, input: quantile(latencies.length ? latencies : [0]), presses };
  }
  console.log(`switch → picture${refuseFlipped ? ', live replay (files refused)' : ''}: ${result.map((r) => `${r.key} ${r.shown.toFixed(0)} ms (told ${r.told.toFixed(0)})`).join(', ')}`);
  return { shown: quantile(result.map((r) => r.shown)), told: quantile(result.map((r) => r.told)), n: result.length };
}
/** Keys pressed on the scrubber of a settled page, with no replay: the input baseline. */
async function inputWhileIdle() {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(`http://127.0.0.1:${PORT}/?s=incident&bench`);
  await page.waitForFunction(USABLE_IN_PAGE, null, { timeout: 300_000, polling: 'raf' });
  await page.waitForLoadState('networkidle');
  await page.evaluate(INPUT_OBSERVER);
  await page.focus('#scrubber');
  const presses = 40;
  for (let i = 0; i < presses; i++) {
    await page.keyboard.press(i % 2 ? 'ArrowLeft' : 'ArrowRight');
    await page.waitForTimeout(120);
  }
  const slow = (await page.evaluate('window.__keyLatencies')) as number[];
  await page.close();
  return quantile([...slow, ...Array.from({ length: Math.max(0, presses - slow.length) }, () => 16)]);
}
const switched = await switchToPicture(false);
const switchedLive = await switchToPicture(true);
rows.push({ what: 'switch → picture (p95 over every switch)', now: switched.shown(0.95) / 1000, unit: 's', detail: `p50 ${(switched.shown(0.5) / 1000).toFixed(2)} s, ${switched.n} switches`, baselineLabel: 'live replay', baseline: switchedLive.shown(0.95) / 1000, goal: 0.5 });
// The same live replays again, with keys pressed on the scrubber while each runs; the baseline is the
// page idle (keys pressed with no replay under way).
const pressedDuringReplay = await switchToPicture(true, true);
const idleInput = await inputWhileIdle();
rows.push({ what: 'input answered during a live replay (p95)', now: pressedDuringReplay.input!(0.95), unit: 'ms', detail: `p50 ${pressedDuringReplay.input!(0.5).toFixed(0)} ms, ${pressedDuringReplay.presses} presses; 16 = under 16 ms`, baselineLabel: 'page idle', baseline: idleInput(0.95), goal: 100 });
rows.push({ what: 'switch → progress or picture (p95)', now: switched.told(0.95), unit: 'ms', detail: `p50 ${switched.told(0.5).toFixed(0)} ms`, baselineLabel: 'live replay', baseline: switchedLive.told(0.95), goal: 100 });

const full = await scrub('incident');
const tenth = await scrub('incident&vol=60');
rows.push({ what: 'scrub step, full scale, drawn (p95)', now: full.drawn(0.95), unit: 'ms', detail: `p50 ${full.drawn(0.5).toFixed(1)} ms`, baselineLabel: 'tenth volume', baseline: tenth.drawn(0.95), goal: 8 });
rows.push({ what: 'scrub step, painted, next frame (p95)', now: full.painted(0.95), unit: 'ms', detail: `p50 ${full.painted(0.5).toFixed(1)} ms`, baselineLabel: 'tenth volume', baseline: tenth.painted(0.95), goal: 16.7 });
report(rows);
await browser.close();
stop();
process.exit(0);
