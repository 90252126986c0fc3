/**
 * The screen's main picture: ONE component, so the animated stage can replace it in one place.
 * Today it composes the existing views: the view the chapter chose (cluster grid, transfer,
 * response) with the situation line and the leak counter, and three pictures of its own where a chapter
 * needs something the dashboard does not draw large enough for a room: the prompt against the prefill
 * limit (capacity gap), the two weeks with the leak counter climbing, and 9 September as a strip of
 * the report's four times, each above the timeline. Everything is a function of the store's time and the run.
 */
import { useMemo } from 'react';
import { useFacts } from '../../data/useFacts.ts';
import { milestoneStartMs } from '../../data/facts.ts';
import { DEFECTS, MITIGATIONS, type Switch } from '../../engine/switches.ts';
import { FLAG_LEAK_PROVENANCE } from '../../engine/index.ts';
import { DEMO_REQUESTS } from '../../engine/scenarios.ts';
import { formatNumber } from '../i18n/format.ts';
import { SCREEN_FIGURES } from './screenFigures.ts';
import { Tx, useT } from '../i18n/i18n.ts';
import { useCompareRun, useMainRun, useRequestDetail, type RunSummary } from '../run/hooks.ts';
import { useApp } from '../state/store.ts';
import { ClusterView } from '../views/cluster/ClusterView.tsx';
import { ResponseView } from '../views/response/ResponseView.tsx';
import { highlightable, type HighlightId } from '../views/shared/highlight.ts';
import { Timeline } from '../views/timeline/Timeline.tsx';
import { timelineMilestones } from '../views/timeline/milestones.ts';
import { TransferView } from '../views/transfer/TransferView.tsx';
import { StageView } from '../views/stage/StageView.tsx';
import { CHAPTERS } from '../walkthrough/chapters/index.ts';

/** Defects (on or off) and the mitigations that are on: what the situation is, in one line. */
function SituationLine() {
  const t = useT();
  const switches = useApp((s) => s.switches);
  const on = (MITIGATIONS as readonly Switch[]).filter((m) => switches[m.key]);
  return (
    <p className="screen-situation" {...highlightable('defects')}>
      {(DEFECTS as readonly Switch[]).map((d) => (
        <span key={d.key} className={switches[d.key] ? 'sw on' : 'sw off'}>
          {switches[d.key] ? '● ' : '○ '}
          {t(`switch.${d.key}.label`)}
        </span>
      ))}
      {on.map((m) => (
        <span key={m.key} className="sw fix">
          ✓ {t(`switch.${m.key}.label`)}
        </span>
      ))}
    </p>
  );
}

function leaksUpTo(run: RunSummary, time: number): number {
  let n = 0;
  run.requests.flags.forEach((f, i) => {
    if (f & FLAG_LEAK_PROVENANCE && run.requests.finishedAt[i]! <= time) n++;
  });
  return n;
}

/** The leak counter at the scrubber's time, large. */
function LeakCounter({ run, big }: { run: RunSummary; big?: boolean }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const time = useApp((s) => s.time);
  const facts = useFacts();
  const n = leaksUpTo(run, time);
  const reported = facts.data?.figure(SCREEN_FIGURES[0].figure);
  return (
    <div className={big ? 'screen-counter big' : 'screen-counter'} {...highlightable('counters')} data-testid="screen-leaks">
      {/* "1 leaked response", « 0 réponse touchée »: the words agree with the count (one entry, its number styled). */}
      <span className="screen-counter-label">
        <Tx k="screenLeakedSoFar" vars={{ n: <span className="screen-counter-n">{formatNumber(n, lang)}</span> }} />
      </span>
      {/* A leaked response is one the client got in full: HTTP 200, as the two weeks' caption says (the model's status code). */}
      {big && n > 0 ? <span className="screen-counter-status">{t('screenLeakedStatus')}</span> : null}
      {big && reported ? (
        <span className="screen-counter-report">
          {t(SCREEN_FIGURES[0].label, { n: formatNumber(reported.value, lang) })} ({reported.factId})
        </span>
      ) : null}
    </div>
  );
}

/** The over-long prompt against what prefill can hold (capacity-gap chapter). */
function CapacityGauge({ run }: { run: RunSummary }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const gap = useApp((s) => s.switches.capacityGap);
  const facts = useFacts();
  const req = run.requests.ids.indexOf(DEMO_REQUESTS.overLong);
  const detail = useRequestDetail(run, req >= 0 ? req : null);
  const limit = facts.data?.figure(SCREEN_FIGURES[1].figure);
  const prompt = detail.data?.response.promptTokens;
  if (!limit || !prompt) return null;
  const max = Math.max(prompt, limit.value) * 1.1;
  return (
    <div className="screen-gauge" data-testid="screen-gauge">
      <div className="gauge-row">
        <span className="gauge-label">{t('screenPrompt')}</span>
        <span className="gauge-bar prompt" style={{ width: `${(prompt / max) * 60}%` }} />
        <b>{formatNumber(prompt, lang)}</b>
      </div>
      <div className="gauge-row">
        <span className="gauge-label">{t(SCREEN_FIGURES[1].label)}</span>
        {gap ? (
          <>
            <span className="gauge-bar limit" style={{ width: `${(limit.value / max) * 60}%` }} />
            <b>
              {formatNumber(limit.value, lang)} ({limit.factId})
            </b>
          </>
        ) : (
          <span className="gauge-fits">{t('screenPrefillFits')}</span>
        )}
      </div>
    </div>
  );
}

/** 9 September: the report's four times in large type, each lit once the scrubber has passed it. */
function DayStrip({ run }: { run: RunSummary }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const time = useApp((s) => s.time);
  const facts = useFacts();
  const keys = ['declared', 'private', 'rootCause', 'public'] as const;
  if (!facts.data) return null;
  const now = run.startEpochMs + time;
  return (
    <div className="screen-day" data-testid="screen-day">
      <h3>{t('screenDayTitle')}</h3>
      <ol>
        {keys.map((k) => {
          const m = facts.data.milestone(k);
          const at = milestoneStartMs(m);
          const hhmm = lang === 'fr' ? (m.time ?? '').replace(':', '\u00a0h\u00a0') : (m.time ?? '');
          return (
            <li key={k} className={now >= at ? 'passed' : 'ahead'} data-milestone={k}>
              <span className="day-time">{hhmm}</span>
              <span className="day-label">
                {lang === 'fr' ? m.labelFr : m.labelEn} <span className="day-id">{m.factId}</span>
              </span>
            </li>
          );
        })}
      </ol>
    </div>
  );
}

/** One outcome of the selected request: its HTTP status, whether it answered, whose pages it read. */
function Outcome({ run, id, heading, hint, testId, part }: { run: RunSummary; id: string; heading: string; hint?: string; testId: string; part: HighlightId }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const req = run.requests.ids.indexOf(id);
  const detail = useRequestDetail(run, req >= 0 ? req : null);
  const r = detail.data?.response;
  if (!r) return <div className="screen-outcome" data-testid={testId} {...highlightable(part)} />;
  const answered = r.status === 200;
  const leak = r.leakedFrom.length > 0;
  return (
    <div className={`screen-outcome ${answered ? 'answered' : 'stopped'}${leak ? ' leak' : ''}`} data-testid={testId} data-status={r.status} {...highlightable(part)}>
      <h3>{heading}</h3>
      {hint ? <p className="outcome-hint">{hint}</p> : null}
      <p className="outcome-status">
        HTTP <b>{r.status}</b> <span className="outcome-verb">{t(answered ? 'screenCompareAnswered' : 'screenCompareStopped')}</span>
      </p>
      <p className={leak ? 'outcome-leak' : 'outcome-clean'}>
        {leak ? '⚠ ' : '✓ '}
        {leak ? t('screenCompareLeak', { tenants: r.leakedFrom.join(', ') }) : t('screenCompareNoLeak')}
      </p>
      {answered && r.text ? (
        <p className="outcome-text">
          {/* The tag first: the picture keeps the answer's text to one line, and what it cuts is the text's tail. */}
          <span className="outcome-tag">{t('screenModelTag')}</span> {lang === 'fr' ? '«\u00a0' : '\u201c'}
          {/* The tenants' data is English on the French page too: a screen reader reads it as English. */}
          <span lang="en">{r.text.length > 150 ? `${r.text.slice(0, 150)}…` : r.text}</span>
          {lang === 'fr' ? '\u00a0»' : '\u201d'}
        </p>
      ) : null}
    </div>
  );
}

/** The same request in the run as it happened and in the comparison run with a fix on (same-family chapter). */
function Comparison({ run, compare }: { run: RunSummary; compare: RunSummary | null }) {
  const t = useT();
  const selected = useApp((s) => s.selectedRequest);
  const fix = useApp((s) => s.compare);
  const id = selected !== null ? run.requests.ids[selected] : undefined;
  if (!id || !compare || !fix) return null;
  return (
    <div className="screen-compare" data-testid="screen-compare">
      <h3 className="screen-compare-title">
        {t('screenCompareTitle')} <span className="outcome-id">{id}</span>
      </h3>
      <div className="screen-compare-row">
        <Outcome run={run} id={id} heading={t('screenCompareAsHappened')} testId="screen-outcome-actual" part="outcome-actual" />
        <Outcome run={compare} id={id} heading={t('screenCompareWithFix', { fix: t(`switch.${fix}.fix`) })} hint={t(`switch.${fix}.hint`)} testId="screen-outcome-fixed" part="outcome-fixed" />
      </div>
    </div>
  );
}

export function ScreenPicture() {
  const lang = useApp((s) => s.lang);
  const view = useApp((s) => s.view);
  const scenario = useApp((s) => s.scenario);
  const chapterN = useApp((s) => s.screenFrame?.chapter ?? s.chapter);
  const main = useMainRun();
  const compare = useCompareRun();
  const facts = useFacts();
  const milestones = useMemo(() => (facts.data && scenario === 'incident' ? timelineMilestones(facts.data, lang) : []), [facts.data, lang, scenario]);
  const run = main.data;
  if (!run || run.refused) return <div className="screen-picture-empty" />;
  // The chapter says which picture it uses (chapter.ts); the screen does not know chapters by name.
  const picture = (chapterN ? CHAPTERS[chapterN - 1]?.picture : undefined) ?? 'view';
  // The two weeks (chapter 7) name the report's milestones in a row under the lanes, as its caption
  // says they are the report's; elsewhere the lanes take that height (chapter 8's strip names its four times).
  const timeline = <Timeline run={run} compare={compare.data ?? null} milestones={milestones} milestoneLabelRows={picture === 'window' ? 1 : 0} />;
  if (picture === 'window') {
    return (
      <div className="screen-picture window" data-picture="window">
        <LeakCounter run={run} big />
        {timeline}
      </div>
    );
  }
  if (picture === 'compare') {
    return (
      <div className="screen-picture compare" data-picture="compare">
        <Comparison run={run} compare={compare.data ?? null} />
        {timeline}
      </div>
    );
  }
  if (picture === 'day') {
    return (
      <div className="screen-picture day" data-picture="day">
        <DayStrip run={run} />
        {timeline}
      </div>
    );
  }
  return (
    <div className={`screen-picture view-${view}${picture === 'capacity' ? ' capacity' : ''}`} data-picture={view}>
      <div className="screen-strip">
        <SituationLine />
        <LeakCounter run={run} />
      </div>
      {picture === 'capacity' ? <CapacityGauge run={run} /> : null}
      <div className="screen-view">
        {view === 'cluster' ? <ClusterView run={run} /> : null}
        {view === 'transfer' ? <TransferView run={run} /> : null}
        {view === 'response' ? <ResponseView run={run} /> : null}
        {view === 'stage' ? <StageView picker={false} screen /> : null}
      </div>
      {/* No timeline here: the handoff and the answer take milliseconds, and under the grids it took
          the room the grids need (decode's grid went under the caption band at 1280×720). The chapters
          that point at the timeline draw it as their picture (window, day, compare). */}
    </div>
  );
}
