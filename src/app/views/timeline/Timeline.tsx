import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Tx, useT } from '../../i18n/i18n.ts';
import { FLAG_LEAK_PROVENANCE } from '../../../engine/run.ts';
import { useRequestDetail, type RunSummary } from '../../run/hooks.ts';
import { useMomentValue } from '../shared/useMoment.ts';
import { useApp, useAppStore } from '../../state/store.ts';
import { formatNumber, formatUtc, timeAxisFormat, type Lang } from '../../i18n/format.ts';
import { highlightable } from '../shared/highlight.ts';
import { FactBadge, ModelBadge } from '../shared/Evidence.tsx';
import { TimelineChart, type ChartMilestone, type CompareMark } from './timelineChart.ts';
import { INVARIANTS, invariantBreaches, type InvariantKey } from './invariants.ts';
import { differences } from '../compare/divergence.ts';
import { leaksSentBy } from '../story/storyText.ts';
import { LANES, type LaneKey } from './lanes.ts';
import { effectiveSpeed } from '../../state/playback.ts';
import { Icon } from '../../ui/icons.tsx';
import { useFacts } from '../../../data/useFacts.ts';
import './timeline.css';

/** A milestone of the report as the timeline shows it (App builds them from the facts file). */
export interface Milestone extends ChartMilestone {
  /** The date (and minute) as text in the page's language. */
  when: string;
  /** The milestone's label in the page's language. */
  text: string;
  /** How the date follows from the report, when it is not stated outright. */
  derived: string | null;
}

/** What the fixed run did differently, request by request, as the fix lane draws it. */
export function compareMarksOf(run: RunSummary, compare: RunSummary): CompareMark[] {
  return differences(run, compare).map((d) => ({
    t: compare.requests.finishedAt[d.req]!,
    kind: d.withFix.leaked ? 'leak' : d.withFix.status >= 500 ? 'failed' : d.withFix.status >= 400 ? 'rejected' : 'served',
  }));
}

/** What each lane shows, said where it is (on hover or focus of its name). */
const LANE_EXPLAIN: Record<LaneKey, 'laneExplainTraffic' | 'laneExplainConfidentiality' | 'laneExplainIntegrity' | 'laneExplainAdmission' | 'laneExplainCompare'> = {
  traffic: 'laneExplainTraffic',
  confidentiality: 'laneExplainConfidentiality',
  integrity: 'laneExplainIntegrity',
  admission: 'laneExplainAdmission',
  compare: 'laneExplainCompare',
};

/** Every property lane counts the same requests (the incident's 155 over-long prompts, each breaking all three). */
function sameCount(b: Record<InvariantKey, readonly unknown[]>): boolean {
  const n = b.confidentiality.length;
  return n > 0 && INVARIANTS.every((k) => b[k].length === n);
}

const INVARIANT_LABEL: Record<InvariantKey, 'laneConfidentiality' | 'laneIntegrity' | 'laneAdmission'> = { confidentiality: 'laneConfidentiality', integrity: 'laneIntegrity', admission: 'laneAdmission' };

function leakTimes(run: RunSummary): number[] {
  const out: number[] = [];
  run.requests.flags.forEach((f, i) => {
    if (f & FLAG_LEAK_PROVENANCE) out.push(run.requests.finishedAt[i]!);
  });
  return out;
}

/** Play speeds offered besides the default, 0: whatever crosses the whole run in about 30 s. */
export const SPEEDS = [1, 60, 600, 3600, 10_000, 40_000, 100_000] as const;

/** The instant before (-1) or after (1) `now` in a sorted list, or its first (`'first'`). */
export function jumpTarget(sorted: readonly number[], now: number, direction: 1 | -1 | 'first'): number | undefined {
  if (direction === 'first') return sorted[0];
  if (direction === 1) return sorted.find((v) => v > now + 1e-6);
  for (let i = sorted.length - 1; i >= 0; i--) if (sorted[i]! < now - 1e-6) return sorted[i];
  return undefined;
}


/**
 * `milestoneLabelRows`: how many rows of milestone names go under the lanes (the chart's LABEL_ROWS
 * when left out); the screen layout gives its lanes that height: none, or one where the picture names them.
 */
export function Timeline({ run, compare, milestones, milestoneLabelRows }: { run: RunSummary; compare: RunSummary | null; milestones: Milestone[]; milestoneLabelRows?: number }) {
  const store = useAppStore();
  const t = useT();
  const lang = useApp((s) => s.lang);
  const compareKey = useApp((s) => s.compare);
  const svgRef = useRef<SVGSVGElement>(null);
  const boxRef = useRef<HTMLDivElement>(null);
  const chart = useRef<TimelineChart | null>(null);
  // The scrubbed instant is read only by the small parts below that show it (Clock, ScrubHandle,
  // LeakJump, ChartCursor): a scrub step re-renders those, not the lanes, buttons and milestone list.
  const now = () => store.getState().time;
  const playing = useApp((s) => s.playing);
  const speed = useApp((s) => s.speed);
  const set = useApp((s) => s.set);
  const [width, setWidth] = useState(900);
  const [laneTip, setLaneTip] = useState<{ key: LaneKey; x: number; y: number } | null>(null);

  const violations = useMemo(() => run.violations.map((v) => v.t), [run]);
  const leaks = useMemo(() => leakTimes(run).sort((a, b) => a - b), [run]);
  const [view, setView] = useState<[number, number]>([0, run.endMs]);
  const breaches = useMemo(() => invariantBreaches(run), [run]);
  const compareBreaches = useMemo(() => (compare ? invariantBreaches(compare) : null), [compare]);
  const diffs = useMemo(() => (compare ? differences(run, compare) : null), [run, compare]);
  const seek = (ms: number) => set({ time: Math.max(0, Math.min(run.endMs, ms)) });

  useLayoutEffect(() => {
    const el = boxRef.current;
    if (!el) return;
    const ro = new ResizeObserver(([e]) => setWidth(Math.max(320, Math.floor(e!.contentRect.width))));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  useEffect(() => {
    if (!svgRef.current) return;
    chart.current = new TimelineChart(svgRef.current, { onSeek: (ms) => store.getState().set({ time: ms, playing: false }), onViewChange: setView, onLaneTip: setLaneTip }, milestoneLabelRows === undefined ? {} : { labelRows: milestoneLabelRows });
    // ChartCursor's effect ran before this one (a child's effects come first): start on the instant.
    chart.current.setCursor(store.getState().time);
  }, []);

  useEffect(() => {
    chart.current?.setLabels(
      // The "with fix" lane says what it waits for while it has nothing to draw: a fix to compare, or its run.
      Object.fromEntries(LANES.map((l) => [l.key, l.key === 'compare' && !compare ? t(compareKey ? 'laneCompareWaiting' : 'laneCompareNone') : t(l.label)])),
      t('model'),
      timeAxisFormat(lang),
      Object.fromEntries(LANES.map((l) => [l.key, t(LANE_EXPLAIN[l.key])])),
      (n) => t('milestonesMore', { n: formatNumber(n, lang) }),
    );
    chart.current?.setData(
      {
        startEpochMs: run.startEpochMs,
        endMs: run.endMs,
        arrivals: run.requests.arrivedAt,
        invariants: breaches,
        compareMarks: compare ? compareMarksOf(run, compare) : null,
        divergence: diffs?.[0]?.t ?? null,
        divergenceLabel: t('divergenceShort'),
        milestones,
      },
      width,
    );
  }, [run, compare, compareKey, milestones, width, breaches, diffs, t, lang]);

  // A window asked for (a walkthrough chapter): zoom to it once the chart has the run.
  const zoomRequest = useApp((s) => s.timelineZoom);
  const zoomed = useRef(false);
  useEffect(() => {
    if (zoomRequest) chart.current?.zoomTo(zoomRequest.from, zoomRequest.to);
    // Only a window that was asked for is undone; the person's own zoom stays.
    else if (zoomed.current) chart.current?.resetZoom();
    zoomed.current = zoomRequest !== null;
  }, [zoomRequest, run, width]);

  const jump = (direction: 1 | -1 | 'first') => {
    const target = jumpTarget([...violations].sort((a, b) => a - b), now(), direction);
    if (target === undefined) return;
    set({ time: target, playing: false });
    const hit = run.violations.find((v) => v.t === target);
    if (hit) set({ selectedRequest: hit.req });
  };
  const jumpLeak = (direction: 1 | -1) => {
    const target = jumpTarget(leaks, now(), direction);
    if (target === undefined) return;
    const i = run.requests.finishedAt.findIndex((f, j) => f === target && (run.requests.flags[j]! & FLAG_LEAK_PROVENANCE) !== 0);
    set({ time: target, playing: false, ...(i >= 0 ? { selectedRequest: i } : {}) });
  };

  // The track under the chart: the whole run, press to jump, drag to scrub (the pointer is captured).
  const trackRef = useRef<HTMLDivElement>(null);
  const handleRef = useRef<HTMLDivElement>(null);
  const dragging = useRef<number | null>(null);
  const timeAt = (clientX: number) => {
    const r = trackRef.current!.getBoundingClientRect();
    return Math.max(0, Math.min(1, (clientX - r.left) / Math.max(1, r.width))) * run.endMs;
  };
  const onTrackDown = (e: React.PointerEvent<HTMLDivElement>) => {
    if (e.pointerType === 'mouse' && e.button !== 0) return;
    dragging.current = e.pointerId;
    e.currentTarget.setPointerCapture?.(e.pointerId);
    handleRef.current?.focus({ preventScroll: true });
    set({ time: timeAt(e.clientX), playing: false });
    e.preventDefault();
  };
  const onTrackMove = (e: React.PointerEvent<HTMLDivElement>) => {
    if (dragging.current === e.pointerId) set({ time: timeAt(e.clientX) });
  };
  const onTrackUp = (e: React.PointerEvent<HTMLDivElement>) => {
    if (dragging.current === e.pointerId) dragging.current = null;
  };

  const onKey = (e: React.KeyboardEvent) => {
    const time = now();
    const span = chart.current?.visibleSpanMs() ?? run.endMs;
    const small = Math.max(1, span / 200);
    const big = Math.max(1, span / 10);
    switch (e.key) {
      case 'ArrowRight':
      case 'ArrowUp':
        seek(time + (e.shiftKey ? big : small));
        break;
      case 'ArrowLeft':
      case 'ArrowDown':
        seek(time - (e.shiftKey ? big : small));
        break;
      case 'PageUp':
        seek(time + big);
        break;
      case 'PageDown':
        seek(time - big);
        break;
      case 'Home':
        seek(0);
        break;
      case 'End':
        seek(run.endMs);
        break;
      case ' ':
        set({ playing: !playing });
        break;
      case '+':
      case '=':
        chart.current?.zoomBy(2);
        break;
      case '-':
        chart.current?.zoomBy(0.5);
        break;
      case ']':
        jump(1);
        break;
      case '[':
        jump(-1);
        break;
      default:
        return;
    }
    e.preventDefault();
  };

  return (
    <>
      {/*
        The scrub bar: the leak counter, the clock and the whole run's track with its handle. It comes
        just before the chart and sticks to the bottom of the window while the chart is below it, so
        the first screen has the instant, the counter and the scrubber beside the story and the stage.
      */}
      <section className="scrub-bar" aria-label={t('scrubBarLabel')} data-testid="scrub-bar">
        <LeakCounter run={run} />
        <div className="scrub-bar-clock">
          <Clock startEpochMs={run.startEpochMs} lang={lang} />
          <ModelBadge title={t('clockTip')} />
        </div>
        <div className="scrub">
          <div ref={trackRef} className="scrub-track" onPointerDown={onTrackDown} onPointerMove={onTrackMove} onPointerUp={onTrackUp} onPointerCancel={onTrackUp} data-testid="scrub-track">
            <div className="scrub-window" aria-hidden="true" style={{ left: `${(100 * view[0]) / Math.max(1, run.endMs)}%`, width: `${Math.max(0.5, (100 * (view[1] - view[0])) / Math.max(1, run.endMs))}%` }} />
            <ScrubLeaks leaks={leaks} endMs={run.endMs} />
            <ScrubHandle handleRef={handleRef} endMs={run.endMs} startEpochMs={run.startEpochMs} lang={lang} label={t('scrubberLabel')} onKey={onKey} />
          </div>
        </div>
      </section>
      <section className="timeline" aria-labelledby="timeline-h">
        <div className="timeline-head">
          <h2 id="timeline-h">{t('timelineTitle')}</h2>
          <div className="buttons" role="group" aria-label={t('playback')}>
            <button type="button" onClick={() => set({ playing: !playing })} aria-pressed={playing}>
              <Icon name={playing ? 'pause' : 'play'} /> {playing ? t('pause') : t('play')}
            </button>
            <label>
              {t('speed')}{' '}
              <select value={speed} onChange={(e) => set({ speed: Number(e.target.value) })}>
                <option value={0}>{t('speedFit', { x: formatNumber(Math.round(effectiveSpeed(0, run.endMs)), lang) })}</option>
                {(SPEEDS.includes(speed as never) || speed === 0 ? SPEEDS : [...SPEEDS, speed].sort((a, b) => a - b)).map((s) => (
                  <option key={s} value={s}>
                    {formatNumber(s, lang)}×
                  </option>
                ))}
              </select>
            </label>
            <button type="button" onClick={() => chart.current?.zoomBy(2)} aria-label={t('zoomIn')}>
              <Icon name="zoomIn" />
            </button>
            <button type="button" onClick={() => chart.current?.zoomBy(0.5)} aria-label={t('zoomOut')}>
              <Icon name="zoomOut" />
            </button>
            <button type="button" onClick={() => chart.current?.resetZoom()}>
              <Icon name="fit" /> {t('zoomReset')}
            </button>
            <button type="button" onClick={() => jump('first')} disabled={violations.length === 0} data-testid="first-violation">
              <Icon name="first" /> {t('firstViolation')}
            </button>
            <LeakJump leaks={leaks} direction={-1} onJump={jumpLeak} label={t('prevLeak')} testId="prev-leak" />
            <LeakJump leaks={leaks} direction={1} onJump={jumpLeak} label={t('nextLeak')} testId="next-leak" />
            <button type="button" onClick={() => jump(-1)} disabled={violations.length === 0} aria-keyshortcuts="[">
              {t('prevViolation')}
            </button>
            <button type="button" onClick={() => jump(1)} disabled={violations.length === 0} data-testid="next-violation" aria-keyshortcuts="]">
              {t('nextViolation')}
            </button>
          </div>
        </div>
        <div className="timeline-chart-wrap">
          <div ref={boxRef} className="timeline-chart">
            <ChartCursor chart={chart} />
            <svg ref={svgRef} role="img" aria-label={t('timelineChartLabel', { leaks: formatNumber(leaks.length, lang), violations: formatNumber(violations.length, lang) })} data-testid="timeline-svg" {...highlightable('timeline')} />
          </div>
          {laneTip ? (
            <p className="lane-tip" role="tooltip" data-testid="lane-tip" style={{ left: laneTip.x, top: laneTip.y + 4 }}>
              {t(LANE_EXPLAIN[laneTip.key])}
            </p>
          ) : null}
        </div>
        <ul className="invariants" aria-label={t('invariantsTitle')} data-testid="invariants">
          {INVARIANTS.map((k) => {
            const own = breaches[k];
            const fixed = compareBreaches?.[k] ?? null;
            const go = (list: { t: number; req: number }[]) => list[0] && set({ time: list[0].t, selectedRequest: list[0].req, playing: false });
            return (
              <li key={k} data-invariant={k} data-breaches={own.length}>
                <b>{t(INVARIANT_LABEL[k])}</b>{' '}
                <span className={own.length ? 'bad' : 'ok'}>{own.length ? t('invariantBroken', { n: formatNumber(own.length, lang) }) : t('invariantHolds')}</span>{' '}
                {own.length ? (
                  <button type="button" className="small" onClick={() => go(own)} data-testid={`first-${k}`}>
                    {t('invariantFirst')}
                  </button>
                ) : null}
                {fixed ? (
                  <>
                    {' · '}
                    {t('laneCompare')}: <span className={fixed.length ? 'bad' : 'ok'}>{fixed.length ? t('invariantBroken', { n: formatNumber(fixed.length, lang) }) : t('invariantHolds')}</span>
                    {fixed.length ? (
                      <>
                        {' '}
                        <button type="button" className="small" onClick={() => go(fixed)} data-testid={`first-${k}-compare`}>
                          {t('invariantFirst')}
                        </button>
                      </>
                    ) : null}
                  </>
                ) : null}
              </li>
            );
          })}
        </ul>
        <p className="timeline-key hint" data-testid="timeline-key">
          <span className="badge model">{t('model')}</span>{' '}
          {milestones.length > 0 ? (
            <>
              <span className="badge fact">{t('fact')}</span> {t('timelineKey')}
            </>
          ) : (
            t('timelineKeyModelOnly')
          )}{' '}
          {t('laneLegendHint')}
        </p>
        {milestones.length > 0 && sameCount(breaches) ? (
          <p className="timeline-lanes-why hint" data-testid="timeline-lanes-why">
            <LanesWhy n={breaches.confidentiality.length} />
          </p>
        ) : null}
        {milestones.length > 0 ? (
          <details className="milestone-list" data-testid="milestone-list">
            <summary>{t('milestones')}</summary>
            <ul>
              {milestones.map((m) => (
                <li key={m.id + m.epochMs}>
                  <FactBadge id={m.id} /> <b>{m.when}</b> — {m.text}
                  {m.dayOnly ? <span className="hint"> ({t('milestoneDayOnly')})</span> : null}
                  {m.derived ? (
                    <span className="hint">
                      {' '}
                      {t('milestoneDerived')} {m.derived}
                    </span>
                  ) : null}
                </li>
              ))}
            </ul>
          </details>
        ) : null}
      </section>
    </>
  );
}

/** The clock over the chart: the scrubbed instant in UTC. */
function Clock({ startEpochMs, lang }: { startEpochMs: number; lang: Lang }) {
  const time = useApp((s) => s.time);
  return (
    <output className="clock" data-testid="current-time" htmlFor="scrubber">
      {formatUtc(startEpochMs + time, lang)}
    </output>
  );
}

/** The leaked responses' ticks on the track; they move only with the run. */
const ScrubLeaks = memo(function ScrubLeaks({ leaks, endMs }: { leaks: readonly number[]; endMs: number }) {
  return (
    <>
      {leaks.map((l, i) => (
        <span key={i} className="scrub-leak" aria-hidden="true" style={{ left: `${(100 * l) / Math.max(1, endMs)}%` }} />
      ))}
    </>
  );
});

interface HandleProps {
  handleRef: React.RefObject<HTMLDivElement | null>;
  endMs: number;
  startEpochMs: number;
  lang: Lang;
  label: string;
  onKey: (e: React.KeyboardEvent) => void;
}

/** The track's fill up to the scrubbed instant and its handle, the slider. */
function ScrubHandle({ handleRef, endMs, startEpochMs, lang, label, onKey }: HandleProps) {
  const time = useApp((s) => s.time);
  const at = `${(100 * time) / Math.max(1, endMs)}%`;
  return (
    <>
      <div className="scrub-fill" aria-hidden="true" style={{ width: at }} />
      <div
        ref={handleRef}
        id="scrubber"
        className="scrub-handle"
        role="slider"
        tabIndex={0}
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={Math.round(endMs)}
        aria-valuenow={Math.round(time)}
        aria-valuetext={formatUtc(startEpochMs + time, lang)}
        aria-keyshortcuts="ArrowLeft ArrowRight Shift+ArrowLeft Shift+ArrowRight Home End Space + - [ ]"
        onKeyDown={onKey}
        data-testid="scrubber"
        style={{ left: at }}
      />
    </>
  );
}

/** "Previous / next leaked response": off when there is none that way from the scrubbed instant. */
function LeakJump({ leaks, direction, onJump, label, testId }: { leaks: readonly number[]; direction: 1 | -1; onJump: (d: 1 | -1) => void; label: string; testId: string }) {
  const none = useApp((s) => jumpTarget(leaks, s.time, direction) === undefined);
  return (
    <button type="button" onClick={() => onJump(direction)} disabled={none} data-testid={testId}>
      {label}
    </button>
  );
}

/** Keeps the chart's cursor on the scrubbed instant, panning a zoomed chart to follow it. */
function ChartCursor({ chart }: { chart: React.RefObject<TimelineChart | null> }) {
  const time = useApp((s) => s.time);
  useEffect(() => {
    chart.current?.setCursor(time);
    chart.current?.follow(time);
  }, [chart, time]);
  return null;
}

/** Leaked responses sent by the scrubber's instant: climbs to the run's total as the scrubber moves. */
function LeakCounter({ run }: { run: RunSummary }) {
  const lang = useApp((s) => s.lang);
  // The story's "sent" uses the same rule and the same instant (the selected request's moment), so
  // the two agree at every instant, the handoff clock's included.
  const req = useApp((s) => s.selectedRequest);
  const detail = useRequestDetail(run.refused ? undefined : run, req);
  const n = useMomentValue(run, req, detail.data, (t) => leaksSentBy(run.leaks, t));
  return (
    <p className="leak-counter" data-testid="leaks-so-far" data-count={n} aria-live="off">
      <Tx k="leaksSoFar" vars={{ n: <b className="leak-count">{formatNumber(n, lang)}</b>, total: formatNumber(run.leaks.length, lang) }} /> <ModelBadge />
    </p>
  );
}

/**
 * Why each property lane holds the same count: the replay's count and the model's prompts (A5) are
 * each an element of their own, so the lens on the evidence dims them, while the report's figures
 * (F2's affected responses, F4's threshold) and its fact ids stay bright (`data-fact`).
 */
function LanesWhy({ n }: { n: number }) {
  const lang = useApp((s) => s.lang);
  const facts = useFacts().data;
  if (!facts) return null;
  const affected = formatNumber(facts.figure('affectedResponses').value, lang);
  const threshold = formatNumber(facts.figure('affectedThresholdTokens').value, lang);
  const model = (text: string) => <span className="lens-figure">{text}</span>;
  const fact = (id: string, text: string) => <span data-fact={id}>{text}</span>;
  return (
    <Tx
      k="timelineLanesSame"
      vars={{ n: model(formatNumber(n, lang)), sent: model(affected), threshold: fact('F4', threshold), affected: fact('F2', affected), a5: model('A5'), f2: fact('F2', 'F2'), f4: fact('F4', 'F4'), f21: fact('F21', 'F21') }}
    />
  );
}
