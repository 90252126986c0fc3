import fc from 'fast-check';
import type { Page } from '@playwright/test';
import { computeRun } from '../src/app/run/computeRun.ts';
import { summaryOf, type RequestDetail, type RunSummary } from '../src/app/run/summary.ts';
import { momentOf } from '../src/app/moment/moment.ts';
import { INCIDENT_SWITCHES, overridesOf, type SwitchKey } from '../src/engine/switches.ts';
import { expect, openExplore, ready, settled, test } from './fixtures.ts';

/**
 * One moment, one truth, in the built page: a sample of random moments (two switch settings of the
 * demo, a request that reached decode, the incident's instant or the handoff clock anywhere in its
 * handoff, a block of its table selected in the grids) put into the page, and every view's rendered
 * numbers and names held to the one function (moment/moment.ts) computed here in Node over the same
 * run: the stage's step and streamed tokens, the Transfer view's current step and block table (counts
 * and every owner), the microscope's rows (block i → page #p), the grids' inspector (the block, the
 * page's writer at the moment), the leak counter and the story's standing, the outcome tiles (each
 * as of the moment beside the whole run's), and a token of the answer hovered in the story (its
 * node, block, page and the request and tenant whose KV its slot held).
 *
 * The walk over many moments is in Node, where it is cheap: src/app/views/transfer/momentViews.test.ts
 * puts 100 moments per setting (these draws: the sample here is their first ten) through the pure
 * functions the views render. This spec proves the page renders what those functions say.
 */

/** Moments per setting put into the page: the first of the Node walk's draws (its seeds: SEED, SEED + 1). */
const SAMPLE = 10;
/** Each setting's ten include tokens drawn on another request's KV (or zeros), whose hover names them. */
const SEED = 37;

interface Setting {
  name: string;
  flipped: Partial<Record<SwitchKey, boolean>>;
  /** The switches in the URL's words. */
  query: string;
}
const SETTINGS: Setting[] = [
  { name: 'the incident’s switches', flipped: {}, query: '' },
  { name: 'pages cleared on free', flipped: { clearPagesOnFree: true }, query: '&m=clear' },
];

function nodeRun(flipped: Setting['flipped']): { run: RunSummary; detail: (req: number) => RequestDetail } {
  const overrides = overridesOf({ ...INCIDENT_SWITCHES, ...flipped });
  const { run, details } = computeRun({ scenario: 'demo', overrides }, { keepDetails: true });
  const detail = (req: number): RequestDetail => ({ runKey: 'node', response: details!.responses[req]!, events: details!.events[req]!, words: details!.words });
  return { run: summaryOf({ ...run, elapsedMs: 0 }, 'node', async (req) => ({ ...detail(req) })), detail };
}

interface Expected {
  req: number;
  time: number;
  handoff: number | null;
  /** The stage's data-handoff once it shows the moment. */
  h: string;
  stepIndex: number;
  tokensShown: number;
  leaksSent: number;
  phase: 'before' | 'in-flight' | 'answered';
  written: number;
  stale: number;
  owners: string[];
  node: string;
  pages: readonly number[];
  /** A block of the table selected in the grids, its page and who last wrote that page at the moment. */
  block: number;
  writer: string | null;
  /** The outcome tiles: as of the moment, and the whole run's. */
  tiles: Record<TileId, { now: number; total: number }>;
  /** A token of the answer to hover, and its source as the moment says (null: the answer has no token). */
  token: { index: number; count: number; node: string; block: number; page: number; writer: string | null; tenant: string | null; own: boolean } | null;
}

const TILES = { requests: 'requests', served: 'served', rejected: 'rejected', errors: 'errors', leaked: 'leaked', canary: 'canaryLeaks', breach: 'integrityBreaches', wrong: 'wrongOutputs' } as const;
type TileId = keyof typeof TILES;

function expectedMoments(setting: Setting, count: number, seed: number): Expected[] {
  const { run, detail } = nodeRun(setting.flipped);
  const handedOff = Array.from({ length: run.requests.count }, (_, i) => i).filter((i) => run.requests.pagesReserved[i]! > 0);
  const draws = fc.sample(fc.record({ k: fc.nat(), share: fc.noBias(fc.integer({ min: 0, max: 10_000 })).map((x) => x / 10_000), clock: fc.boolean(), block: fc.nat(), tok: fc.nat() }), { numRuns: count, seed });
  return draws.map(({ k, share, clock, block, tok }) => {
    const req = handedOff[k % handedOff.length]!;
    const d = detail(req);
    const arrive = d.events[0]!.t;
    const end = d.events[d.events.length - 1]!.t;
    const total = momentOf({ run, req, detail: d, time: arrive, handoff: 0, reducedMotion: false }).script.total;
    const handoff = clock ? Math.round(share * total * 100) / 100 : null;
    const time = handoff !== null ? arrive : Math.round((arrive + share * (end - arrive)) * 1000) / 1000;
    const m = momentOf({ run, req, detail: d, time, handoff, reducedMotion: false });
    const pages = m.blockTable.pages;
    const b = block % pages.length;
    const n = m.snapshot!.nodes.find((x) => x.name === m.blockTable.node)!;
    const w = n.writerTenant[pages[b]!]!;
    const r = run.requests;
    const tokens = d.response.tokens.length;
    const src = tokens > 0 ? m.tokenSources[tok % tokens]! : null;
    const tiles = Object.fromEntries(Object.entries(TILES).map(([id, key]) => [id, { now: m.outcomes.now[key], total: m.outcomes.total[key] }])) as Expected['tiles'];
    return {
      req,
      time,
      handoff,
      h: Math.max(0, m.position.h).toFixed(2),
      stepIndex: m.position.index,
      tokensShown: m.frame.tokensShown,
      leaksSent: m.leaksSent,
      phase: m.engineT >= r.finishedAt[req]! ? 'answered' : m.engineT >= r.arrivedAt[req]! ? 'in-flight' : 'before',
      written: m.blockTable.written,
      stale: m.blockTable.stale,
      owners: m.blockTable.staleByTenant.map((x) => m.roster[x.tenant]!),
      node: m.blockTable.node,
      pages,
      block: b,
      writer: w >= 0 ? m.roster[w]! : null,
      tiles,
      token: src ? { index: tok % tokens, count: tokens, node: src.node, block: src.block, page: src.page, writer: src.writerRequest >= 0 ? r.ids[src.writerRequest]! : null, tenant: src.writerTenant, own: src.writerRequest === req } : null,
    };
  });
}

interface Shown {
  stageH: string | undefined;
  stepIndex: number;
  tokensShown: number;
  counter: number;
  phase: string | undefined;
  transferCurrent: number;
  summary: string;
  micro: string[];
  inspector: string;
  inspectorBlock: string;
  tiles: Record<string, { now: string; total: string }>;
}

type Hook = { state: () => { set: (p: object) => void } };

/** Puts a moment into the page's store (one patch: the handoff clock stays where it is put). */
async function put(page: Page, e: Expected, view: 'transfer' | 'cluster') {
  await page.evaluate(
    ({ e, view }) => (window as unknown as { __stalePages: Hook }).__stalePages.state().set({ view, selectedRequest: e.req, time: e.time, handoff: e.handoff, selectedPage: { node: e.node, page: e.pages[e.block] } }),
    { e: { req: e.req, time: e.time, handoff: e.handoff, node: e.node, pages: [...e.pages], block: e.block }, view },
  );
}

async function shown(page: Page, e: Expected, view: 'transfer' | 'cluster'): Promise<Shown> {
  // The state the put leads to: the stage at the moment's handoff time and the view with its parts;
  // then the page at rest (the request's detail fetched, every view drawn).
  await expect(page.getByTestId('stage')).toHaveAttribute('data-handoff', e.h);
  await expect(page.getByTestId(view === 'transfer' ? 'block-table-summary' : 'inspector-block')).toBeAttached();
  await settled(page);
  return page.evaluate((ids) => {
    const q = (id: string) => document.querySelector<HTMLElement>(`[data-testid="${id}"]`);
    return {
      stageH: q('stage')?.dataset.handoff,
      stepIndex: Number(q('stage')?.dataset.stepIndex),
      tokensShown: Number(q('stage-main')?.dataset.tokensShown),
      counter: Number(q('leaks-so-far')?.dataset.count),
      phase: q('story-when')?.dataset.phase,
      transferCurrent: [...document.querySelectorAll('.transfer-view ol.steps li')].findIndex((li) => li.getAttribute('aria-current') === 'step'),
      summary: q('block-table-summary')?.textContent ?? '',
      micro: [...document.querySelectorAll('[data-testid="stage-microscope"] ul li')].map((li) => li.textContent ?? ''),
      inspector: q('inspector')?.textContent ?? '',
      inspectorBlock: q('inspector-block')?.textContent ?? '',
      tiles: Object.fromEntries(ids.map((id) => [id, { now: q(`count-${id}-now`)?.textContent ?? '', total: q(`count-${id}`)?.textContent ?? '' }])),
    };
  }, Object.keys(TILES));
}

/** Hovers the token of the answer the moment names in the story, and reads what the page says of its source. */
async function hovered(page: Page, e: Expected): Promise<string | null> {
  const tok = e.token;
  if (!tok) return null;
  const tokens = page.getByTestId('story-tokens').locator('.tok');
  // The story's answer is the selected request's: its token count, and the token's page.
  await expect(tokens).toHaveCount(tok.count);
  await expect(tokens.nth(tok.index)).toHaveAttribute('data-page', String(tok.page));
  await tokens.nth(tok.index).hover();
  // Named below once it is the token pointed at (the last one pointed at stays named until then).
  await expect(tokens.nth(tok.index)).toHaveClass(/\blinked\b/);
  await settled(page);
  const said = await page.getByTestId('story-tokens-source').textContent();
  await page.mouse.move(1, 1);
  return said ?? '';
}

const num = (s: string) => Number(s.replaceAll(',', ''));
const fmt = (n: number) => n.toLocaleString('en-US');

/** What differs between the page and the moment, by check (empty: every view agrees). */
function compare(e: Expected, transfer: Shown, cluster: Shown, source: string | null): string[] {
  const bad: string[] = [];
  for (const [id, want] of Object.entries(e.tiles)) {
    const got = transfer.tiles[id]!;
    if (got.now === '' || num(got.now) !== want.now || num(got.total) !== want.total) bad.push(`tile ${id} "${got.now} of ${got.total}" ≠ ${want.now} of ${want.total}`);
  }
  if (e.token) {
    const t = e.token;
    const from = /Drawn from (\S+), (?:block ([\d,]+) → )?page #(-?[\d,]+):/.exec(source ?? '');
    const by = /written by request (\S+) of (\S+) \(/.exec(source ?? '');
    const want = `${t.node}, ${t.block >= 0 ? `block ${t.block} → ` : ''}page #${t.page}: ${t.writer ? `${t.writer} of ${t.tenant}` : 'no writer'}`;
    const got = from ? `${from[1]}, ${from[2] !== undefined ? `block ${num(from[2])} → ` : ''}page #${num(from[3]!)}: ${by ? `${by[1]} of ${by[2]}` : 'no writer'}` : `"${(source ?? '').slice(0, 60)}"`;
    if (got !== want) bad.push(`token hover ${got} ≠ ${want}`);
  }
  if (transfer.stepIndex !== e.stepIndex) bad.push(`stage step ${transfer.stepIndex} ≠ ${e.stepIndex}`);
  if (transfer.tokensShown !== e.tokensShown) bad.push(`stage tokens ${transfer.tokensShown} ≠ ${e.tokensShown}`);
  if (transfer.transferCurrent !== e.stepIndex) bad.push(`transfer step ${transfer.transferCurrent} ≠ ${e.stepIndex}`);
  if (transfer.counter !== e.leaksSent) bad.push(`counter ${transfer.counter} ≠ ${e.leaksSent}`);
  if (transfer.phase !== e.phase) bad.push(`story ${transfer.phase} ≠ ${e.phase}`);
  const m = /([\d,]+) written for it · ([\d,]+) stale/.exec(transfer.summary);
  if (!m || num(m[1]!) !== e.written || num(m[2]!) !== e.stale) bad.push(`block table "${transfer.summary}" ≠ ${e.written} written, ${e.stale} stale`);
  const named = [...transfer.summary.matchAll(/[\d,]+ of ([a-z]+)/g)].map((x) => x[1]!);
  if (named.join() !== e.owners.join()) bad.push(`block table owners [${named}] ≠ [${e.owners}]`);
  // The microscope's page rows (a band of pages between them names a count, not a page).
  for (const row of transfer.micro.filter((x) => /^(page|block) [\d,]+ · /.test(x))) {
    const r = /^block ([\d,]+) · page #([\d,]+)/.exec(row);
    if (!r) bad.push(`microscope row "${row.slice(0, 40)}" names no block and page`);
    else if (e.pages[num(r[1]!)] !== num(r[2]!)) bad.push(`microscope block ${r[1]} → page #${r[2]} ≠ page #${e.pages[num(r[1]!)]}`);
  }
  if (!cluster.inspector.includes(`page #${fmt(e.pages[e.block]!)}`)) bad.push(`inspector "${cluster.inspector.slice(0, 40)}" lacks page #${e.pages[e.block]}`);
  if (!cluster.inspectorBlock.includes(`block ${fmt(e.block)} `)) bad.push(`inspector block "${cluster.inspectorBlock}" ≠ block ${e.block}`);
  const writer = /Last written by(.*?)Held by/.exec(cluster.inspector)?.[1] ?? cluster.inspector;
  if (e.writer === null ? !writer.includes('never written') && !writer.includes('Never written') : !writer.includes(e.writer)) bad.push(`inspector writer "${writer.slice(0, 50)}" ≠ ${e.writer ?? 'never written'}`);
  return bad;
}

test.describe('one moment, one truth', () => {
  for (const [i, setting] of SETTINGS.entries()) {
    test(`${SAMPLE} random moments of the demo (${setting.name}): every view’s numbers and names are the moment’s`, async ({ page }) => {
      test.setTimeout(180_000);
      const moments = expectedMoments(setting, SAMPLE, SEED + i);
      const first = moments[0]!;
      await page.goto(`./?bench&lang=en&s=demo${setting.query}&view=transfer&req=${first.req}&t=${first.time}`);
      await ready(page);
      // The tiles are in the Explore drawer: opened once, they stay in the page (hidden when it is closed).
      await openExplore(page);
      await page.getByTestId('explore-close').click();
      const failures = new Map<string, number>();
      // One example of each kind of failure.
      const examples = new Map<string, string>();
      for (const e of moments) {
        await put(page, e, 'transfer');
        const transfer = await shown(page, e, 'transfer');
        const source = await hovered(page, e);
        await put(page, e, 'cluster');
        const cluster = await shown(page, e, 'cluster');
        const bad = compare(e, transfer, cluster, source);
        for (const b of bad) {
          const kind = b.replace(/"[^"]*"|\[.*?\]|[\d,#]+/g, '').split(/\s+/).slice(0, 3).join(' ');
          failures.set(kind, (failures.get(kind) ?? 0) + 1);
          if (!examples.has(kind)) examples.set(kind, `req ${e.req} t=${e.time} h=${e.handoff}: ${b}`);
        }
      }
      // The hover was put to the test: most moments' answers have tokens, some not drawn on the request's own
      // KV (another request's, under the incident's switches; zeros, with pages cleared on free).
      const tokens = moments.filter((e) => e.token);
      expect(tokens.length).toBeGreaterThan(SAMPLE / 2);
      expect(tokens.filter((e) => !e.token!.own).length).toBeGreaterThan(0);
      const summary = [...failures.entries()].map(([k, n]) => `${n}× ${k}`);
      const said = [...examples.values()].join('\n  ');
      if (summary.length > 0) console.log(`${setting.name}:\n  ${summary.join('\n  ')}\n  ${said}`);
      expect(summary, said).toEqual([]);
    });
  }
});
