/**
 * What the browser benchmarks share: the built site served by `vite preview` on a port of the
 * caller's, and headless Chromium (Debian's where installed, else Playwright's own).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from '@playwright/test';

/** Builds the site (unless BENCH_NO_BUILD or `build: false`: the caller built it) and serves it; `stop` ends the server. */
export async function serveSite(port: number, root = process.cwd(), options: { build?: boolean } = {}): Promise<{ stop: () => void }> {
  if ((options.build ?? true) && !process.env.BENCH_NO_BUILD) {
    const build = spawnSync('npx', ['vite', 'build'], { cwd: root, encoding: 'utf8' });
    if (build.status !== 0) throw new Error(`vite build failed:\n${build.stderr}`);
  }
  const server = spawn('npx', ['vite', 'preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], { cwd: root, stdio: 'ignore', detached: true });
  const stop = () => {
    try {
      process.kill(-server.pid!);
    } catch {
      // already gone
    }
  };
  process.on('exit', stop);
  await new Promise((r) => setTimeout(r, 2500));
  return { stop };
}

export function launchChromium(): Promise<Browser> {
  const executablePath = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  return chromium.launch({
    ...(executablePath ? { executablePath } : {}),
    args: [...(process.getuid?.() === 0 ? ['--no-sandbox'] : []), '--disable-background-networking', '--disable-component-update'],
  });
}

export const quantiles = (xs: number[]) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
};
