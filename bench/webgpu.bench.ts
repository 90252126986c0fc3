/**
 * One decode step over the warm pool at 65,536 and 1,048,576 tokens, on the JS engine and on WebGPU,
 * in the same Chromium page (the decode-backend worker does the timing: one warm-up run per backend
 * and size, then REPS timed runs, median reported). WebGPU time is the whole request: uploading the
 * pool's slot arrays and block table, the two compute passes, the readback and the CPU steps.
 *
 * Builds the app into a temporary folder, serves it with `vite preview` on port 4303 (BENCH_PORT
 * overrides), and drives it with Playwright's Chromium (Debian's /usr/bin/chromium where present).
 * A software adapter (SwiftShader, what headless Chromium gets here) proves the shaders run and agree;
 * its speed says nothing about a GPU's.
 */
import { chromium } from '@playwright/test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build, preview } from 'vite';
import type { BenchReport } from '../src/gpu/reports.ts';
import { describeAdapter } from '../src/gpu/backend.ts';

const SIZES = [65_536, 1_048_576];
const REPS = Number(process.env.BENCH_REPS ?? 5);
const PORT = Number(process.env.BENCH_PORT ?? 4303);

const outDir = mkdtempSync(join(tmpdir(), 'stale-pages-bench-'));
const executablePath = process.env.PW_CHROMIUM || ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const runningAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;

const fmtMs = (n: number) => `${n < 10 ? n.toFixed(2) : n.toFixed(1)} ms`;

async function main(): Promise<number> {
  await build({ logLevel: 'warn', build: { outDir, emptyOutDir: true, sourcemap: false } });
  const server = await preview({ logLevel: 'warn', build: { outDir }, preview: { host: '127.0.0.1', port: PORT, strictPort: true } });
  const browser = await chromium.launch({
    ...(executablePath ? { executablePath } : {}),
    args: [
      ...(runningAsRoot ? ['--no-sandbox'] : []),
      '--enable-unsafe-webgpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  try {
    const page = await browser.newPage();
    page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
    await page.goto(`http://127.0.0.1:${PORT}/?s=demo&view=response&bench`);
    await page.getByTestId('backend-running').filter({ hasNotText: 'starting' }).waitFor({ timeout: 60_000 });
    const browserVersion = browser.version();
    const report = (await page.evaluate(
      ([sizes, reps]) => (window as unknown as { stalePagesDecodeBench: (s: number[], r: number) => Promise<unknown> }).stalePagesDecodeBench(sizes, reps),
      [SIZES, REPS] as const,
    )) as BenchReport;

    console.log(`Chromium ${browserVersion}; one decode step (1 token) over the warm pool; median of ${REPS} runs after one warm-up`);
    console.log(`WebGPU adapter: ${report.unavailable ? `none (${report.unavailable})` : describeAdapter(report.adapter)}`);
    if (report.adapter?.isFallbackAdapter) console.log('  (a software adapter: these WebGPU times show the path works, not how fast a GPU is)');
    console.log('');
    console.log(`${'context tokens'.padStart(15)}  ${'JS engine'.padStart(10)}  ${'WebGPU'.padStart(10)}  ${'WebGPU / JS'.padStart(11)}`);
    for (const r of report.rows) {
      const ratio = r.webgpuMs === null ? '—' : `${(r.webgpuMs / r.jsMs).toFixed(2)}×`;
      console.log(
        `${r.contextTokens.toLocaleString('en-US').padStart(15)}  ${fmtMs(r.jsMs).padStart(10)}  ${(r.webgpuMs === null ? '—' : fmtMs(r.webgpuMs)).padStart(10)}  ${ratio.padStart(11)}`,
      );
    }
    console.log('');
    for (const r of report.rows) {
      console.log(`  runs at ${r.contextTokens.toLocaleString('en-US')}: JS [${r.jsRuns.map((x) => x.toFixed(1)).join(', ')}]  WebGPU [${r.webgpuRuns.map((x) => x.toFixed(1)).join(', ')}] ms`);
    }
    return report.unavailable ? 1 : 0;
  } finally {
    await browser.close();
    await new Promise<void>((resolve) => server.httpServer.close(() => resolve()));
    rmSync(outDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
