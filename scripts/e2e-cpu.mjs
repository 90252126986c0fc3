#!/usr/bin/env node
/**
 * Where the end-to-end suite's CPU goes: runs Playwright (its arguments passed on, e.g. a spec or
 * `--project=chromium --project=talk`) with its JSON reporter, samples every second the CPU time of
 * each Playwright worker's whole process tree (its browser, renderers, GPU process, a recorder's
 * ffmpeg, a room's server), and prints CPU seconds per spec and per test, heaviest first.
 *
 * On two cores the suite is CPU-bound (docs/TESTING.md): its wall time is about its CPU over two, so
 * a test's CPU is what it costs the suite, whatever its own wall time. Linux only (reads /proc).
 *
 *   node scripts/e2e-cpu.mjs --project=chromium --project=talk   # the whole suite
 *   node scripts/e2e-cpu.mjs e2e/inview.spec.ts                   # one spec
 *
 * Exit status: Playwright's. Set PW_CPU_TOP=N for the N heaviest tests (default 40).
 */
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync, existsSync } from 'node:fs';

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(`usage: node scripts/e2e-cpu.mjs [playwright test arguments]

Runs \`npx playwright test --reporter=json\` with the arguments given and prints the CPU seconds each spec
and test cost (each Playwright worker's whole process tree, sampled from /proc every second).
PW_CPU_TOP=N: the N heaviest tests (default 40). Exit status: Playwright's; 2 without /proc.`);
  process.exit(0);
}
if (!existsSync('/proc/self/stat')) {
  console.error('e2e-cpu: needs /proc (Linux)');
  process.exit(2);
}
const HZ = 100; // USER_HZ: /proc's clock ticks per second on Linux.

/** pid → { ppid, ticks } for every process now. */
function processes() {
  const out = new Map();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(pid, { ppid: f[1], ticks: Number(f[11]) + Number(f[12]) });
    } catch {
      // Gone between the listing and the read.
    }
  }
  return out;
}

/** The worker index a process was started with (Playwright sets it in each worker's environment), or null. */
const workerOfPid = new Map();
function workerIndexOf(pid) {
  if (!workerOfPid.has(pid)) {
    let index = null;
    try {
      index = /(?:^|\0)TEST_WORKER_INDEX=(\d+)/.exec(readFileSync(`/proc/${pid}/environ`, 'utf8'))?.[1] ?? null;
    } catch {
      // Gone, or not ours to read.
    }
    workerOfPid.set(pid, index);
  }
  return workerOfPid.get(pid);
}

const last = new Map();
/** [ms since epoch, { worker index → CPU ticks since the sample before }] */
const samples = [];
function sample() {
  const now = processes();
  const perWorker = {};
  for (const [pid, p] of now) {
    const spent = p.ticks - (last.get(pid) ?? 0);
    last.set(pid, p.ticks);
    if (spent <= 0) continue;
    // Up the tree to the first process that carries a worker index (the worker, or a browser it launched).
    let at = pid;
    let index = null;
    for (let hops = 0; at && at !== '0' && at !== '1' && hops < 16 && index === null; hops++) {
      index = workerIndexOf(at);
      at = now.get(at)?.ppid;
    }
    if (index !== null) perWorker[index] = (perWorker[index] ?? 0) + spent;
  }
  samples.push([Date.now(), perWorker]);
}

// What ran before the suite is no part of it.
for (const [pid, p] of processes()) last.set(pid, p.ticks);
const timer = setInterval(sample, 1000);
const chunks = [];
const child = spawn(process.platform === 'win32' ? 'npx.cmd' : 'npx', ['playwright', 'test', '--reporter=json', ...process.argv.slice(2)], { stdio: ['ignore', 'pipe', 'inherit'] });
child.stdout.on('data', (d) => chunks.push(d));
child.on('close', (code) => {
  clearInterval(timer);
  sample();
  let report;
  try {
    report = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    console.error('e2e-cpu: Playwright printed no JSON report');
    process.exit(code ?? 1);
  }
  const tests = [];
  const walk = (suite, file) => {
    for (const spec of suite.specs ?? []) for (const t of spec.tests) for (const r of t.results) tests.push({ file: spec.file ?? file, title: spec.title, status: r.status, start: Date.parse(r.startTime), ms: r.duration, worker: String(r.workerIndex), cpu: 0 });
    for (const s of suite.suites ?? []) walk(s, s.file ?? file);
  };
  for (const s of report.suites ?? []) walk(s, s.file);
  let attributed = 0;
  let all = 0;
  for (const [at, perWorker] of samples) {
    for (const [worker, ticks] of Object.entries(perWorker)) {
      all += ticks;
      // The sample covers the second before it: the test its worker ran then.
      const t = tests.find((x) => x.worker === worker && x.start < at && x.start + x.ms > at - 1000);
      if (t) {
        t.cpu += ticks / HZ;
        attributed += ticks;
      }
    }
  }
  const wall = tests.length ? (Math.max(...tests.map((t) => t.start + t.ms)) - Math.min(...tests.map((t) => t.start))) / 1000 : 0;
  console.log(`\n${tests.length} tests, ${wall.toFixed(0)} s from the first test's start to the last one's end; the workers' CPU ${(all / HZ).toFixed(0)} s (${(attributed / HZ).toFixed(0)} s within a test)`);
  const bySpec = new Map();
  for (const t of tests) bySpec.set(t.file, (bySpec.get(t.file) ?? 0) + t.cpu);
  console.log('\nCPU s  spec');
  for (const [file, cpu] of [...bySpec].sort((a, b) => b[1] - a[1])) console.log(`${cpu.toFixed(0).padStart(5)}  ${file}`);
  console.log('\nCPU s  wall s  test');
  for (const t of tests.sort((a, b) => b.cpu - a.cpu).slice(0, Number(process.env.PW_CPU_TOP ?? 40))) console.log(`${t.cpu.toFixed(1).padStart(5)}  ${(t.ms / 1000).toFixed(0).padStart(6)}  ${t.file} › ${t.title}${t.status === 'passed' ? '' : ` (${t.status})`}`);
  process.exit(code ?? 1);
});
