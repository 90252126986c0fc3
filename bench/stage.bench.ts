/**
 * Stage benchmark in headless Chromium, on the incident window at full scale: frame time while
 * playing, and the cost of one scrub step (set the time → every canvas of the view drawn for it →
 * the next frame), each with the stage on and, as the baseline measured in the same run, with the
 * cluster view (the page grids) in its place. Both start once the page has settled (no request in
 * flight, the browser idle). As the frame time leaves out its first five frames, the scrub figures
 * leave out the first five steps, where V8 still runs the page loops unoptimised (about 3-8 times
 * slower); those are reported on their own, as what the first clicks after opening the page cost.
 */
import { launchChromium, serveSite } from './harness.ts';

const PORT = Number(process.env.BENCH_PORT ?? 4322);
const root = process.cwd();
const FRAME_GOAL_MS = 16.7;
const SCRUB_GOAL_MS = 8;

const { stop } = await serveSite(PORT, root);
const browser = await launchChromium();

// Runs in the page (a string: the TS runner would inject helpers the page lacks). Each frame's time:
// from the frame's start to the first task after it (script, style, layout, paint), while `going()`.
const FRAMES_WHILE = (going: string) => `await new Promise((resolve) => {
    const tick = (now) => {
      if (last !== null) intervals.push(now - last);
      last = now;
      const ch = new MessageChannel();
      ch.port1.onmessage = () => work.push(performance.now() - now);
      ch.port2.postMessage(0);
      if (${going}) requestAnimationFrame(tick); else resolve();
    };
    requestAnimationFrame(tick);
  });`;

const PLAY_IN_PAGE = `(async () => {
  const hook = window.__stalePages;
  hook.state().set({ playing: true, speed: 60 });
  const work = [];
  const intervals = [];
  let last = null;
  const until = performance.now() + 4000;
  ${FRAMES_WHILE('now < until')}
  hook.state().set({ playing: false });
  return { work: work.slice(5), intervals: intervals.slice(5) };
})()`;

// The handoff clock playing the selected request's whole handoff at 2× (the microscope moving).
const PLAY_HANDOFF_IN_PAGE = `(async () => {
  const hook = window.__stalePages;
  hook.state().set({ handoffSpeed: 2 });
  hook.handoff(0);
  document.querySelector('[data-testid="handoff-play"]').click();
  const work = [];
  const intervals = [];
  let last = null;
  ${FRAMES_WHILE('hook.state().handoffPlaying')}
  return { work: work.slice(5), intervals: intervals.slice(5) };
})()`;

const SCRUB_IN_PAGE = `(async () => {
  const hook = window.__stalePages;
  const end = Number(document.querySelector('[role="slider"]').getAttribute('aria-valuemax'));
  const around = hook.state().time;
  const canvases = () => [...document.querySelectorAll('canvas[data-drawn-t]')];
  const drawn = (t) => canvases().length > 0 && canvases().every((c) => c.dataset.drawnT === String(t));
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const times = [];
  const painted = [];
  for (let i = 0; i < 85; i++) {
    // Half across the whole window, half within a second of the selected request's handoff.
    const target = i % 2 ? Math.floor(rand() * end) : Math.max(0, Math.floor(around - 1000 + rand() * 2000));
    const t0 = performance.now();
    hook.seek(target);
    await new Promise((resolve) => {
      if (drawn(target)) return resolve();
      const mo = new MutationObserver(() => { if (drawn(target)) { mo.disconnect(); resolve(); } });
      mo.observe(document.body, { attributes: true, subtree: true, attributeFilter: ['data-drawn-t'] });
    });
    times.push(performance.now() - t0);
    await new Promise((r) => requestAnimationFrame(() => r(null)));
    painted.push(performance.now() - t0);
  }
  return { warmup: times.slice(0, 5), times: times.slice(5), painted: painted.slice(5) };
})()`;

const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(0.95 * xs.length))]!;
const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(0.5 * xs.length)]!;
const verdict = (v: number, goal: number) => (v <= goal ? 'met' : 'not met');

type Measured = { frame: { work: number[]; intervals: number[] }; scrub: { warmup: number[]; times: number[]; painted: number[] }; handoff?: { work: number[]; intervals: number[] } };
const results: Record<string, Measured> = {};
for (const view of ['cluster', 'stage']) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(`http://127.0.0.1:${PORT}/?s=incident&view=${view}&bench`);
  await page.waitForSelector('canvas[data-drawn-t]', { timeout: 300_000 });
  // What loads after the first screen (the drawer's contents, later text, the probe's run) first.
  await page.waitForLoadState('networkidle');
  await page.evaluate('new Promise((resolve) => requestIdleCallback(() => requestIdleCallback(resolve), { timeout: 5000 }))');
  const scrub = (await page.evaluate(SCRUB_IN_PAGE)) as Measured['scrub'];
  const frame = (await page.evaluate(PLAY_IN_PAGE)) as Measured['frame'];
  const handoff = view === 'stage' ? ((await page.evaluate(PLAY_HANDOFF_IN_PAGE)) as Measured['frame']) : undefined;
  results[view] = { frame, scrub, ...(handoff ? { handoff } : {}) };
  await page.close();
}
const base = results.cluster!;
const stage = results.stage!;
const ms = (xs: number[]) => `p50 ${p50(xs).toFixed(1)} / p95 ${p95(xs).toFixed(1)} ms`;
console.log(
  `frame time while playing (incident, full scale, 60 s per s): stage ${ms(stage.frame.work)}; baseline (cluster view) ${ms(base.frame.work)}; ` +
    `goal p95 ≤ ${FRAME_GOAL_MS} ms: ${verdict(p95(stage.frame.work), FRAME_GOAL_MS)} (frame intervals: stage ${ms(stage.frame.intervals)}, baseline ${ms(base.frame.intervals)})`,
);
console.log(
  `scrub step (seek → canvases drawn): stage ${ms(stage.scrub.times)}; baseline (cluster view) ${ms(base.scrub.times)}; goal p95 ≤ ${SCRUB_GOAL_MS} ms: ${verdict(p95(stage.scrub.times), SCRUB_GOAL_MS)} ` +
    `(to the next frame: stage ${ms(stage.scrub.painted)}, baseline ${ms(base.scrub.painted)}; the first five steps, left out above: stage ${stage.scrub.warmup.map((x) => x.toFixed(1)).join(', ')} ms, baseline ${base.scrub.warmup.map((x) => x.toFixed(1)).join(', ')} ms)`,
);
const hand = stage.handoff!;
const HANDOFF_GOAL_MS = 8;
console.log(
  `frame time while the handoff clock plays (the microscope moving, one leaking request's whole handoff at 2×, ${hand.work.length} frames): ${ms(hand.work)}; ` +
    `baselines in this run: the stage while the incident's clock plays ${ms(stage.frame.work)}, the cluster view ${ms(base.frame.work)}; goal p95 ≤ ${HANDOFF_GOAL_MS} ms: ${verdict(p95(hand.work), HANDOFF_GOAL_MS)} (frame intervals ${ms(hand.intervals)})`,
);
await browser.close();
stop();
process.exit(0);
