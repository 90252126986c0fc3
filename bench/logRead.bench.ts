/**
 * Reading a start-up log of 1 GB (goal ≤ 15 s and ≤ 150 MB peak RSS on a two-core machine): a
 * synthetic SGLang log in the OS's temporary folder — a start-up (server_args, eight TP ranks'
 * scheduler lines), ordinary request lines, a restart in the middle, more request lines — read by
 * `readStartupFile` (src/cli/readLog.ts) in a child process of its own, so its peak RSS
 * (`process.resourceUsage().maxRSS`) is the reader's alone. Baseline in the same run: what reading
 * it whole would cost, `fs.readFileSync` + `split('\n')` of a 100 MB file (a tenth of the size; the
 * whole 1 GB would not fit in a string). The files are deleted afterwards.
 * `npm run bench -- logRead` runs it alone; `--gb=0.2` makes a smaller log.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync, writeSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { report } from './table.ts';

const MB = 1024 * 1024;

interface ChildResult {
  ms: number;
  maxRssKiB: number;
  summary: string;
}

/** In the child: one read, timed, with its peak RSS. */
async function child(mode: string, file: string): Promise<void> {
  const t0 = performance.now();
  let summary: string;
  if (mode === 'stream') {
    const { readStartupFile } = await import('../src/cli/readLog.ts');
    const p = await readStartupFile(file, 'prefill');
    summary = `servers ${p.servers.map((s) => `line ${s.line}: ${s.kvTokens}`).join(', ')}; superseded ${p.superseded.map((s) => `line ${s.line}: ${s.kvTokens}`).join(', ')}; problems ${p.problems.length}`;
  } else {
    const lines = readFileSync(file, 'utf8').split('\n');
    let found = 0;
    for (const l of lines) if (l.includes('max_total_num_tokens=')) found++;
    summary = `${lines.length} lines, ${found} scheduler lines`;
  }
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ ms, maxRssKiB: process.resourceUsage().maxRSS, summary } satisfies ChildResult) + '\n');
}

const ARGS = (ctx: number) =>
  `server_args={'model_path': 'zai-org/GLM-5.3', 'context_length': ${ctx}, 'max_total_tokens': None, 'chunked_prefill_size': 8192, 'page_size': 64, 'tp_size': 8, 'dp_size': 1, 'allow_auto_truncate': False, 'disaggregation_mode': 'prefill', 'num_reserved_decode_tokens': 512}`;

function startup(stamp: string, kv: number, ctx: number): string {
  const lines = [`[${stamp}] ${ARGS(ctx)}`, `[${stamp} TP0] Load weight begin. avail mem=78.52 GB`];
  for (let r = 0; r < 8; r++) lines.push(`[${stamp} TP${r}] max_total_num_tokens=${kv}, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=48, context_len=${ctx}, available_gpu_mem=9.87 GB`);
  lines.push(`[${stamp}] The server is fired up and ready to roll!`);
  return lines.join('\n') + '\n';
}

/** About 4 MB of request lines, varied, written again and again. */
function requestBlock(): string {
  const out: string[] = [];
  let bytes = 0;
  for (let i = 0; bytes < 4 * MB; i++) {
    const s = `2026-08-27 10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`;
    const l =
      i % 3 === 0
        ? `[${s} TP0] Prefill batch. #new-seq: 1, #new-token: ${4096 + (i % 977)}, #cached-token: ${i % 4096}, token usage: 0.${String(i % 100).padStart(2, '0')}, #running-req: ${i % 9}, #queue-req: ${i % 3}`
        : i % 3 === 1
          ? `[${s} TP0] Decode batch. #running-req: ${i % 17}, #token: ${19654 + i}, token usage: 0.03, gen throughput (token/s): ${(90 + (i % 13)).toFixed(2)}, #queue-req: 0`
          : `[${s}] INFO:     10.0.${i % 250}.${i % 200}:${40000 + (i % 20000)} - "POST /generate HTTP/1.1" 200 OK`;
    out.push(l);
    bytes += l.length + 1;
  }
  return out.join('\n') + '\n';
}

function writeLog(file: string, bytes: number, restart: boolean): void {
  const fd = openSync(file, 'w');
  const block = Buffer.from(requestBlock(), 'utf8');
  let written = writeSync(fd, startup('2026-08-27 09:12:44', 681_280, 1_048_576));
  let restarted = !restart;
  while (written < bytes) {
    if (!restarted && written >= bytes / 2) {
      written += writeSync(fd, startup('2026-08-27 12:00:00', 2_040_000, 2_097_152));
      restarted = true;
    }
    written += writeSync(fd, block);
  }
  closeSync(fd);
}

function runChild(mode: string, file: string): ChildResult {
  const r = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', mode, file], { encoding: 'utf8', maxBuffer: 16 * MB });
  if (r.status !== 0) throw new Error(`child ${mode} failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as ChildResult;
}

async function main(): Promise<void> {
  const at = process.argv.indexOf('--child');
  if (at >= 0) return child(process.argv[at + 1]!, process.argv[at + 2]!);
  const gb = Number(process.argv.find((a) => a.startsWith('--gb='))?.slice(5) ?? 1);
  const dir = mkdtempSync(join(tmpdir(), 'log-read-bench-'));
  try {
    const big = join(dir, 'startup-1gb.log');
    const small = join(dir, 'startup-100mb.log');
    let t0 = performance.now();
    writeLog(big, gb * 1024 * MB, true);
    writeLog(small, 100 * MB, false);
    console.log(`wrote ${gb} GB and 100 MB of synthetic log in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    t0 = performance.now();
    const stream = runChild('stream', big);
    console.log(`readStartupFile, ${gb} GB: ${(stream.ms / 1000).toFixed(2)} s in the reader (${((performance.now() - t0) / 1000).toFixed(2)} s with the child's start), peak RSS ${(stream.maxRssKiB / 1024).toFixed(1)} MB; ${stream.summary}`);
    const whole = runChild('whole', small);
    console.log(`baseline readFileSync + split, 100 MB: ${(whole.ms / 1000).toFixed(2)} s, peak RSS ${(whole.maxRssKiB / 1024).toFixed(1)} MB; ${whole.summary}`);
    // The command an operator runs in CI, end to end on the same log: built JS, then through TypeScript's loader.
    const cli = (args: string[]) => {
      const t = performance.now();
      const r = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 * MB });
      if (r.status === 2 || r.status === 70) throw new Error(`check-deployment failed: ${r.stderr}`);
      return performance.now() - t;
    };
    const built = fileURLToPath(new URL('../dist-cli/check-deployment.mjs', import.meta.url));
    const source = fileURLToPath(new URL('../src/cli/checkDeployment.ts', import.meta.url));
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const startBuilt = median([0, 1, 2, 3, 4].map(() => cli([built, '--help'])));
    const startTs = median([0, 1, 2].map(() => cli(['--import', 'tsx', source, '--help'])));
    console.log(`check-deployment --help: ${startBuilt.toFixed(0)} ms built, ${startTs.toFixed(0)} ms through tsx (medians)`);
    const whole1gb = cli([built, '--log', `prefill:${big}`, '--decode', '2621440', '--reject-path', 'incident', '--retire', 'incident', '--json']);
    console.log(`check-deployment on the ${gb} GB log, end to end: ${(whole1gb / 1000).toFixed(2)} s`);
    report([
      { what: 'check-deployment start (--help, built JS)', now: startBuilt, unit: 'ms', baselineLabel: 'through tsx', baseline: startTs, goal: 500 },
      { what: `check-deployment on a ${gb} GB log, end to end`, now: whole1gb / 1000, unit: 's', baselineLabel: 'readStartupFile alone', baseline: stream.ms / 1000, goal: 15 * gb },
      { what: `start-up log read, ${gb} GB (readStartupFile)`, now: stream.ms / 1000, unit: 's', detail: `${((gb * 1024) / (stream.ms / 1000)).toFixed(0)} MB/s`, baselineLabel: 'readFileSync + split, 100 MB', baseline: whole.ms / 1000, goal: 15 * gb },
      { what: `start-up log read, ${gb} GB: peak RSS`, now: stream.maxRssKiB, unit: 'KiB', baselineLabel: 'readFileSync + split, 100 MB', baseline: whole.maxRssKiB, goal: 150 * 1024 },
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
