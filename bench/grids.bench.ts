/**
 * Grid redraw benchmark in headless Chromium: one scrub step (set the time → every page grid drawn
 * for it), drawn p50 / p95, with the grids repainting only the pages whose look changed against the
 * same page repainting every page on every step (the way they were drawn before), in one run, on
 * the same instants. Two kinds of step: a drag (consecutive instants a few seconds of screen apart,
 * what a person scrubbing does) and random jumps across the window.
 */
import { launchChromium, quantiles, serveSite } from './harness.ts';

const PORT = Number(process.env.BENCH_PORT ?? 4322);
const site = await serveSite(PORT);
const browser = await launchChromium();

// Runs in the page (a string: the TS runner would inject helpers the page lacks). Each round runs
// the same instants in both modes, alternating which goes first, so drift in the machine's load
// falls on both alike.
const SCRUB_IN_PAGE = `(async ({ kind, rounds, steps }) => {
  const hook = window.__stalePages;
  const end = Number(document.querySelector('[role="slider"]').getAttribute('aria-valuemax'));
  const start = hook.state().time;
  const canvases = () => [...document.querySelectorAll('canvas[data-node]')];
  const drawn = (t) => canvases().every((c) => c.dataset.drawnT === String(t));
  const settle = (t) => new Promise((resolve) => {
    if (drawn(t)) return resolve();
    const mo = new MutationObserver(() => { if (drawn(t)) { mo.disconnect(); resolve(); } });
    for (const c of canvases()) mo.observe(c, { attributes: true, attributeFilter: ['data-drawn-t'] });
  });
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const out = { full: [], dirty: [], paintedFull: [], paintedDirty: [], repaintedFull: 0, repaintedDirty: 0, pages: 0 };
  for (let round = 0; round < rounds; round++) {
    const targets = [];
    // A drag: 1/2000 of the window per step (about ten minutes of the incident's two weeks).
    let t = kind === 'drag' ? Math.min(end, start + rand() * end * 0.05) : 0;
    for (let i = 0; i < steps; i++) {
      t = kind === 'drag' ? Math.min(end, t + end / 2000) : Math.floor(rand() * end);
      targets.push(Math.floor(t));
    }
    const modes = round % 2 === 0 ? ['full', 'dirty'] : ['dirty', 'full'];
    for (const mode of modes) {
      hook.gridRedraw(mode);
      // Start each pass from the same instant, drawn, so both begin alike.
      hook.seek(targets[0] - 1);
      await settle(targets[0] - 1);
      await new Promise((r) => requestAnimationFrame(() => r(null)));
      for (const target of targets) {
        const t0 = performance.now();
        hook.seek(target);
        await settle(target);
        out[mode].push(performance.now() - t0);
        const repainted = canvases().reduce((n, c) => n + Number(c.dataset.repainted ?? 0), 0);
        if (mode === 'full') out.repaintedFull += repainted; else out.repaintedDirty += repainted;
        await new Promise((r) => requestAnimationFrame(() => r(null)));
        (mode === 'full' ? out.paintedFull : out.paintedDirty).push(performance.now() - t0);
      }
    }
  }
  out.pages = canvases().length;
  hook.gridRedraw('dirty');
  return out;
})`;

const SCENARIOS = (process.env.BENCH_SCENARIOS ?? 'incident').split(',');
for (const scenario of SCENARIOS) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(`http://127.0.0.1:${PORT}/?s=${scenario}&bench`);
  await page.waitForSelector('canvas[data-node][data-drawn-t]', { timeout: 300_000 });
  for (const kind of ['drag', 'jump'] as const) {
    const r = (await page.evaluate(`${SCRUB_IN_PAGE}(${JSON.stringify({ kind, rounds: 4, steps: 30 })})`)) as { full: number[]; dirty: number[]; paintedFull: number[]; paintedDirty: number[]; repaintedFull: number; repaintedDirty: number; pages: number };
    const full = quantiles(r.full);
    const dirty = quantiles(r.dirty);
    const paintedFull = quantiles(r.paintedFull);
    const paintedDirty = quantiles(r.paintedDirty);
    console.log(
      `grid scrub step (${kind}), scenario ${scenario}, ${r.pages} grids, ${r.full.length} steps each: ` +
        `drawn p50 / p95 — every page repainted (before) ${full(0.5).toFixed(1)} / ${full(0.95).toFixed(1)} ms; ` +
        `changed pages only (now) ${dirty(0.5).toFixed(1)} / ${dirty(0.95).toFixed(1)} ms; ` +
        `painted (next frame) ${paintedFull(0.5).toFixed(1)} / ${paintedFull(0.95).toFixed(1)} → ${paintedDirty(0.5).toFixed(1)} / ${paintedDirty(0.95).toFixed(1)} ms; ` +
        `pages repainted per step ${Math.round(r.repaintedFull / r.full.length)} → ${Math.round(r.repaintedDirty / r.dirty.length)}; goal drawn p95 ≤ 8 ms: ${dirty(0.95) <= 8 ? 'met' : 'not met'}`,
    );
  }
  await page.close();
}
await browser.close();
site.stop();
process.exit(0);
