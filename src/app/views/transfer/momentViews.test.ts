import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INCIDENT_SWITCHES, overridesOf, type SwitchKey } from '../../../engine/switches.ts';
import { formatNumber } from '../../i18n/format.ts';
import { translate, type Translate } from '../../i18n/messages.ts';
import { momentOf, outcomesBy, tokenSourcesOf } from '../../moment/moment.ts';
import { computeRun } from '../../run/computeRun.ts';
import { summaryOf, type RequestDetail, type RunSummary } from '../../run/summary.ts';
import { inspectedBlock, inspectorText } from '../cluster/inspectorText.ts';
import { focusOf } from '../cluster/relation.ts';
import { counterCells } from '../controls/counterCells.ts';
import { tokenSourceAt, tokenSourceText } from '../response/tokenSourceText.ts';
import { momentEngineTime } from '../shared/useMoment.ts';
import { drawsByPage, microPageLabel, microscopeRowsAt, picturePlan } from '../stage/microscope.ts';
import { leaksSentBy, storyFactsOf, storyPhaseAt, storyRequestOf } from '../story/storyText.ts';
import { blockTableSummaryText } from './blockTableText.ts';

/**
 * One moment, one truth, in Node: 200 random moments (two switch settings of the demo, a request
 * that reached decode, the incident's instant or the handoff clock anywhere in its handoff, a block
 * of its table selected in the grids, a token of its answer hovered), and for each, what every view
 * says of it, computed through the pure functions the views render (the hooks' engine time, the
 * Transfer view's block table summary, the stage picture's microscope rows, the grids' inspector, the
 * leak counter, the story's standing, the outcome tiles, a token's source sentence), held to
 * `momentOf` as `e2e/moment.spec.ts` holds the built page: the same draws (its sample of ten moments
 * per setting is the first ten of these), the same checks on the English words. That spec shows the
 * page renders these functions' words; this one walks the moments where it is cheap.
 */

interface Setting {
  name: string;
  flipped: Partial<Record<SwitchKey, boolean>>;
  seed: number;
}
const SETTINGS: Setting[] = [
  { name: 'the incident’s switches', flipped: {}, seed: 37 },
  { name: 'pages cleared on free', flipped: { clearPagesOnFree: true }, seed: 38 },
];
const MOMENTS = 100;

/** The draws of e2e/moment.spec.ts: a request, a share of its handoff, which clock, a block, a token. */
const DRAW = fc.record({ k: fc.nat(), share: fc.noBias(fc.integer({ min: 0, max: 10_000 })).map((x) => x / 10_000), clock: fc.boolean(), block: fc.nat(), tok: fc.nat() });

type Draw = typeof DRAW extends fc.Arbitrary<infer T> ? T : never;

function nodeRun(flipped: Setting['flipped']): { run: RunSummary; detail: (req: number) => RequestDetail } {
  const overrides = overridesOf({ ...INCIDENT_SWITCHES, ...flipped });
  const { run, details } = computeRun({ scenario: 'demo', overrides }, { keepDetails: true });
  // One detail object per request, as the page's query cache keeps one (the moment caches by it).
  const cache = new Map<number, RequestDetail>();
  const detail = (req: number): RequestDetail => {
    let d = cache.get(req);
    if (!d) cache.set(req, (d = { runKey: 'node', response: details!.responses[req]!, events: details!.events[req]!, words: details!.words }));
    return d;
  };
  return { run: summaryOf({ ...run, elapsedMs: 0 }, 'node', async (req) => ({ ...detail(req) })), detail };
}

const t: Translate = (key, vars) => translate('en', key, vars);
const fmt = (n: number) => formatNumber(n, 'en');
const num = (s: string) => Number(s.replaceAll(',', ''));

const TILES = { 'count-requests': 'requests', 'count-served': 'served', 'count-rejected': 'rejected', 'count-errors': 'errors', 'count-leaked': 'leaked', 'count-canary': 'canaryLeaks', 'count-breach': 'integrityBreaches', 'count-wrong': 'wrongOutputs' } as const;

interface Walked {
  /** What differs between the views' words and the moment, by check (empty: every view agrees). */
  bad: string[];
  /** The answer has a token, and its slot held another request's KV (or zeros). */
  token: 'none' | 'own' | 'other';
  /** Page rows of the microscope checked. */
  microRows: number;
}

/** One moment: the views' words through their pure functions, held to `momentOf`. */
function walk(run: RunSummary, detail: (req: number) => RequestDetail, handedOff: readonly number[], draw: Draw): Walked {
  const { k, share, clock, block, tok } = draw;
  const req = handedOff[k % handedOff.length]!;
  const d = detail(req);
  const arrive = d.events[0]!.t;
  const end = d.events[d.events.length - 1]!.t;
  const total = momentOf({ run, req, detail: d, time: arrive, handoff: 0, reducedMotion: false }).script.total;
  // The moment as the e2e spec puts it into the page (the URL's and the store's precision).
  const handoff = clock ? Math.round(share * total * 100) / 100 : null;
  const time = handoff !== null ? arrive : Math.round((arrive + share * (end - arrive)) * 1000) / 1000;
  const m = momentOf({ run, req, detail: d, time, handoff, reducedMotion: false });
  const r = run.requests;
  const bad: string[] = [];

  // What the moment says (read before any other seek: the snapshot's arrays serve until the next one).
  const pages = m.blockTable.pages;
  const b = block % pages.length;
  const decode = m.snapshot!.nodes.find((x) => x.name === m.blockTable.node)!;
  const writtenFor = decode.writtenFor[pages[b]!]!;
  const writerTenant = decode.writerTenant[pages[b]!]!;
  const want = {
    phase: m.engineT >= r.finishedAt[req]! ? 'answered' : m.engineT >= r.arrivedAt[req]! ? 'in-flight' : 'before',
    writer: writtenFor >= 0 ? `tenant ${m.roster[writerTenant]!}, request ${r.ids[writtenFor]!} · ` : null,
    owners: m.blockTable.staleByTenant.map((x) => m.roster[x.tenant]!),
  };

  // The hooks' engine time (useMomentValue, useMomentSnapshot, useMomentOutcomes): the moment's.
  const engineT = momentEngineTime(run, req, d, time, handoff, false);
  if (engineT !== m.engineT) bad.push(`views' engine time ${engineT} ≠ ${m.engineT}`);

  // The outcome tiles (Controls.tsx): as of the moment, beside the whole run's.
  for (const cell of counterCells(run.counters, outcomesBy(run, engineT))) {
    const key = TILES[cell.testId as keyof typeof TILES];
    if (!key) continue;
    const now = num(fmt(cell.shown!));
    const all = num(fmt(cell.value));
    if (now !== m.outcomes.now[key] || all !== m.outcomes.total[key]) bad.push(`tile ${cell.testId} "${fmt(cell.shown!)} of ${fmt(cell.value)}" ≠ ${m.outcomes.now[key]} of ${m.outcomes.total[key]}`);
  }

  // The leak counter (Timeline.tsx) and the story's standing (StoryScreen.tsx), on the selected request.
  const counter = leaksSentBy(run.leaks, engineT);
  if (counter !== m.leaksSent) bad.push(`counter ${counter} ≠ ${m.leaksSent}`);
  if (storyRequestOf(run, req) !== req) bad.push(`story tells ${storyRequestOf(run, req)} ≠ ${req}`);
  const phase = storyPhaseAt(storyFactsOf(run, d.response, d.events), engineT);
  if (phase !== want.phase) bad.push(`story ${phase} ≠ ${want.phase}`);

  // The Transfer view's block table summary: counts, and every owner by name.
  const summary = blockTableSummaryText(m.blockTable, m.roster, t, 'en');
  const counts = /^([\d,]+) reserved · ([\d,]+) written for it · ([\d,]+) stale/.exec(summary);
  if (!counts || num(counts[1]!) !== pages.length || num(counts[2]!) !== m.blockTable.written || num(counts[3]!) !== m.blockTable.stale) bad.push(`block table "${summary}" ≠ ${pages.length} reserved, ${m.blockTable.written} written, ${m.blockTable.stale} stale`);
  const named = [...summary.matchAll(/([\d,]+) of ([a-z]+)/g)];
  if (named.map((x) => x[2]!).join() !== want.owners.join()) bad.push(`block table owners [${named.map((x) => x[2])}] ≠ [${want.owners}]`);
  const pagesNamed = named.map((x) => num(x[1]!)).join();
  if (pagesNamed !== m.blockTable.staleByTenant.map((x) => x.pages).join()) bad.push(`block table owners' pages [${pagesNamed}] ≠ [${m.blockTable.staleByTenant.map((x) => x.pages)}]`);
  const never = /([\d,]+) never written/.exec(summary);
  if ((never ? num(never[1]!) : 0) !== m.blockTable.empty) bad.push(`block table never written "${never?.[0] ?? ''}" ≠ ${m.blockTable.empty}`);

  // The stage picture's microscope (HandoffPicture.tsx), no token linked: each page row's block → page #p.
  const sample = d.response.slots;
  const reserve = d.events.find((e) => e.type === 'decode-reserve');
  const tableLength = reserve && reserve.type === 'decode-reserve' ? reserve.pageCount : 0;
  let microRows = 0;
  if (sample && tableLength > 0 && !m.frame.refusedAt) {
    const plan = picturePlan({ sample, tableLength, draws: drawsByPage(d.response.provenance), mustShow: null, screen: false });
    const rows = microscopeRowsAt(plan, { sample, frame: m.frame, req, ownerOf: (p) => decode.owner[p] ?? -1 });
    for (const row of rows) {
      if (row.kind !== 'page') continue;
      microRows++;
      const label = microPageLabel(row, t, 'en');
      const said = /^block ([\d,]+) · page #([\d,]+)$/.exec(`${label.block} · ${label.page}`);
      if (!said) bad.push(`microscope row "${label.block} · ${label.page}" names no block and page`);
      else if (pages[num(said[1]!)] !== num(said[2]!)) bad.push(`microscope block ${said[1]} → page #${said[2]} ≠ page #${pages[num(said[1]!)]}`);
    }
  }

  // The grids' inspector (ClusterView.tsx) on the selected page, over the pools at the views' engine time.
  const snapshot = run.seek(engineT);
  const node = snapshot.nodes.find((x) => x.name === m.blockTable.node)!;
  const sel = { node: m.blockTable.node, page: pages[b]! };
  const shownBlock = inspectedBlock(run, sel, req, d);
  const inspector = inspectorText(run, node, sel.page, shownBlock, focusOf(run, req)?.req ?? null, t, 'en');
  if (inspector.page !== `page #${fmt(pages[b]!)}`) bad.push(`inspector "${inspector.page}" ≠ page #${pages[b]}`);
  if (!inspector.block?.startsWith(`block ${fmt(b)} of ${r.ids[req]!}`)) bad.push(`inspector block "${inspector.block}" ≠ block ${b}`);
  if (want.writer === null ? !inspector.writer.startsWith('never written') : !inspector.writer.startsWith(want.writer)) bad.push(`inspector writer "${inspector.writer.slice(0, 50)}" ≠ ${want.writer ?? 'never written'}`);

  // A token of the answer hovered (ResponseTokens.tsx, in the story): where it was drawn from and whose KV it was.
  const tokens = d.response.tokens.length;
  let token: Walked['token'] = 'none';
  if (tokens > 0) {
    const i = tok % tokens;
    const src = m.tokenSources[i]!;
    token = src.writerRequest === req ? 'own' : 'other';
    const said = tokenSourceText(run, tokenSourceAt(tokenSourcesOf(run, req, d), d.response.provenance, i)!, t, 'en');
    const sentence = `${said.from} ${said.by ?? t('emptyKv')}`;
    const from = /^Drawn from (\S+), (?:block ([\d,]+) → )?page #(-?[\d,]+):/.exec(sentence);
    const by = /written by request (\S+) of (\S+) \(/.exec(sentence);
    const writer = src.writerRequest >= 0 ? r.ids[src.writerRequest]! : null;
    const wanted = `${src.node}, ${src.block >= 0 ? `block ${src.block} → ` : ''}page #${src.page}: ${writer ? `${writer} of ${src.writerTenant}` : 'no writer'}`;
    const got = from ? `${from[1]}, ${from[2] !== undefined ? `block ${num(from[2])} → ` : ''}page #${num(from[3]!)}: ${by ? `${by[1]} of ${by[2]}` : 'no writer'}` : `"${sentence.slice(0, 60)}"`;
    if (got !== wanted) bad.push(`token hover ${got} ≠ ${wanted}`);
    // A token drawn from the block table names its block, and that block holds the page named.
    if (src.block >= 0 && src.node === m.blockTable.node && pages[src.block] !== src.page) bad.push(`token block ${src.block} → page #${src.page} ≠ page #${pages[src.block]}`);
  }
  return { bad, token, microRows };
}

describe('one moment, one truth: every view’s words through its pure functions are the moment’s', () => {
  for (const setting of SETTINGS) {
    it(`${MOMENTS} random moments of the demo (${setting.name})`, () => {
      const { run, detail } = nodeRun(setting.flipped);
      const handedOff = Array.from({ length: run.requests.count }, (_, i) => i).filter((i) => run.requests.pagesReserved[i]! > 0);
      const draws = fc.sample(DRAW, { numRuns: MOMENTS, seed: setting.seed });
      const failures = new Map<string, number>();
      const examples = new Map<string, string>();
      const walked = draws.map((draw) => {
        const w = walk(run, detail, handedOff, draw);
        for (const b of w.bad) {
          const kind = b.replace(/"[^"]*"|\[.*?\]|[\d,#]+/g, '').split(/\s+/).slice(0, 3).join(' ');
          failures.set(kind, (failures.get(kind) ?? 0) + 1);
          if (!examples.has(kind)) examples.set(kind, `${JSON.stringify(draw)}: ${b}`);
        }
        return w;
      });
      // The walk put each check to the test: most answers have tokens, some not drawn on the request's
      // own KV; the microscope shows page rows.
      expect(walked.filter((w) => w.token !== 'none').length).toBeGreaterThan(50);
      expect(walked.filter((w) => w.token === 'other').length).toBeGreaterThan(0);
      expect(walked.filter((w) => w.microRows > 0).length).toBeGreaterThan(50);
      const summary = [...failures.entries()].map(([kind, n]) => `${n}× ${kind}`);
      expect(summary, [...examples.values()].join('\n')).toEqual([]);
    });
  }
});
