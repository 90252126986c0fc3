#!/usr/bin/env node
/**
 * `npm test`: every check, in the order that keeps both of CI's cores busy.
 *
 * 1. The type-check and the import tiers (one core: tsc and dependency-cruiser are single-threaded)
 *    beside the site's build (one core: most of it is the prebuilt runs, computed one after another).
 * 2. The unit and property tests (vitest, a worker per core).
 * 3. The end-to-end tests on that build (Playwright).
 *
 * `--quick` (`npm run test:quick`, the inner loop): the type-check without the tiers, and the smoke
 * project instead of the whole end-to-end suite.
 *
 * Each step's output is printed whole when it ends (the two of step 1 would otherwise interleave
 * line by line). The exit status is the first failing step's; its name is the last line printed.
 */
import { spawn } from 'node:child_process';

/**
 * Runs one step; resolves to its exit code. `buffered`: its output is kept and printed whole when it
 * ends (two steps side by side would otherwise interleave); else it streams (a long step shows its progress).
 */
function step(name, command, args, { buffered = false } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(command, args, { stdio: buffered ? ['ignore', 'pipe', 'pipe'] : 'inherit', env: process.env });
    const out = [];
    child.stdout?.on('data', (d) => out.push(d));
    child.stderr?.on('data', (d) => out.push(d));
    child.on('error', (e) => out.push(Buffer.from(`test: ${name}: ${e.message}\n`)));
    child.on('close', (code, signal) => {
      process.stdout.write(Buffer.concat(out));
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      console.log(`test: ${name}: ${code === 0 ? 'passed' : `failed (${signal ?? `exit ${code}`})`} in ${seconds} s`);
      resolve(code ?? 1);
    });
  });
}

const quick = process.argv.includes('--quick');
const unknown = process.argv.slice(2).filter((a) => a !== '--quick');
if (unknown.length > 0) {
  console.error(`test: unknown argument ${unknown[0]} (takes --quick or nothing)`);
  process.exit(2);
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

async function sequence(...steps) {
  for (const next of steps) {
    const code = await next();
    if (code !== 0) return code;
  }
  return 0;
}

function fail(code, step) {
  console.error(`test: stopped at ${step}`);
  process.exit(code);
}

const [statics, build] = await Promise.all([
  sequence(
    () => step('typecheck', npm, ['run', '--silent', 'typecheck'], { buffered: true }),
    () => (quick ? 0 : step('check:deps', npm, ['run', '--silent', 'check:deps'], { buffered: true })),
  ),
  step('build', npx, ['vite', 'build'], { buffered: true }),
]);
if (statics !== 0) fail(statics, 'the type-check or the import tiers');
if (build !== 0) fail(build, 'the build');

const unit = await step('unit and property tests', npm, ['run', '--silent', 'test:unit']);
if (unit !== 0) fail(unit, 'the unit and property tests');

const e2e = await sequence(
  () => step('browser', process.execPath, ['scripts/ensure-browser.mjs']),
  () => step('end-to-end tests', npx, ['playwright', 'test', ...(quick ? ['--project=smoke'] : ['--project=chromium', '--project=talk'])]),
);
if (e2e !== 0) fail(e2e, 'the end-to-end tests');
console.log('test: all passed');
