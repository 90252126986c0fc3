import type { Page } from '@playwright/test';
import { runScenario } from '../src/engine/run.ts';
import { runSpecOf } from '../src/engine/runs/index.ts';
import { handoffScript, stepEnd } from '../src/app/moment/handoff.ts';
import { expect, openExplore, ready, settled, test } from './fixtures.ts';

/**
 * The same request at the same instant in every view, in English and in French (screenshots under
 * test-results/moment-views/ to look at), the what-if said when a switch differs from the incident's,
 * and the lens on the evidence. One link puts the moment; the views are reached by their tabs (the
 * moment stays), and every check and screenshot is taken once the page is at rest.
 */

const run = runScenario(runSpecOf({ scenario: 'demo', overrides: {} }), { keepDetails: true });
const LEAK = run.leaks[0]!.request;
const events = run.details!.events[LEAK]!;
const script = handoffScript(events, run.details!.responses[LEAK]!.tokens.length);
/** The end of decode's read: the block table as decode read it, the answer about to stream. */
const scan = script.steps.find((s) => s.id === 'scan')!;
const H = Math.round(stepEnd(scan) * 100) / 100;
const reserve = events.find((e) => e.type === 'decode-reserve')!;
const firstPage = reserve.type === 'decode-reserve' ? reserve.pages[0]![0] : 0;
const node = reserve.type === 'decode-reserve' ? `decode-${reserve.node}` : '';
const blockPages: number[] = [];
if (reserve.type === 'decode-reserve') for (const [first, count] of reserve.pages) for (let p = first; p < first + count; p++) blockPages.push(p);
const link = (lang: string, view: string, extra = '') => `./?s=demo&lang=${lang}&view=${view}&req=${LEAK}&t=${events[0]!.t}&h=${H}&page=${node}:${firstPage}${extra}`;
const SHOTS = 'test-results/moment-views';

async function open(page: Page, url: string) {
  await page.goto(url);
  await ready(page);
  await expect(page.getByTestId('stage')).toHaveAttribute('data-handoff', H.toFixed(2), { timeout: 30_000 });
  await settled(page);
}

/** Another view of the same moment, by its tab, once it is drawn and the page at rest. */
async function tab(page: Page, view: 'cluster' | 'response' | 'transfer') {
  await page.locator(`#tab-${view}`).click();
  await expect(page.locator(`#tab-${view}`)).toHaveAttribute('aria-selected', 'true');
  await settled(page);
}

/** Scrolled into view and at rest: what a screenshot of it shows. */
async function inView(page: Page, testId: string) {
  await page.getByTestId(testId).scrollIntoViewIfNeeded();
  await settled(page);
}

test.describe('one request, one instant, every view', () => {
  test.use({ viewport: { width: 1280, height: 900 } });
  for (const lang of ['en', 'fr']) {
    test(`the story, the stage, the Transfer view, the grids’ inspector and a token’s source agree (${lang})`, async ({ page }) => {
      await open(page, link(lang, 'transfer'));
      await page.screenshot({ path: `${SHOTS}/${lang}-1-story-stage.png` });
      await inView(page, 'block-table-summary');
      await page.locator('.transfer-view').screenshot({ path: `${SHOTS}/${lang}-2-transfer.png` });
      await inView(page, 'stage-microscope');
      await page.getByTestId('stage').screenshot({ path: `${SHOTS}/${lang}-3-stage-microscope.png` });
      // The stage's intro (its pages against the capacity) and its legend of every tenant its pools hold.
      await inView(page, 'stage-tenant-keys');
      await expect(page.getByTestId('stage-pool-padding')).toContainText(lang === 'en' ? 'page #0 is padding' : 'la page #0 sert de remplissage');
      await page.locator('.story .stage-view').screenshot({ path: `${SHOTS}/${lang}-3b-stage-intro-legend.png` });
      // The outcome tiles at this instant, each beside the whole run's.
      await openExplore(page);
      await settled(page);
      await page.locator('.counters').first().screenshot({ path: `${SHOTS}/${lang}-3c-tiles.png` });
      await page.getByTestId('explore-close').click();
      // The grids' inspector on the link's page, at the same moment.
      await tab(page, 'cluster');
      await expect(page.getByTestId('stage')).toHaveAttribute('data-handoff', H.toFixed(2));
      await expect(page.getByTestId('inspector-block')).toBeVisible();
      await page.getByTestId('inspector').screenshot({ path: `${SHOTS}/${lang}-4-inspector.png` });
      await page.locator('.cluster-view').screenshot({ path: `${SHOTS}/${lang}-4b-grids.png` });
      await tab(page, 'response');
      const token = page.getByTestId('response-tokens').locator('.tok').first();
      await token.hover();
      await expect(token).toHaveClass(/\blinked\b/);
      await settled(page);
      // The token's source by its block and its page: the block table's own numbering.
      const pageId = Number(await token.getAttribute('data-page'));
      const block = blockPages.indexOf(pageId);
      expect(block).toBeGreaterThanOrEqual(0);
      // Digits grouped as each language groups them: compared without the spaces.
      const said = ((await page.getByTestId('response-tokens-source').textContent()) ?? '').replace(/[\s,]/g, '');
      expect(said).toContain(`${lang === 'en' ? 'block' : 'bloc'}${block}→page#${pageId}`);
      await page.locator('.response-view, [data-testid="response-tokens"]').first().screenshot({ path: `${SHOTS}/${lang}-5-token.png` });
    });
  }

  test('a what-if says which switch differs and keeps the report’s figure the report’s; the lens leaves only the report', async ({ page }) => {
    await open(page, link('en', 'transfer', '&m=clear'));
    await expect(page.getByTestId('what-if')).toHaveAttribute('data-switches', 'clearPagesOnFree');
    await expect(page.getByTestId('what-if')).toContainText('What-if, not the incident');
    await expect(page.getByTestId('headline')).toHaveAttribute('data-what-if', 'true');
    await expect(page.getByTestId('timeline-svg')).toContainText('with fix: none chosen');
    await page.screenshot({ path: `${SHOTS}/en-6-what-if.png` });
    await page.getByTestId('lens').check();
    await expect(page).toHaveURL(/lens=report/);
    await expect(page.locator('html')).toHaveAttribute('data-lens', 'report');
    await settled(page);
    const opacity = (testId: string) => page.getByTestId(testId).evaluate((el) => Number(getComputedStyle(el).opacity));
    expect(await opacity('stage')).toBeLessThan(0.5);
    expect(await opacity('leaks-so-far')).toBeLessThan(0.5);
    expect(await opacity('headline')).toBe(1);
    await page.screenshot({ path: `${SHOTS}/en-7-lens.png` });
    // In the URL like every other state: a reload keeps it.
    await page.reload();
    await expect(page.getByTestId('lens')).toBeChecked();
  });

  for (const lang of ['en', 'fr']) {
    test(`the lens leaves only the report bright: every number shown in the header, the story, the stage (its own picture’s labels too), the counter, the tiles, the timeline and the grids is the report’s (inside a fact) or dimmed (${lang})`, async ({ page }) => {
      await open(page, link(lang, 'transfer', '&lens=report'));
      // The stage's picture: its own labels (a pool's pages, the tokens counted) dimmed by the picture
      // itself, not only by the story around it.
      expect(await brightNumbers(page, ['[data-testid="stage"] svg'], '[data-testid="stage"]'), `${lang}: the stage picture's labels left bright`).toEqual([]);
      expect(await brightNumbers(page, ['.timeline']), `${lang}: the timeline's modelled numbers left bright (demo)`).toEqual([]);
      await openExplore(page);
      await expect(page.getByTestId('count-requests')).toBeVisible();
      await settled(page);
      expect(await brightNumbers(page, ['.site-header', '[data-testid="story"]', '.scrub-bar', '.counters']), `${lang}: modelled numbers left bright under the lens`).toEqual([]);
      // The report's own figure stays at full strength.
      expect(await page.getByTestId('headline').locator('[data-fact]').first().evaluate((el) => Number(getComputedStyle(el).opacity))).toBe(1);
      await page.screenshot({ path: `${SHOTS}/${lang}-8-lens-audit.png` });
      await page.getByTestId('explore-close').click();
      // The grids: captions, the inspector, the legends.
      await tab(page, 'cluster');
      await expect(page.getByTestId('inspector-block')).toBeVisible();
      expect(await brightNumbers(page, ['.cluster-view']), `${lang}: the grids' modelled numbers left bright`).toEqual([]);
      await page.locator('.cluster-view').screenshot({ path: `${SHOTS}/${lang}-9b-lens-grids.png` });
    });

    test(`the lens on the first screen: each number of the timeline is the report’s (inside a fact) or dimmed, the report’s figures at full strength; the first screen keys its tenants (${lang})`, async ({ page }) => {
      // The first screen (the incident): the timeline says why each lane holds the same count.
      await page.goto(`./?lang=${lang}&lens=report`);
      await ready(page);
      const why = page.getByTestId('timeline-lanes-why');
      await expect(why).toBeVisible();
      // The first screen's picture keys the tenants whose colours it shows, within the first screen.
      const keys = page.locator('.story-picture [data-testid="stage-tenant-keys"]');
      await expect(keys.locator('li').first()).toBeVisible();
      await settled(page);
      const box = (await keys.boundingBox())!;
      expect(box.y + box.height, `${lang}: the tenant legend below the first screen`).toBeLessThanOrEqual(page.viewportSize()!.height);
      // The timeline: its chart (lanes, axis, the report's milestones) and what is said under it.
      expect(await brightNumbers(page, ['.timeline']), `${lang}: the timeline's modelled numbers left bright`).toEqual([]);
      // The report's 155 affected responses (F2) and its threshold (F4) where the timeline names them: kept, at full strength.
      for (const [id, figure] of [['F2', '155'], ['F4', lang === 'en' ? '681,280' : '681\u202f280']] as const) {
        const fact = why.locator(`[data-fact="${id}"]`).first();
        await expect(fact).toHaveText(figure);
        expect(await fact.evaluate((el) => { let o = 1; for (let e: Element | null = el; e; e = e.parentElement) o *= Number(getComputedStyle(e).opacity); return o; })).toBe(1);
      }
      // The report's milestones on the chart stay bright.
      expect(await page.locator('.timeline g.milestone-label[data-fact]').count()).toBeGreaterThan(0);
      await page.locator('.timeline').screenshot({ path: `${SHOTS}/${lang}-9-lens-timeline.png` });
    });
  }
});

/**
 * Every visible text with a digit in the regions, that is neither inside a fact (a fact's words with
 * their badge, or the badge) nor dimmed to opacity 0.5 or less. `within`: count only the opacity of
 * elements inside that ancestor (a picture's own dimming, not its surroundings').
 */
async function brightNumbers(page: Page, regions: string[], within?: string): Promise<string[]> {
  return page.evaluate(
    ({ regions, within }) => {
      const out: string[] = [];
      for (const region of regions.flatMap((r) => [...document.querySelectorAll(r)])) {
        const walk = document.createTreeWalker(region, NodeFilter.SHOW_TEXT);
        for (let n = walk.nextNode(); n; n = walk.nextNode()) {
          const text = (n.textContent ?? '').trim();
          const el = n.parentElement;
          if (!/\d/.test(text) || !el) continue;
          if (!el.checkVisibility({ visibilityProperty: true }) || el.closest('.visually-hidden, .tip, option, title')) continue;
          if (el.closest('[data-fact]')) continue;
          const stop = within ? el.closest(within) : null;
          let opacity = 1;
          for (let e: Element | null = el; e && e !== stop; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
          if (opacity > 0.5) out.push(`${el.closest('[data-testid]')?.getAttribute('data-testid') ?? el.tagName}: "${text.slice(0, 60)}" at opacity ${opacity.toFixed(2)}`);
        }
      }
      return out;
    },
    { regions, within },
  );
}
