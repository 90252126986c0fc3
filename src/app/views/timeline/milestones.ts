/**
 * The report's milestones as the timeline draws them, from the facts file: a minute the report gives
 * is a line, a day it gives (F2's window, F7, F8, F9) is a band over that whole UTC day, and every
 * date that is derived rather than stated carries its note (`derivedEn` / `derivedFr`). Under the
 * lanes each is written in words with its time or day ("13:22 incident declared"), its fact id a
 * badge beside it; where there is no room, the time or day alone (milestoneLabels.ts).
 */
import { milestoneStartMs, type FactIndex } from '../../../data/facts.ts';
import { formatUtc, formatUtcDay, type Lang } from '../../i18n/format.ts';
import { pick, translate } from '../../i18n/i18n.ts';
import type { Milestone } from './Timeline.tsx';

export function timelineMilestones(facts: FactIndex, lang: Lang): Milestone[] {
  return facts.timeline().map((m) => {
    const dayOnly = m.precision === 'day';
    const when = dayOnly ? formatUtcDay(m.date, lang) : formatUtc(milestoneStartMs(m), lang, { seconds: false });
    // The chart's label: the day without its year, or the minute alone (the axis gives the day).
    const short = dayOnly ? formatUtcDay(m.date, lang, { year: false }) : formatUtc(milestoneStartMs(m), lang, { seconds: false, date: false, utc: false });
    const text = pick(lang, m.labelEn, m.labelFr);
    const derived = m.derivedEn && m.derivedFr ? pick(lang, m.derivedEn, m.derivedFr) : null;
    return {
      epochMs: milestoneStartMs(m),
      dayOnly,
      id: m.factId,
      when,
      text,
      derived,
      forms: [`${short} ${pick(lang, m.shortEn, m.shortFr)}`, short],
      label: `${m.factId} · ${text} (${when}${dayOnly ? `, ${translate(lang, 'milestoneDayOnly')}` : ''})${derived ? ` — ${derived}` : ''}`,
    };
  });
}
