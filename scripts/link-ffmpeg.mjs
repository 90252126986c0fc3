#!/usr/bin/env node
/**
 * Gives Playwright's video recorder an ffmpeg. Playwright looks for its own build at
 * `<PLAYWRIGHT_BROWSERS_PATH or ~/.cache/ms-playwright>/ffmpeg-<rev>/ffmpeg-linux`, which this
 * project's machines cannot download; Debian's /usr/bin/ffmpeg (VP8/VP9 included) does the same job,
 * so this links it there. Without a system ffmpeg, as root on Debian, it installs the package first.
 * Elsewhere (macOS, Windows) it defers to `npx playwright install ffmpeg`.
 *
 * Usage: node scripts/link-ffmpeg.mjs   (also imported by scripts/record.ts)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);

/** The ffmpeg revision this Playwright expects (its browsers.json). */
export function ffmpegRevision() {
  const core = dirname(require.resolve('playwright-core/package.json'));
  const browsers = JSON.parse(readFileSync(join(core, 'browsers.json'), 'utf8')).browsers;
  const entry = browsers.find((b) => b.name === 'ffmpeg');
  if (!entry) throw new Error('playwright-core/browsers.json names no ffmpeg');
  return entry.revision;
}

export function playwrightFfmpegPath() {
  const env = process.env.PLAYWRIGHT_BROWSERS_PATH;
  // "0" means "inside node_modules"; Playwright then uses .local-browsers beside playwright-core.
  const base = env === '0' ? join(dirname(require.resolve('playwright-core/package.json')), '.local-browsers') : env || join(homedir(), '.cache', 'ms-playwright');
  return join(base, `ffmpeg-${ffmpegRevision()}`, 'ffmpeg-linux');
}

function which(cmd) {
  try {
    return execFileSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

export function systemFfmpeg() {
  const found = process.env.FFMPEG || which('ffmpeg');
  if (found) return found;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && existsSync('/usr/bin/apt-get')) {
    console.log('link-ffmpeg: installing Debian\'s ffmpeg (apt-get)…');
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit' });
    execFileSync('apt-get', ['install', '-y', '-qq', 'ffmpeg'], { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    return which('ffmpeg');
  }
  return null;
}

/** Makes Playwright's ffmpeg path point at a working ffmpeg; returns that path. Throws with advice otherwise. */
export function linkFfmpeg({ quiet = false } = {}) {
  if (process.platform !== 'linux') {
    throw new Error('link-ffmpeg: only Linux is handled here; run `npx playwright install ffmpeg` on this system.');
  }
  const target = playwrightFfmpegPath();
  const source = systemFfmpeg();
  if (existsSync(target) && !lstatSync(target).isSymbolicLink()) return target; // Playwright's own build
  if (!source) {
    if (existsSync(target)) return target;
    throw new Error('link-ffmpeg: no ffmpeg found. Install one (Debian: apt-get install ffmpeg), set FFMPEG, or run `npx playwright install ffmpeg`.');
  }
  if (existsSync(target) && realpathSync(target) === realpathSync(source)) return target;
  mkdirSync(dirname(target), { recursive: true });
  rmSync(target, { force: true });
  symlinkSync(source, target);
  if (!quiet) console.log(`link-ffmpeg: ${target} -> ${source}`);
  return target;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    console.log(linkFfmpeg());
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(1);
  }
}
