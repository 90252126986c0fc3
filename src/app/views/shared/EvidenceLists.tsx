/**
 * The evidence panel's lists (EvidencePanel.tsx): the report's facts, the assumptions with their
 * reasons, what the report leaves open and the public background. Loaded after the first screen.
 */
import { ASSUMPTIONS } from '../../../engine/incident/assumptions.ts';
import { useFacts } from '../../../data/useFacts.ts';
import { formatUtc, formatUtcDay } from '../../i18n/format.ts';
import { pick, useT } from '../../i18n/i18n.ts';
import { useApp } from '../../state/store.ts';
import { milestoneStartMs } from '../../../data/facts.ts';
import { BackgroundWords, FactWords, SourceRef } from './Evidence.tsx';

export function EvidenceLists() {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const facts = useFacts();
  const file = facts.data?.file;
  const filledBy = (n: string) => ASSUMPTIONS.filter((a) => a.fills.includes(n)).map((a) => a.id);
  return (
    <>
      {file ? <p className="hint">{t('evidenceSource', { title: file.source.title, note: pick(lang, file.source.noteEn, file.source.noteFr) })}</p> : null}
      {facts.isError ? <p role="alert">{t('factsUnavailable')}</p> : null}
      <div className="evidence-columns">
        <section aria-labelledby="evidence-report-h">
          <h3 id="evidence-report-h">
            <span className="badge fact">{t('fact')}</span> {t('evidenceReport')}
          </h3>
          <p className="hint">{t('evidenceReportIntro')}</p>
          <ol className="evidence-list">
            {(file?.facts ?? []).map((f) => (
              <li key={f.id} data-fact={f.id}>
                <b>{f.id}</b> <FactWords en={f.en} quote={f.quote} lang={lang} />
                {(f.milestones ?? []).map((m) => (
                  <span key={m.key} className="milestone-note">
                    <br />
                    {t('evidenceMilestone', { label: pick(lang, m.labelEn, m.labelFr) })}{' '}
                    <time dateTime={m.time ? `${m.date}T${m.time}Z` : m.date}>
                      {m.time ? formatUtc(milestoneStartMs(m), lang, { seconds: false }) : formatUtcDay(m.date, lang)}
                    </time>
                    {m.precision === 'day' ? ` (${t('milestoneDayOnly')})` : ''}.
                    {m.derivedEn && m.derivedFr ? ` ${pick(lang, m.derivedEn, m.derivedFr)}` : ''}
                  </span>
                ))}
              </li>
              ))}
            </ol>
          </section>
          <section aria-labelledby="evidence-assumed-h">
            <h3 id="evidence-assumed-h">
              <span className="badge assumption">{t('assumption')}</span> {t('evidenceAssumed')}
            </h3>
            <p className="hint">{t('evidenceAssumedIntro', { first: ASSUMPTIONS[0]!.id, last: ASSUMPTIONS[ASSUMPTIONS.length - 1]!.id })}</p>
            <ol className="evidence-list">
              {ASSUMPTIONS.map((a) => (
                <li key={a.id} data-assumption={a.id}>
                  <b>{a.id}</b> {pick(lang, a.en, a.fr)} <span className="hint">({a.fills.length > 0 ? t('evidenceFills', { ids: a.fills.join(', ') }) : t('evidenceFillsNone')})</span>
                  <br />
                  <i>
                    {t('evidenceWhy')} {pick(lang, a.reasonEn, a.reasonFr)}
                  </i>
                </li>
              ))}
            </ol>
          </section>
          <section aria-labelledby="evidence-unknown-h">
            <h3 id="evidence-unknown-h">
              <span className="badge model">{t('model')}</span> {t('evidenceUnknown')}
            </h3>
            <p className="hint">{t('evidenceUnknownIntro')}</p>
            <ol className="evidence-list">
              {(file?.notInReport ?? []).map((n) => {
                const by = filledBy(n.id);
                return (
                  <li key={n.id} data-not-in-report={n.id}>
                    <b>{n.id}</b> {pick(lang, n.en, n.fr)} <span className="hint">({by.length ? t('evidenceFilledBy', { ids: by.join(', ') }) : t('evidenceNotModelled')})</span>
                  </li>
                );
              })}
            </ol>
            <h3 id="evidence-background-h">{t('evidenceBackground')}</h3>
            <p className="hint">{t('evidenceBackgroundIntro')}</p>
            <ol className="evidence-list">
              {(file?.background ?? []).map((b) => (
                <li key={b.id}>
                  <BackgroundWords b={b} lang={lang} /> <SourceRef id={b.id} />
                </li>
              ))}
            </ol>
          </section>
        </div>
    </>
  );
}
