/**
 * The one moment's cost per frame: `momentOf` over the first leaked request's whole handoff played
 * frame by frame (the handoff clock from 0 to its end in 600 frames, as the stage plays it), on the
 * incident window at full scale and on the demo. Baseline, measured in the same run over the same
 * frames: what a frame cost the views before the moment (its position and one seek of the pools at
 * its engine time, nothing else). The difference is what the moment adds: the block table's counts,
 * the outcomes as of the instant, the stage's frame (goal ≤ 0.05 ms a frame, 50 ms per 1,000). The
 * first moment of a request (its script, read table, token sources, reuse instant and the run's
 * outcome index: once per run and request) is reported on its own. Beside the moment's cost, in the
 * same run: the whole block table counted at each frame (what the moment did before it counted
 * incrementally).
 */
import { computeRun } from '../src/app/run/computeRun.ts';
import { summaryOf, type RequestDetail } from '../src/app/run/summary.ts';
import { blockTableAt, momentOf, positionOf, type MomentInput } from '../src/app/moment/moment.ts';
import { report, type BenchRow } from './table.ts';

const FRAMES = 600;
const REPEATS = 15;
const EXTRA_GOAL_MS = 0.05;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rows: BenchRow[] = [];

for (const scenario of ['incident', 'demo'] as const) {
  const t0 = performance.now();
  const { run: computed, details } = computeRun({ scenario, overrides: {} }, { keepDetails: true });
  const run = summaryOf({ ...computed, elapsedMs: 0 }, scenario, async () => {
    throw new Error('details are read directly here');
  });
  console.log(`${scenario}: run computed in ${((performance.now() - t0) / 1000).toFixed(1)} s, ${run.requests.count.toLocaleString('en-US')} requests`);
  const req = run.leaks[0]!.request;
  const detail: RequestDetail = { runKey: scenario, response: details!.responses[req]!, events: details!.events[req]!, words: details!.words };
  const at = (h: number): MomentInput => ({ run, req, detail, time: detail.events[0]!.t, handoff: h, reducedMotion: false });

  const first = performance.now();
  const m0 = momentOf(at(0));
  const firstMs = performance.now() - first;
  const frames = Array.from({ length: FRAMES }, (_, i) => at((m0.script.total * i) / (FRAMES - 1)));
  console.log(`  request ${detail.response.id}: block table of ${m0.blockTable.pages.length.toLocaleString('en-US')} pages, handoff of ${m0.script.total.toFixed(1)} s; first moment ${firstMs.toFixed(1)} ms`);

  const seekOnly: number[] = [];
  const moment: number[] = [];
  const wholeTable: number[] = [];
  const { node, pages } = m0.blockTable;
  let sink = 0;
  for (let r = 0; r < REPEATS; r++) {
    let s = performance.now();
    for (const f of frames) sink += run.seek(positionOf(f).engineT).nodes.length;
    seekOnly.push((performance.now() - s) / FRAMES);
    s = performance.now();
    for (const f of frames) sink += momentOf(f).blockTable.written;
    moment.push((performance.now() - s) / FRAMES);
    // Before the incremental count: the whole block table counted at every frame's seek.
    s = performance.now();
    for (const f of frames) sink += blockTableAt(run.seek(positionOf(f).engineT), node, pages, req).written;
    wholeTable.push((performance.now() - s) / FRAMES);
  }
  const base = median(seekOnly);
  const now = median(moment);
  const before = median(wholeTable) - base;
  console.log(`  per frame: momentOf ${now.toFixed(3)} ms, seeking only ${base.toFixed(3)} ms: the moment adds ${(now - base).toFixed(3)} ms; the whole table counted each frame adds ${before.toFixed(3)} ms (median of ${REPEATS} sweeps of ${FRAMES} frames; ${sink > 0 ? 'checked' : ''})`);
  // Per 1,000 frames: the table prints a tenth of a millisecond, and a frame's cost is hundredths.
  rows.push({ what: `momentOf, 1,000 frames (${scenario})`, now: now * 1000, unit: 'ms', detail: `median of ${REPEATS} sweeps of ${FRAMES} frames`, baselineLabel: 'position + seek only', baseline: base * 1000, goal: null });
  rows.push({ what: `moment beyond the seek, 1,000 frames (${scenario})`, now: Math.max(0, now - base) * 1000, unit: 'ms', detail: `first moment of the request ${firstMs.toFixed(1)} ms`, baselineLabel: 'the whole table counted each frame', baseline: Math.max(0, before) * 1000, goal: EXTRA_GOAL_MS * 1000 });
}
report(rows);
