/**
 * UI benchmark in headless Chromium: the cost of one scrub step (set the time → every page grid
 * redrawn for it and painted), p50 / p95 over random instants, on the full-scale scenario and on one
 * a tenth of its size; and the initial JS the page loads, gzipped.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';

const PORT = Number(process.env.BENCH_PORT ?? 4321);
const root = process.cwd();

const build = spawnSync('npx', ['vite', 'build'], { cwd: root, encoding: 'utf8' });
if (build.status !== 0) {
  console.error(build.stderr);
  process.exit(1);
}

// Initial JS: the entry script and every module it preloads (lazy chunks excluded).
const html = readFileSync(join(root, 'dist/index.html'), 'utf8');
const initial = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
let gz = 0;
for (const f of initial) gz += gzipSync(readFileSync(join(root, 'dist', f)), { level: 9 }).length;
console.log(`initial JS: ${initial.length} file(s), ${(gz / 1024).toFixed(1)} KiB gzip (target < 150 KiB)`);

const server = spawn('npx', ['vite', 'preview', '--host', '127.0.0.1', '--port', String(PORT), '--strictPort'], { cwd: root, stdio: 'ignore', detached: true });
const stop = () => {
  try {
    process.kill(-server.pid!);
  } catch {
    // already gone
  }
};
process.on('exit', stop);
await new Promise((r) => setTimeout(r, 2500));

const executablePath = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const browser = await chromium.launch({
  ...(executablePath ? { executablePath } : {}),
  args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-background-networking', '--disable-component-update'],
});

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
  for (let i = 0; i < 80; i++) {
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
  return { times, drawnTimes, nodes: canvases().length };
})()`;

const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'demo,matrix').split(',');
for (const scenario of SCENARIOS) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  const loadStart = Date.now();
  await page.goto(`http://127.0.0.1:${PORT}/?s=${scenario}&bench`);
  await page.waitForSelector('canvas[data-node]', { timeout: 300_000 });
  const loadMs = Date.now() - loadStart;
  const result = (await page.evaluate(SCRUB_IN_PAGE)) as { times: number[]; drawnTimes: number[]; nodes: number };
  const quantile = (xs: number[]) => {
    const sorted = [...xs].sort((a, b) => a - b);
    return (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  };
  const painted = quantile(result.times);
  const drawn = quantile(result.drawnTimes);
  console.log(
    `scrub step, scenario ${scenario}: drawn p50 ${drawn(0.5).toFixed(1)} / p95 ${drawn(0.95).toFixed(1)} ms; ` +
      `painted (next frame) p50 ${painted(0.5).toFixed(1)} / p95 ${painted(0.95).toFixed(1)} ms; ${result.times.length} random instants, ${result.nodes} node grids, first load ${loadMs} ms`,
  );
  await page.close();
}
await browser.close();
stop();
process.exit(0);
