/**
 * The incident window at default volume: full replay time (goal ≤ 2 s) against the per-slot decode
 * (summaryPages: 0) in the same process, seek latency to random instants (target p95 ≤ 16 ms) from checkpoints against
 * replaying the tape from the start, and the memory the replay holds.
 * Run by `npm run bench` (bench/run.ts gives each bench its own Node with --expose-gc).
 */
import { RunTimeline, pageTimelineBytes } from '../src/engine/index.ts';
import { DEFAULT_TRAFFIC, T_WINDOW_END, incidentTraffic, replayIncident, type IncidentReplayResult } from '../src/engine/incident/index.ts';
import { report } from './table.ts';

const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

function timeIt<T>(f: () => T): { ms: number; cpuMs: number; value: T } {
  gc();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const value = f();
  return { ms: performance.now() - t0, cpuMs: process.cpuUsage(c0).user / 1000, value };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

const traffic = incidentTraffic();
const days = T_WINDOW_END / 86_400_000;
console.log(`default traffic: ${traffic.trace.requests.length.toLocaleString('en-US')} requests over ${days} days ` +
  `(${DEFAULT_TRAFFIC.requestsPerDay} ordinary/day + ${DEFAULT_TRAFFIC.batchesPerDay} batch/day of ${DEFAULT_TRAFFIC.batchSize} + long prompts; ` +
  `${Math.round(traffic.trace.requests.length / days).toLocaleString('en-US')} requests/day in all), ` +
  `${(traffic.trace.requests.reduce((n, r) => n + r.promptTokens, 0) / 1e6).toFixed(0)} M prompt tokens`);

// Warm the JIT once on a small window so the first measured run is not mostly compilation.
replayIncident({ traffic: { requestsPerDay: 50, overThresholdBeforePrivate: 10, batchSize: 8, seed: 'warm-up' }, record: true });

const rows: [string, number, number][] = [];
let recorded: IncidentReplayResult | null = null;
// Wall time on a shared machine; CPU time beside it in the log.
for (let run = 0; run < 2; run++) {
  const full = timeIt(() => replayIncident({ traffic, record: true }));
  rows.push([`replay, recorded for seek, audit on (run ${run + 1})`, full.ms, full.cpuMs]);
  recorded = full.value;
}
const noRecord = timeIt(() => replayIncident({ traffic, record: false }));
rows.push(['replay, no seek recording', noRecord.ms, noRecord.cpuMs]);
const noAudit = timeIt(() => replayIncident({ traffic, record: false, audit: false }));
rows.push(['replay, no recording, audit off', noAudit.ms, noAudit.cpuMs]);
const perSlot: number[] = [];
let exact: ReturnType<typeof timeIt<IncidentReplayResult>> | null = null;
for (let run = 0; run < 2; run++) {
  exact = timeIt(() => replayIncident({ traffic, record: true, summaryPages: 0 }));
  rows.push([`baseline: per-slot decode, recorded, audit on (run ${run + 1})`, exact.ms, exact.cpuMs]);
  perSlot.push(exact.ms);
}
const noShortcuts = timeIt(() => replayIncident({ traffic, record: false, shortcuts: false, summaryPages: 0 }));
rows.push(['baseline: every shortcut off (every slot scanned)', noShortcuts.ms, noShortcuts.cpuMs]);
for (const [label, ms, cpu] of rows) console.log(`${label.padEnd(60)} ${(ms / 1000).toFixed(2)} s wall, ${(cpu / 1000).toFixed(2)} s CPU`);
const best = Math.min(...rows.slice(0, 2).map((r) => r[1]));
const sameRun = (a: IncidentReplayResult, b: IncidentReplayResult) => JSON.stringify(a.counts) === JSON.stringify(b.counts) && JSON.stringify(a.eventLogHashes) === JSON.stringify(b.eventLogHashes);
console.log(`same counts and event-log hashes with the per-slot decode: ${sameRun(exact!.value, recorded!) ? 'yes' : 'NO'}, with every shortcut off: ${sameRun(noShortcuts.value, noRecord.value) ? 'yes' : 'NO'}` +
  ` (${noRecord.value.counts.leakedByProvenance} provenance, ${noRecord.value.counts.leakedByCanary} canary; hashes ${JSON.stringify(noRecord.value.eventLogHashes)})`);

const r = recorded!;
const tl = r.timelines!;
const tableBytes = (t: object) => Object.values(t).filter((v): v is ArrayBufferView => ArrayBuffer.isView(v)).reduce((n, v) => n + v.byteLength, 0);
console.log(`memory held by the replay: page timelines ${mb(pageTimelineBytes(tl.incident) + pageTimelineBytes(tl.fixed))} ` +
  `(incident: ${tl.incident.opCount.toLocaleString('en-US')} ops, ${tl.incident.checkpointCount} checkpoints of ${tl.incident.totalPages.toLocaleString('en-US')} pages; ` +
  `fixed: ${tl.fixed.checkpointCount} checkpoints), request table ${mb(tableBytes(r.requests))}, read table ${mb(tableBytes(r.reads))}`);
gc();
const heapBefore = process.memoryUsage();
const timeline = new RunTimeline(r);
console.log(`process after the replay: heap used ${mb(heapBefore.heapUsed)}, array buffers ${mb(heapBefore.arrayBuffers)}, rss ${mb(heapBefore.rss)}`);

function seekTimes(fromStart: boolean, n: number): number[] {
  let x = 20260909;
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    const t = (x / 2 ** 32) * T_WINDOW_END;
    const t0 = performance.now();
    timeline.stateAt(t, fromStart);
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b);
}
seekTimes(false, 50);
const fromCheckpoints = seekTimes(false, 500);
const fromStart = seekTimes(true, 60);
const line = (label: string, s: number[]) =>
  console.log(`${label.padEnd(40)} p50 ${percentile(s, 0.5).toFixed(2)} ms, p95 ${percentile(s, 0.95).toFixed(2)} ms, max ${s[s.length - 1]!.toFixed(2)} ms (${s.length} random instants)`);
line('seek from checkpoints', fromCheckpoints);
line('baseline: seek replaying from the start', fromStart);
report([
  { what: 'full 27 Aug–9 Sep replay in Node (best of 2)', now: best / 1000, unit: 's', detail: `CPU ${(Math.min(rows[0]![2], rows[1]![2]) / 1000).toFixed(2)} s vs ${(Math.min(...rows.filter((r) => r[0].startsWith('baseline: per-slot')).map((r) => r[2])) / 1000).toFixed(2)} s`, baselineLabel: 'per-slot decode', baseline: Math.min(...perSlot) / 1000, goal: 2.0 },
  { what: 'seek from checkpoints (p95)', now: percentile(fromCheckpoints, 0.95), unit: 'ms', detail: `p50 ${percentile(fromCheckpoints, 0.5).toFixed(2)} ms`, baselineLabel: 'replay from start', baseline: percentile(fromStart, 0.95), goal: null },
]);
