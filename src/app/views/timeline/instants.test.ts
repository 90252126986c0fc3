/**
 * No bare instant: every time the page shows is either one of the report's milestones (from the
 * facts file, with its fact id) or carries a model or assumption badge in the data it is drawn from.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FactIndex, milestoneStartMs, parseFactsFile } from '../../../data/facts.ts';
import { ASSUMPTIONS, MILESTONE_T } from '../../../engine/incident/index.ts';
import { KIND_NAMES } from '../../../engine/incident/index.ts';
import { MESSAGES } from '../../i18n/messages.ts';
import { CHAPTERS } from '../../walkthrough/chapters/index.ts';
import { SENDERS } from '../shared/requestEvidence.ts';
import { LANES, TIMED_READOUTS } from './lanes.ts';
import { timelineMilestones } from './milestones.ts';

const facts = new FactIndex(parseFactsFile(JSON.parse(readFileSync(new URL('../../../../public/facts.json', import.meta.url), 'utf8'))));
const assumptionIds = new Set<string>(ASSUMPTIONS.map((a) => a.id));

/** Times of day the report gives (its minute milestones), as "13:22". */
const reportTimes = new Set(facts.timeline().flatMap((m) => (m.time ? [m.time] : [])));
/** Days the report or a cited public source gives, as "2026-09-09". */
const knownDays = new Set([...facts.timeline().map((m) => m.date), ...facts.file.background.flatMap((b) => (b.date && b.date.length === 10 ? [b.date] : []))]);

const MONTHS: Record<string, string> = {
  january: '01', jan: '01', janvier: '01', february: '02', feb: '02', février: '02', march: '03', mar: '03', mars: '03',
  april: '04', apr: '04', avril: '04', may: '05', mai: '05', june: '06', jun: '06', juin: '06', july: '07', jul: '07', juillet: '07',
  august: '08', aug: '08', août: '08', september: '09', sep: '09', sept: '09', septembre: '09', october: '10', oct: '10', octobre: '10',
  november: '11', nov: '11', novembre: '11', december: '12', dec: '12', décembre: '12',
};

/** Instants written in a text: times of day, and day-month dates (assumed 2026 unless a year follows). */
function instantsIn(text: string): { times: string[]; days: string[] } {
  const times = [...text.matchAll(/\b([01]?\d|2[0-3])(?::| h )([0-5]\d)\b/g)].map((m) => `${m[1]!.padStart(2, '0')}:${m[2]}`);
  const days = [...text.matchAll(/\b(\d{1,2})(?:er)? (\p{L}+)\.?(?: (\d{4}))?/gu)].flatMap((m) => {
    const month = MONTHS[m[2]!.toLowerCase()];
    return month ? [`${m[3] ?? '2026'}-${month}-${m[1]!.padStart(2, '0')}`] : [];
  });
  return { times, days };
}

/** Every text the page shows that is not an assumption (assumptions are labelled by being one). */
function shownTexts(): [string, string][] {
  const out: [string, string][] = [];
  for (const lang of ['en', 'fr'] as const) for (const [k, v] of Object.entries(MESSAGES[lang])) out.push([`catalogue ${lang} ${k}`, v]);
  for (const ch of CHAPTERS) {
    for (const lang of ['en', 'fr'] as const) {
      out.push([`${ch.id} title`, ch.title[lang]], [`${ch.id} notes`, ch.notes[lang]]);
      ch.paragraphs.forEach((p, i) => out.push([`${ch.id} ¶${i + 1}`, p.text[lang]]));
      for (const s of ch.steps) if ('caption' in s) out.push([`${ch.id} caption`, s.caption[lang]]);
    }
  }
  for (const f of facts.file.facts) out.push([f.id, f.en], [f.id, f.fr]);
  return out;
}

describe('modelled instants are labelled', () => {
  it('draws every timeline lane as the model\u2019s, naming the assumptions that place it in time', () => {
    expect(LANES.map((l) => l.key)).toEqual(['traffic', 'confidentiality', 'integrity', 'admission', 'compare']);
    for (const lane of [...LANES, ...TIMED_READOUTS]) {
      expect(lane.evidence.model, lane.key).toBe(true);
      expect(lane.evidence.assumptions.length, lane.key).toBeGreaterThan(0);
      for (const id of lane.evidence.assumptions) expect(assumptionIds.has(id), `${lane.key}: ${id}`).toBe(true);
    }
    expect(TIMED_READOUTS.map((r) => r.key)).toContain('clock');
  });

  it('takes the timeline\u2019s milestones from the facts file only, a day the report gives as a band, not a line at 00:00', () => {
    for (const lang of ['en', 'fr'] as const) {
      const ms = timelineMilestones(facts, lang);
      expect(ms.length).toBe(facts.timeline().length);
      ms.forEach((m, i) => {
        const source = facts.timeline()[i]!;
        expect(m.id).toBe(source.factId);
        expect(facts.byId.has(m.id)).toBe(true);
        expect(m.epochMs).toBe(milestoneStartMs(source));
        expect(m.dayOnly, source.key).toBe(source.precision === 'day');
        // A derived date shows how it follows from the report.
        if (source.derivedEn) expect(m.derived, source.key).toEqual(lang === 'en' ? source.derivedEn : expect.any(String));
        if (m.dayOnly) expect(m.when, source.key).not.toMatch(/\d:\d\d/);
      });
    }
    // F7, F8, F9 and the window's end are days.
    const days = timelineMilestones(facts, 'en').filter((m) => m.dayOnly).map((m) => m.id);
    for (const id of ['F7', 'F8', 'F9', 'F2']) expect(days).toContain(id);
  });

  it('seeks a chapter only to a milestone of the facts file, a request of the demo\u2019s model, or a fraction of the run', () => {
    for (const ch of CHAPTERS) {
      for (const s of ch.steps) {
        const instant = 'seek' in s ? s.seek : 'tween' in s ? s.tween.to : null;
        if (!instant) continue;
        if ('milestone' in instant) {
          expect(facts.milestone(instant.milestone).key, ch.id).toBe(instant.milestone);
          expect(instant.milestone in MILESTONE_T).toBe(true);
        } else if ('request' in instant) expect(ch.scenario ?? 'demo', `${ch.id}: a request instant in the incident would be a modelled time`).toBe('demo');
      }
    }
  });

  it('names no time of day or date outside the report\u2019s milestones (and the dated public sources), except in assumptions', () => {
    for (const [where, text] of shownTexts()) {
      const { times, days } = instantsIn(text);
      for (const t of times) expect(reportTimes.has(t), `${where}: ${t} in "${text}"`).toBe(true);
      for (const d of days) expect(knownDays.has(d), `${where}: ${d} in "${text}"`).toBe(true);
    }
    // The scan finds what it is meant to find.
    expect(instantsIn('placed at 08:43 on 27 août')).toEqual({ times: ['08:43'], days: ['2026-08-27'] });
  });

  it('badges the researcher\u2019s requests A6 and the reproduction\u2019s A7 in the request picker', () => {
    expect(Object.keys(SENDERS).length).toBe(KIND_NAMES.length);
    const byName = Object.fromEntries(KIND_NAMES.map((name, k) => [name, SENDERS[k]!.assumption]));
    expect(byName.researcher).toBe('A6');
    expect(byName.reproduction).toBe('A7');
    for (const s of Object.values(SENDERS)) expect(assumptionIds.has(s.assumption)).toBe(true);
  });
});
