import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INCIDENT_SWITCHES, overridesOf, type SwitchKey } from '../../../engine/switches.ts';
import { translate, type Language, type MessageKey } from '../../i18n/messages.ts';
import { computeRun } from '../../run/computeRun.ts';
import { leaksSentBy, refusedStoryText, storyFactsOf, storyOpening, storyPhaseAt, storyRequestOf, storyText, type Message, type StoryRun } from './storyText.ts';

/** The demo run (three tenants, one 800,000-token request) in a configuration, as the story reads it. */
function demo(switches: Partial<Record<SwitchKey, boolean>>) {
  const { run, details } = computeRun({ scenario: 'demo', overrides: overridesOf({ ...INCIDENT_SWITCHES, ...switches }) }, { keepDetails: true });
  const story: StoryRun = { requests: { ...run.requests, ids: run.requestIds }, leaks: run.leaks, phases: run.phases, startEpochMs: run.startEpochMs };
  return { run, details: details!, story };
}

/** Everything the story says in one language, glossed words left as their placeholders. */
function told(switches: Partial<Record<SwitchKey, boolean>>, lang: Language = 'en', at?: 'opening' | 'arrival' | 'before') {
  const { run, details, story } = demo(switches);
  const opening = storyOpening(story)!;
  const req = storyRequestOf(story, null)!;
  const facts = storyFactsOf(story, details.responses[req]!, details.events[req]!);
  const t = at === 'arrival' ? facts.arrivedAt : at === 'before' ? facts.arrivedAt - 1 : opening.t;
  const name = (key: MessageKey, vars?: Record<string, string>) => translate(lang, key, vars);
  const text = storyText(facts, storyPhaseAt(facts, t), lang, story.startEpochMs, name);
  const say = (m: Message) => translate(lang, m.key, m.vars);
  return { run, facts, text, t, headline: say(text.headline), when: say(text.when), who: say(text.who), explain: say(text.explain), numbers: text.numbers };
}

/** No placeholder left unfilled, except the glossed words and the badge the view fills with elements. */
function filled(s: string): void {
  expect(s.replace(/\{(prefill|kv|decode|pages|f14|f17|f19|f20|model)\}/g, '')).not.toMatch(/[{}]/);
}

describe('the first screen’s story, built from the run in every configuration', () => {
  it('the incident’s defects: the leak, with its numbers, the tenants and the leak’s place among the run’s', () => {
    const s = told({});
    expect(s.facts.outcome).toBe('leaked');
    expect(s.headline).toBe('A request too long to serve, answered anyway from other customers’ memory');
    expect(s.numbers).toEqual({ sent: '800,000', computed: '1', reserved: '12,500', status: '200' });
    expect(s.explain).toContain('had reserved 12,500 {pages} {model} for the whole prompt');
    expect(s.explain).toContain('when prefill had written 1 of them');
    expect(s.explain).toContain('left in 9,377');
    expect(s.when).toMatch(/^Sent at 27 Aug 2026 \d\d:\d\d:\d\d UTC: leaked response 1 of 1 in this run\.$/);
    expect(s.who).toContain('The answer to request');
    expect(s.facts.leakedFrom).toEqual(['acme', 'borealis']);
    expect(s.text.pagesGloss).toBe('glossPage');
    for (const line of [s.headline, s.when, s.who, s.explain]) filled(line);
  });

  it('badges the prefill capacity with F14 only on the report\u2019s pool (681,280 tokens), the model\u2019s anywhere else', () => {
    expect(told({}).facts.reportCapacity).toBe(true);
    const { run, details } = computeRun({ scenario: 'demo', overrides: { ...overridesOf(INCIDENT_SWITCHES), prefillCapacityTokens: 640_000 } }, { keepDetails: true });
    const story: StoryRun = { requests: { ...run.requests, ids: run.requestIds }, leaks: run.leaks, phases: run.phases, startEpochMs: run.startEpochMs };
    const req = storyRequestOf(story, null)!;
    const facts = storyFactsOf(story, details!.responses[req]!, details!.events[req]!);
    expect(facts.overLimit).toBe(true);
    expect(facts.reportCapacity).toBe(false);
  });

  it('the fixed reject path: refused at admission, 400, nothing computed, nothing reserved', () => {
    const s = told({ buggyRejectPath: false });
    expect(s.facts.outcome).toBe('rejected');
    expect(s.headline).toBe('A request too long to serve, refused at admission: HTTP 400, nothing reserved');
    expect(s.numbers).toEqual({ sent: '800,000', computed: '0', reserved: '0', status: '400' });
    expect(s.explain).toContain('The prompt, 800,000 tokens {model}, was longer than the {prefill} {kv} could hold, 681,280 tokens');
    expect(s.explain).toContain('refused at admission: {decode} reserved no {pages}');
    expect(s.explain).not.toContain('This request fit');
    expect(s.who).toMatch(/^Request \S+ of \w+ got no text: HTTP 400\.$/);
    // It has no leak: its line says when it was answered, not a place among leaks.
    expect(s.when).toMatch(/^Answered HTTP 400 at 27 Aug 2026/);
    expect(s.run.leaks).toHaveLength(0);
  });

  it('clear pages on free: answered 200 over cleared pages, nobody’s data, a wrong answer', () => {
    const s = told({ clearPagesOnFree: true });
    expect(s.facts.outcome).toBe('cleared');
    expect(s.facts.leakedFrom).toEqual([]);
    expect(s.headline).toBe('A request too long to serve, answered anyway from cleared pages: nobody’s data, but a wrong answer');
    expect(s.numbers).toEqual({ sent: '800,000', computed: '1', reserved: '12,500', status: '200' });
    expect(s.explain).toContain('the other 12,499 it read held only zeros, cleared when they were last freed');
    expect(s.text.pagesGloss).toBe('glossPageClearedOnFree');
  });

  it('zero pages on allocate: the same wrong answer, the pages zeroed when decode reserved them', () => {
    const s = told({ zeroPagesOnAllocate: true });
    expect(s.facts.outcome).toBe('cleared');
    expect(s.explain).toContain('held only zeros, zeroed when decode reserved them');
    expect(s.text.pagesGloss).toBe('glossPageZeroedOnAllocate');
  });

  it('the transferred-length check: decode compares and answers 500; nothing read', () => {
    const s = told({ transferredLengthCheck: true });
    expect(s.facts.outcome).toBe('check-failed');
    expect(s.headline).toBe('A request too long to serve, stopped by decode’s transferred-length check: HTTP 500, nothing leaked');
    expect(s.numbers.status).toBe('500');
    expect(s.explain).toContain('reserved 12,500 {pages} {model}, compared them with the 1 prefill wrote, and refused to answer: HTTP 500');
  });

  it('the per-read integrity check: the first unwritten page named by its block and its page id, 500', () => {
    const s = told({ perReadIntegrityCheck: true });
    expect(s.facts.outcome).toBe('check-failed');
    expect(s.headline).toContain('stopped by decode’s per-read integrity check: HTTP 500, nothing leaked');
    // Block i of the table → the pool's page #p: two numbers, named apart.
    const first = s.facts.unwritten[0]!;
    expect(s.facts.firstUnwrittenBlock).toBeGreaterThanOrEqual(0);
    expect(s.explain).toContain(`12,499 were not (the first, block ${s.facts.firstUnwrittenBlock} → page #${first})`);
  });

  it('aborted results retired without a KV send: prefill reports Failed, decode answers 500', () => {
    const s = told({ retireWithoutSend: true });
    expect(s.facts.outcome).toBe('retired');
    expect(s.headline).toBe('A request too long to serve, retired by prefill without sending a page: HTTP 500, nothing leaked');
    expect(s.numbers).toEqual({ sent: '800,000', computed: '1', reserved: '12,500', status: '500' });
  });

  it('no capacity gap: the same long request fits, is served in full from its own KV', () => {
    const s = told({ capacityGap: false });
    expect(s.facts.outcome).toBe('served');
    expect(s.headline).toBe('A request of 800,000 tokens, served in full from its own KV');
    expect(s.numbers).toEqual({ sent: '800,000', computed: '800,000', reserved: '12,500', status: '200' });
    expect(s.explain).toContain('computed its whole prompt, 800,000 tokens');
  });

  it('the deployment capacity check: the deployment refused, nothing served', () => {
    const { run } = demo({ deploymentCapacityCheck: true });
    expect(run.refused).not.toBeNull();
    for (const lang of ['en', 'fr'] as const) {
      const name = (key: MessageKey, vars?: Record<string, string>) => translate(lang, key, vars);
      const r = refusedStoryText(run.refused!, lang, name);
      const explain = translate(lang, r.explain.key, r.explain.vars);
      expect(explain).toContain(lang === 'en' ? '1,048,576' : '1\u202f048\u202f576');
      filled(explain);
    }
  });

  it('every configuration reads in French too, its numbers in French', () => {
    const configs: Partial<Record<SwitchKey, boolean>>[] = [{}, { buggyRejectPath: false }, { clearPagesOnFree: true }, { transferredLengthCheck: true }, { perReadIntegrityCheck: true }, { retireWithoutSend: true }, { capacityGap: false }];
    const heads = configs.map((c) => {
      const s = told(c, 'fr');
      for (const line of [s.headline, s.when, s.who, s.explain]) filled(line);
      expect(s.numbers.sent).toBe('800\u202f000');
      return s.headline;
    });
    expect(new Set(heads).size).toBe(configs.length);
    expect(heads[1]).toBe('Une requête trop longue pour être servie, refusée à l’admission\u00a0: HTTP 400, rien de réservé');
  });
});

describe('the story and the counter at every instant', () => {
  it('opens just after the shown answer went out: the counter counts it and the story says it was sent', () => {
    const s = told({});
    expect(s.t).toBeGreaterThanOrEqual(s.facts.finishedAt);
    expect(s.t - s.facts.finishedAt).toBeLessThan(0.001);
    // The URL keeps the instant to the microsecond: read back, it is still after the answer.
    expect(Math.round(s.t * 1000) / 1000).toBeGreaterThanOrEqual(s.facts.finishedAt);
    expect(leaksSentBy(s.run.leaks, s.t)).toBe(1);
  });

  it('before the request arrives, and while it is in flight, the story says its answer has not gone out', () => {
    expect(told({}, 'en', 'before').when).toMatch(/^At this instant it has not arrived yet: it arrives at .*, and its answer goes out at .*\.$/);
    const inFlight = told({}, 'en', 'arrival');
    expect(inFlight.when).toMatch(/^At this instant it is in flight/);
    expect(inFlight.who).toMatch(/^The answer request \S+ of \w+ gets when it goes out/);
    expect(leaksSentBy(inFlight.run.leaks, inFlight.t)).toBe(0);
  });

  it('at any instant, the story says “sent” exactly when the counter counts the shown leak', () => {
    const { story, details, run } = demo({});
    const req = storyRequestOf(story, null)!;
    const facts = storyFactsOf(story, details.responses[req]!, details.events[req]!);
    const rank = facts.leakRank;
    fc.assert(
      fc.property(fc.double({ min: 0, max: run.endMs, noNaN: true }), (t) => {
        expect(storyPhaseAt(facts, t) === 'answered').toBe(leaksSentBy(run.leaks, t) >= rank);
      }),
    );
    for (const t of [facts.finishedAt - 1e-6, facts.finishedAt, facts.arrivedAt]) expect(storyPhaseAt(facts, t) === 'answered').toBe(leaksSentBy(run.leaks, t) >= rank);
  });

  it('tells the selected request when there is one, else the first leak, else the first request over the limit', () => {
    const leaking = demo({}).story;
    const fixed = demo({ buggyRejectPath: false }).story;
    expect(storyRequestOf(leaking, 3)).toBe(3);
    expect(storyRequestOf(leaking, null)).toBe(leaking.leaks[0]!.request);
    expect(storyRequestOf(fixed, null)).toBe(leaking.leaks[0]!.request);
    expect(storyRequestOf(fixed, 10_000)).toBe(leaking.leaks[0]!.request);
    // With the capacity gap closed nothing is over the limit: the story tells the same long request, which now fits.
    expect(storyRequestOf(demo({ capacityGap: false }).story, null)).toBe(leaking.leaks[0]!.request);
  });
});
