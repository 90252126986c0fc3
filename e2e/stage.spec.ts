import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { runScenario } from '../src/engine/run.ts';
import { runSpecOf } from '../src/engine/runs/index.ts';
import { stageSteps, type StageStep } from '../src/app/views/stage/stageFrame.ts';
import { expect, ready, test } from './fixtures.ts';

/**
 * The stage in Chromium: its exposed state against the engine's own events for the demo's leaking
 * request, the same picture whichever way an instant is reached, keyboard only, reduced motion, axe,
 * and a screenshot of every step at two sizes.
 */

// The engine, run here in Node, says what happened; the page must agree.
const run = runScenario(runSpecOf({ scenario: 'demo', overrides: {} }), { keepDetails: true });
const LEAK = run.leaks[0]!.request;
const events = run.details!.events[LEAK]!;
const response = run.details!.responses[LEAK]!;
const steps = stageSteps(events);
const NORMAL = run.details!.responses.findIndex((r) => r && r.status === 200 && r.leakedFrom.length === 0);
const normalEvents = run.details!.events[NORMAL]!;

const step = (id: string, list: StageStep[] = steps) => list.find((s) => s.id === id)!;
/** A share of a step, on the URL's microsecond grid. */
const into = (s: StageStep, f: number) => Math.round((s.start + (Math.min(s.end, s.start + 1000) - s.start) * f) * 1000) / 1000;
const link = (t: number, req = LEAK, extra = '') => `./?s=demo&view=stage&req=${req}&t=${t}${extra}`;

async function open(page: Page, url: string) {
  await page.goto(url);
  await ready(page);
  await expect(page.getByTestId('stage')).toBeVisible({ timeout: 30_000 });
}

const stage = (page: Page) => page.getByTestId('stage-main');

/**
 * A screenshot of the stage row after Chromium has painted all of it afresh. Chromium repaints
 * only the parts of a layer that changed, and an antialiased edge repainted that way can differ in
 * its last bit from the same edge painted whole (seen with Chromium 156: same DOM, same canvas
 * pixels, a line along the RDMA link off by one level). Briefly changing the row's opacity makes
 * it paint whole, so the comparison is of the picture the page draws, not of the repaint's history.
 */
async function wholeScreenshot(page: Page): Promise<Buffer> {
  await page.getByTestId('stage-main').evaluate(async (el: HTMLElement) => {
    const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    el.style.opacity = '0.99';
    await frames();
    el.style.opacity = '';
    await frames();
  });
  return page.getByTestId('stage-main').screenshot();
}

test.describe('the stage', () => {
  test('at fixed instants of the leaking request, the stage shows what the engine logged', async ({ page }) => {
    const arrive = events.find((e) => e.type === 'arrive')!;
    const reserve = events.find((e) => e.type === 'decode-reserve')!;
    const transfer = events.find((e) => e.type === 'kv-transfer')!;
    const answered = events.find((e) => e.type === 'response')!;
    if (arrive.type !== 'arrive' || reserve.type !== 'decode-reserve' || transfer.type !== 'kv-transfer' || answered.type !== 'response') throw new Error('the demo changed');
    // Before it arrives: nothing.
    await open(page, link(Math.floor(arrive.t) - 5));
    await expect(stage(page)).toHaveAttribute('data-step', 'idle');
    await expect(stage(page)).toHaveAttribute('data-status', '');
    // Arriving: all N tokens; after the abort, one.
    await open(page, link(into(step('arrive'), 0.5)));
    await expect(stage(page)).toHaveAttribute('data-step', 'arrive');
    await expect(stage(page)).toHaveAttribute('data-input-tokens', String(arrive.tokens));
    await open(page, link(step('route').start));
    await expect(stage(page)).toHaveAttribute('data-input-tokens', '1');
    // Halfway through the reservation, part of ceil(N / P) pages is lit; at the next step all of them.
    await open(page, link(into(step('reserve'), 0.5)));
    await expect(stage(page)).toHaveAttribute('data-step', 'reserve');
    const half = Number(await stage(page).getAttribute('data-reserved-lit'));
    expect(half).toBeGreaterThan(0);
    expect(half).toBeLessThan(reserve.pageCount);
    await open(page, link(step('prefill-alloc').start));
    await expect(stage(page)).toHaveAttribute('data-reserved-lit', String(Math.ceil(arrive.tokens / run.phases[0]!.pageSize)));
    // The link carries the pages the transfer wrote: one.
    await open(page, link(into(step('compute'), 0.5)));
    await expect(stage(page)).toHaveAttribute('data-step', 'compute');
    await expect(stage(page)).toHaveAttribute('data-beam-pages', String(transfer.pagesWritten));
    expect(transfer.pagesWritten).toBe(1);
    await expect(page.getByTestId('stage-beam')).toContainText('carries 1 page');
    // The done message says room and Success, nothing else.
    await open(page, link(into(step('done'), 0.5)));
    await expect(page.getByTestId('stage-message')).toContainText('Success');
    await expect(page.getByTestId('stage-message')).toContainText('no token count, no page count');
    // Tokens stream out one by one; the status arrives after them.
    await open(page, link(into(step('stream'), 0.5)));
    const shown = Number(await stage(page).getAttribute('data-tokens-shown'));
    expect(shown).toBeGreaterThan(0);
    expect(shown).toBeLessThan(response.tokens.length);
    await expect(stage(page)).toHaveAttribute('data-status', '');
    await open(page, link(step('reuse').start));
    await expect(stage(page)).toHaveAttribute('data-tokens-shown', String(response.tokens.length));
    await expect(stage(page)).toHaveAttribute('data-status', String(answered.status));
    await expect(page.getByTestId('stage-http')).toContainText(`HTTP ${answered.status}`);
    // A request served normally carries all of its pages on the link.
    const nSteps = stageSteps(normalEvents);
    const nTransfer = normalEvents.find((e) => e.type === 'kv-transfer')!;
    if (nTransfer.type !== 'kv-transfer') throw new Error('the demo changed');
    await open(page, link(into(step('compute', nSteps), 0.5), NORMAL));
    await expect(stage(page)).toHaveAttribute('data-beam-pages', String(nTransfer.pagesWritten));
    expect(nTransfer.pagesWritten).toBeGreaterThan(1);
  });

  test('the same instant reached by playing, by scrubbing backward and by a link gives the same picture', async ({ browser }) => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
    const page = await context.newPage();
    // Playing: from early in the token stream at one simulated second per second, then paused.
    await open(page, link(into(step('stream'), 0.05), LEAK, '&speed=1&bench'));
    await page.getByRole('button', { name: 'Play' }).click();
    await page.waitForTimeout(120);
    await page.getByRole('button', { name: 'Pause' }).click();
    const played = await page.evaluate(() => (window as unknown as { __stalePages: { state: () => { time: number } } }).__stalePages.state().time);
    expect(played).toBeGreaterThan(into(step('stream'), 0.05));
    await page.waitForTimeout(200);
    const byPlaying = await wholeScreenshot(page);
    // Scrubbing backward to the same instant, from later on.
    const seek = (p: Page, t: number) => p.evaluate((ms) => (window as unknown as { __stalePages: { seek: (t: number) => void } }).__stalePages.seek(ms), t);
    await seek(page, step('reuse').start + 50);
    await expect(stage(page)).toHaveAttribute('data-step', 'reuse');
    await seek(page, played);
    await page.waitForTimeout(200);
    expect((await wholeScreenshot(page)).equals(byPlaying), 'playing and scrubbing back to the same instant').toBe(true);
    // A link to an instant, and scrubbing back to it from later on.
    const t = into(step('scan'), 0.5);
    await open(page, link(t, LEAK, '&bench'));
    await page.waitForTimeout(200);
    const byLink = await wholeScreenshot(page);
    const other = await context.newPage();
    await open(other, link(step('reuse').start, LEAK, '&bench'));
    await seek(other, t);
    await expect(other.getByTestId('stage-main')).toHaveAttribute('data-step', 'scan');
    await other.waitForTimeout(200);
    expect((await wholeScreenshot(other)).equals(byLink), 'a link and scrubbing back to the same instant').toBe(true);
    await context.close();
  });

  test('keyboard only: focus the stage, step forward and back, each step announced once', async ({ page }) => {
    await open(page, link(steps[0]!.start));
    // Tab until the stage has focus.
    for (let i = 0; i < 80; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate(() => document.activeElement?.getAttribute('data-testid') === 'stage')) break;
    }
    const root = page.getByTestId('stage');
    await expect(root).toBeFocused();
    const outline = await root.evaluate((el) => getComputedStyle(el).outlineStyle);
    expect(outline).not.toBe('none');
    const live = page.getByTestId('stage-caption');
    await expect(live).toHaveAttribute('aria-live', 'polite');
    const seen: string[] = [];
    for (let i = 1; i < steps.length; i++) {
      await page.keyboard.press('ArrowRight');
      await expect(root).toHaveAttribute('data-step', steps[i]!.id);
      seen.push((await live.textContent()) ?? '');
    }
    // One sentence per step: consecutive steps never repeat the announcement.
    for (let i = 1; i < seen.length; i++) expect(seen[i], `step ${steps[i + 1]!.id}`).not.toBe(seen[i - 1]);
    await page.keyboard.press('ArrowLeft');
    await expect(root).toHaveAttribute('data-step', steps[steps.length - 2]!.id);
    await page.keyboard.press('Home');
    await expect(root).toHaveAttribute('data-step', steps[0]!.id);
    await page.keyboard.press('End');
    await expect(root).toHaveAttribute('data-step', 'reuse');
  });

  test('reduced motion shows each step’s end state', async ({ page }) => {
    const reserve = events.find((e) => e.type === 'decode-reserve')!;
    if (reserve.type !== 'decode-reserve') throw new Error('the demo changed');
    await open(page, link(step('reserve').start));
    await expect(stage(page)).toHaveAttribute('data-reserved-lit', '0');
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await expect(page.getByTestId('stage')).toHaveAttribute('data-reduced-motion', 'true');
    await expect(stage(page)).toHaveAttribute('data-reserved-lit', String(reserve.pageCount));
    await open(page, link(step('stream').start));
    await expect(stage(page)).toHaveAttribute('data-tokens-shown', String(response.tokens.length));
  });

  test('with the fixed reject path compared, a second row refuses the request with 400 at admission', async ({ page }, info) => {
    const fixed = runScenario(runSpecOf({ scenario: 'demo', overrides: { rejectPath: 'fixed' } }), { keepDetails: true }).details!.events[LEAK]!;
    const reject = fixed.find((e) => e.type === 'reject');
    expect(reject && reject.type === 'reject' ? reject.stage : null).toBe('admission');
    expect(fixed.some((e) => e.type === 'decode-reserve')).toBe(false);
    await open(page, link(into(step('stream'), 0.5), LEAK, '&cmp=path'));
    const fix = page.getByTestId('stage-fix');
    await expect(fix).toBeVisible({ timeout: 30_000 });
    await expect(fix).toHaveAttribute('data-status', '400');
    await expect(fix).toHaveAttribute('data-reserved-lit', '0');
    await expect(stage(page)).toHaveAttribute('data-status', '');
    await expect(fix.getByTestId('stage-refused')).toContainText('refused at admission');
    await page.getByTestId('stage').screenshot({ path: info.outputPath('fix-path.png') });
  });

  test('with the integrity check compared, the second row fails closed: no token is read out', async ({ page }, info) => {
    await open(page, link(step('reuse').start, LEAK, '&cmp=integrity'));
    const fix = page.getByTestId('stage-fix');
    await expect(fix).toBeVisible({ timeout: 30_000 });
    await expect(fix).toHaveAttribute('data-tokens-shown', '0');
    await expect(fix).not.toHaveAttribute('data-status', '200');
    await expect(fix).toContainText('integrity check failed');
    await expect(stage(page)).toHaveAttribute('data-status', '200');
    await page.getByTestId('stage').screenshot({ path: info.outputPath('fix-integrity.png') });
  });

  test('axe finds no serious or critical violation on the stage', async ({ page }) => {
    await open(page, link(into(step('stream'), 0.5), LEAK, '&cmp=path'));
    await expect(page.getByTestId('stage-fix')).toBeVisible({ timeout: 30_000 });
    const results = await new AxeBuilder({ page }).analyze();
    const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`)).toEqual([]);
  });

  for (const size of [
    { width: 1280, height: 720 },
    { width: 390, height: 844 },
  ]) {
    test(`a screenshot of every step at ${size.width}×${size.height}`, async ({ page }, info) => {
      // Every step is opened by its own link (~3 s each on two busy cores), so the default minute is
      // too short once a second test runs beside this one.
      test.setTimeout(240_000);
      await page.setViewportSize(size);
      for (const s of steps) {
        await open(page, link(into(s, 0.6)));
        await expect(stage(page)).toHaveAttribute('data-step', s.id);
        await page.getByTestId('stage').screenshot({ path: info.outputPath(`${size.width}-${String(steps.indexOf(s)).padStart(2, '0')}-${s.id}.png`) });
      }
    });
  }
});
