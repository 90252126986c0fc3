/**
 * Page opened → scrubber usable, in headless Chromium against the built site: the time from
 * navigation until the scrubber is there and every page grid has drawn its first instant. The
 * default incident scenario loads its prebuilt run; its baseline is the same page with that file
 * refused (the page then replays live in the worker, as before the file existed). `s=demo` runs
 * live either way; its baseline is the same page with the outcome matrix opened at once, so that
 * it is computed while the first run is (what every page load did before the matrix waited).
 * Reports median and range over `BENCH_LOADS` loads (default 3). Run by `npm run bench`.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from '@playwright/test';
import { report, type BenchRow } from './table.ts';

const PORT = Number(process.env.BENCH_PORT ?? 4321);
const LOADS = Number(process.env.BENCH_LOADS ?? 3);
const root = process.cwd();

if (!process.env.BENCH_NO_BUILD) {
  const build = spawnSync('npx', ['vite', 'build'], { cwd: root, encoding: 'utf8' });
  if (build.status !== 0) {
    console.error(build.stderr);
    process.exit(1);
  }
}
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
const browser: Browser = await chromium.launch({
  ...(executablePath ? { executablePath } : {}),
  args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-background-networking', '--disable-component-update'],
});

/** ms from navigation to a usable scrubber with every grid drawn. */
async function openToUsable(query: string, options: { refuseRunFiles?: boolean; openMatrix?: boolean } = {}): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  const page = await context.newPage();
  if (options.refuseRunFiles) await page.route('**/runs/*.run', (route) => route.abort());
  if (options.openMatrix) {
    await page.addInitScript(() => {
      new MutationObserver(() => {
        for (const d of document.querySelectorAll('details')) if (d.querySelector('[data-testid="matrix"], .matrix') || d.textContent?.includes('matrix')) d.open = true;
      }).observe(document, { childList: true, subtree: true });
    });
  }
  const t0 = Date.now();
  await page.goto(`http://127.0.0.1:${PORT}/?${query}`);
  await page.waitForFunction(
    () => {
      const slider = document.querySelector('[role="slider"]');
      const grids = [...document.querySelectorAll('canvas[data-node]')] as HTMLCanvasElement[];
      return !!slider && slider.getAttribute('aria-disabled') !== 'true' && grids.length > 0 && grids.every((c) => c.dataset.drawnT !== undefined);
    },
    null,
    { timeout: 300_000, polling: 'raf' },
  );
  const ms = Date.now() - t0;
  await context.close();
  return ms;
}

async function measure(query: string, options: Parameters<typeof openToUsable>[1] = {}): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < LOADS; i++) out.push(await openToUsable(query, options));
  return out.sort((a, b) => a - b);
}

await openToUsable('s=demo'); // warm the server and the browser's caches of the scripts
const median = (xs: number[]) => xs[Math.floor(xs.length / 2)]!;
const range = (xs: number[]) => `${(xs[0]! / 1000).toFixed(2)}–${(xs[xs.length - 1]! / 1000).toFixed(2)} s`;
const incident = await measure('');
const incidentLive = await measure('', { refuseRunFiles: true });
const demo = await measure('s=demo');
const demoWithMatrix = await measure('s=demo', { openMatrix: true });
const rows: BenchRow[] = [
  { what: 'page opened → scrubber usable, incident', now: median(incident) / 1000, unit: 's', detail: range(incident), baselineLabel: 'live replay in the worker', baseline: median(incidentLive) / 1000, goal: 1.0 },
  { what: 'page opened → scrubber usable, s=demo', now: median(demo) / 1000, unit: 's', detail: range(demo), baselineLabel: 'matrix computed at load too', baseline: median(demoWithMatrix) / 1000, goal: 0.3 },
];
report(rows);
await browser.close();
stop();
process.exit(0);
