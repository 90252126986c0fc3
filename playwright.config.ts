import { existsSync } from 'node:fs';
import { defineConfig, devices } from '@playwright/test';

/**
 * Browser: Debian's Chromium where it is installed (this project's CI and dev machines, which cannot
 * download Playwright's browser); otherwise Playwright's own (`npx playwright install chromium`).
 * PW_CHROMIUM overrides both.
 */
const systemChromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
const executablePath = process.env.PW_CHROMIUM || systemChromium;
const runningAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** PW_PORT and PW_DIST (a build's folder, `vite build --outDir`) let several suites run side by side. */
const PORT = Number(process.env.PW_PORT ?? 4173);
const DIST = process.env.PW_DIST ? ` --outDir ${JSON.stringify(process.env.PW_DIST)}` : '';

export default defineConfig({
  testDir: 'e2e',
  fullyParallel: true,
  // Three on CI's two cores: most of a test is the page playing in real time or waiting for a frame to
  // settle (a clean-clone run with two workers left the CPU idle enough for a background video render to
  // keep over half its speed), and 2,900 worker-seconds at two took 24.6 min.
  workers: process.env.CI ? 3 : undefined,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: process.env.CI ? [['list']] : [['list']],
  timeout: 60_000,
  // Two cores run the browser, the page's workers (a 14-day replay) and the other tests at once.
  expect: { timeout: 15_000 },
  use: {
    baseURL: `http://127.0.0.1:${PORT}/`,
    viewport: { width: 1280, height: 720 },
    trace: 'off',
    launchOptions: {
      ...(executablePath ? { executablePath } : {}),
      args: [
        ...(runningAsRoot ? ['--no-sandbox'] : []),
        // Without these Chromium dials out at start-up; this machine's network refuses it.
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--enable-unsafe-webgpu',
      ],
    },
  },
  projects: [
    { name: 'chromium', testIgnore: /(talk|smoke)\.spec\.ts/, use: { ...devices['Desktop Chrome'], viewport: { width: 1280, height: 720 } } },
    // The inner loop's smoke tests (npm run test:quick): the full suite checks all they do, more thoroughly.
    { name: 'smoke', testMatch: /smoke\.spec\.ts/, use: { ...devices['Desktop Chrome'], viewport: { width: 1280, height: 720 } } },
    // The whole talk (six browsers for four minutes, the room's server killed three times) runs once the
    // rest is done, alone: beside it, on two cores, the pixel-comparing specs saw their pages settle late.
    { name: 'talk', testMatch: /talk\.spec\.ts/, dependencies: ['chromium'], use: { ...devices['Desktop Chrome'], viewport: { width: 1280, height: 720 } } },
  ],
  webServer: {
    // Node's 16 KB header limit would answer a long link with HTTP 431 before the page could say what
    // is wrong with it: the page's own links stay under 2,000 characters (state/url.ts), and a longer
    // one reaches the page, which says so (e2e/links.spec.ts).
    command: `node --max-http-header-size=65536 node_modules/vite/bin/vite.js preview --host 127.0.0.1 --port ${PORT} --strictPort${DIST}`,
    url: `http://127.0.0.1:${PORT}/`,
    reuseExistingServer: !process.env.CI,
    timeout: 60_000,
  },
});
