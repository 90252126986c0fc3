#!/usr/bin/env node
/**
 * Makes sure the e2e tests have a Chromium: PW_CHROMIUM, else Debian's /usr/bin/chromium, else
 * Playwright's own download. On a Debian machine without any of them, running as root, it installs
 * Debian's chromium package (this project's machines cannot download Playwright's browser).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const have = (p) => p && existsSync(p);
if (have(process.env.PW_CHROMIUM) || have('/usr/bin/chromium') || have('/usr/bin/chromium-browser')) process.exit(0);

try {
  const { chromium } = await import('@playwright/test');
  if (have(chromium.executablePath())) process.exit(0);
} catch {
  // Playwright not installed yet or no browser of its own: fall through.
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
if (isRoot && existsSync('/usr/bin/apt-get')) {
  console.log('ensure-browser: installing Debian\'s chromium (apt-get) for the e2e tests…');
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
  execFileSync('apt-get', ['install', '-y', '-qq', 'chromium'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  process.exit(0);
}
console.error(
  'ensure-browser: no Chromium for the e2e tests. Either install your distribution\'s chromium ' +
    '(Debian: apt-get install chromium), run `npx playwright install chromium`, or set PW_CHROMIUM to a Chromium binary.',
);
process.exit(1);
