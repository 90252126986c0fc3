import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useCompareRun, useMainRun, useRequestDetail, type RequestDetail, type RunSummary } from '../../run/hooks.ts';
import { Tx, useT } from '../../i18n/i18n.ts';
import type { Translate } from '../../i18n/i18n.ts';
import { formatNumber, type Lang } from '../../i18n/format.ts';
import { useApp, useAppStore } from '../../state/store.ts';
import { tenantCss } from '../../ui/palette.ts';
import { AssumptionBadge, FactBadge, ModelBadge } from '../shared/Evidence.tsx';
import { RequestPicker } from '../shared/RequestPicker.tsx';
import { highlightable } from '../shared/highlight.ts';
import { describeEvent, poolPagesArithmetic } from '../shared/engineText.ts';
import { INCIDENT_PREFILL_CAPACITY_TOKENS } from '../../../engine/config.ts';
import { stepEnd, tenantsHeldBy, HANDOFF_SPEEDS, type HandoffPosition, type HandoffScript, type Moment, type StageStep } from '../../moment/moment.ts';
import { HandoffPicture } from './HandoffPicture.tsx';
import { askHandoffPlay, pauseHandoff, playHandoff, seekHandoff } from '../../state/handoffClock.ts';
import { goToStep, useMoment, useMomentSnapshot } from '../shared/useMoment.ts';
import { TenantKeys } from '../shared/TenantKeys.tsx';
import { scenarioName } from '../shared/scenarioName.ts';
import './stage.css';

export interface StageViewProps {
  /** A page to ring on the stage (a response token's source, from the token↔page linking). */
  linkedPage?: { node: string; page: number } | null;
  /** Show the request picker above the diagram (default true). */
  picker?: boolean;
  /** The screen layout and the video: the picture zoomed, in the height the layout gives it. */
  screen?: boolean;
  /**
   * The first screen: the tenant legend on the title's row (beside the picture it keys) rather than
   * at the end, and the answer right under the flow, so that the whole handoff is in view at 1280×720.
   */
  firstScreen?: boolean;
}

/**
 * A size of an element, kept up to date: the stage's width (to choose the wide or the phone
 * arrangement) and, on the screen layout, the height its picture is given.
 */
function useSize(el: React.RefObject<HTMLElement | null>, dimension: 'clientWidth' | 'clientHeight', on = true): number {
  const [size, setSize] = useState(0);
  useLayoutEffect(() => {
    const node = el.current;
    if (!node || !on) return;
    setSize(node[dimension]);
    const ro = new ResizeObserver(() => setSize(node[dimension]));
    ro.observe(node);
    return () => ro.disconnect();
  }, [el, dimension, on]);
  return size;
}

/**
 * The sentence for a stage step, in the page's language (the engine's events through engineText),
 * its counts and owners from the moment (the read names the block table as decode read it).
 */
export function stepSentence(step: StageStep | undefined, moment: Moment, t: Translate, lang: Lang): string {
  if (!step) return t('st_idle');
  const { detail, run } = moment;
  const events = detail.events;
  const e = events[step.event]!;
  const fmt = (n: number) => formatNumber(n, lang);
  const ctx = { lang, phase: run.phases[run.requests.phase[moment.req]!], events, read: moment.readTable ? { table: moment.readTable, roster: moment.roster } : null };
  switch (step.id) {
    case 'tokenizer':
      return t('st_tokenizer', { tokens: fmt(e.type === 'arrive' ? e.tokens : 0) });
    case 'stream':
      return t('st_stream', { pages: fmt(moment.blockTable.pages.length) });
    case 'reuse':
      return t('st_reuse');
    default:
      return describeEvent(e, t, ctx);
  }
}

/**
 * The stage: the selected request's handoff through client, router, prefill node, RDMA link and
 * decode node, every node's KV pool at real scale, as a pure function of the scrubber's time.
 * With a comparison run, a second row shows what the fixed design does at the same instant.
 */
export function StageView({ linkedPage = null, picker = true, screen = false, firstScreen = false }: StageViewProps) {
  const t = useT();
  const mainRun = useMainRun();
  const main = mainRun.data;
  const compareRun = useCompareRun().data;
  const req = useApp((s) => s.selectedRequest);
  const wrap = useRef<HTMLDivElement>(null);
  const width = useSize(wrap, 'clientWidth');
  const usable = main && !main.refused && req !== null && req < main.requests.count ? main : undefined;
  const detail = useRequestDetail(usable, req);
  const compareDetail = useRequestDetail(compareRun && !compareRun.refused && req !== null && req < compareRun.requests.count ? compareRun : undefined, req);
  const pageSize = usable?.phases[0]?.pageSize ?? 64;
  const lang = useApp((s) => s.lang);
  // The prefill pool the picture draws (its pages beside the capacity the report gives, F14).
  const phase = usable && req !== null ? usable.phases[usable.requests.phase[req]!] : undefined;
  const prefillNode = phase?.nodes.find((n) => n.kind === 'prefill');
  const prefillPages = prefillNode?.pageCount ?? 0;
  const scenario = useApp((s) => s.scenario);
  // A replay on an operator's deployment is no scenario of the page's: the deployment view names it.
  const replaying = useApp((s) => s.deploymentReplay !== null && s.deploymentReplay !== 'none');
  // Everything above the diagram stays put while the scrubber moves: only StageBody reads the time.
  return (
    <section aria-labelledby="stage-h" className="stage-view" ref={wrap}>
      {/* The first screen keys its tenants on the title's row: in view, and no row taller. */}
      <div className="stage-head">
        <h2 id="stage-h">
          {t('stageTitle')} <ModelBadge />
        </h2>
        {firstScreen && usable && detail.data ? <StageTenantKeys run={usable} detail={detail.data} max={3} /> : null}
      </div>
      {/* Which run the picture is of, where the header's Scenario is out of sight (the Stage tab, far below it); the first
          screen sits right under it, and in the walkthrough and the talk the chapter's scene line says it (SceneLine). */}
      {usable && !replaying && !firstScreen ? (
        <p className="hint stage-run" data-testid="stage-run" data-scenario={scenario}>
          {t('sceneOnScreen', { run: scenarioName(scenario, t, lang) })}
        </p>
      ) : null}
      {req === null || !usable ? <p className="hint">{t('stageNoRequest')}</p> : null}
      {detail.isError ? <p className="hint">{t('stageNotHandoff')}</p> : null}
      {usable && req !== null && !detail.data && !detail.isError ? <PreparingHandoff why={t('stageLoadingRequest')} /> : null}
      {usable && req !== null && detail.data && width > 0 ? (
        <StageBody run={usable} req={req} detail={detail.data} compareRun={compareRun && !compareRun.refused ? compareRun : undefined} compareDetail={compareDetail.data} width={width} linkedPage={linkedPage} screen={screen} answerFirst={firstScreen} recomputing={mainRun.recomputing} />
      ) : null}
      {/* What the picture is, and which request: after the picture, which leads. */}
      {picker && main && !main.refused ? <RequestPicker run={main} /> : null}
      <p className="hint stage-intro">
        {/* The page size is the model's (the lens dims it). F14 backs the prefill pool's total where it is the report's 681,280. */}
        <Tx k="stageIntro" vars={{ pageSize: <span className="lens-figure">{String(pageSize)}</span> }} /> <AssumptionBadge id="A11" />
        {prefillPages > 0 ? (
          <>
            <span className="lens-figure" data-testid="stage-pool-padding">
              {' '}
              {t('stagePoolPadding', { node: prefillNode!.name, text: poolPagesArithmetic(prefillPages, pageSize, t, lang) })} <ModelBadge />
            </span>
            {(prefillPages - 1) * pageSize === INCIDENT_PREFILL_CAPACITY_TOKENS ? (
              <>
                {' '}
                <FactBadge id="F14" />
              </>
            ) : null}
          </>
        ) : null}
      </p>
      {usable && detail.data ? (
        <ul className="stage-legend">
          <li>
            <span className="key k-fresh" style={{ background: tenantCss(usable.tenants.indexOf(detail.data.response.tenant)) }} /> {t('stageLegendFresh')}
          </li>
          <li>
            <span className="key k-stale" /> {t('stageLegendStale')}
          </li>
          <li>
            <span className="key k-zero" /> {t('stageLegendZero')}
          </li>
          <li>
            <span className="key k-other" /> {t('stageLegendOther')}
          </li>
          <li>
            <span className="key k-flash" /> {t('stageLegendFlash')}
          </li>
        </ul>
      ) : null}
      {!firstScreen && usable && detail.data ? <StageTenantKeys run={usable} detail={detail.data} /> : null}
    </section>
  );
}

/** The tenants whose KV the stage's two pools hold at the moment (their colours), every one or how many are folded. */
function StageTenantKeys({ run, detail, max = 8 }: { run: RunSummary; detail: RequestDetail; max?: number }) {
  const snapshot = useMomentSnapshot(run);
  const route = detail.events.find((e) => e.type === 'route');
  const nodes = route && route.type === 'route' ? [`prefill-${route.prefill}`, `decode-${route.decode}`] : undefined;
  const held = useMemo(() => tenantsHeldBy(snapshot, nodes), [snapshot, snapshot?.t, nodes?.join()]);
  // While a walkthrough question waits, whose KV the pools hold is part of its answer: the legend names
  // the request's own tenant and counts the others, as the picture shows them (unnamed, grey).
  const questionOpen = useApp((s) => s.questionOpen);
  const own = run.tenants.indexOf(detail.response.tenant);
  if (questionOpen) {
    const mine = held.includes(own) ? [own] : [];
    return <TenantKeys roster={run.tenants} tenants={[...mine, ...held.filter((i) => i !== own)]} max={mine.length} testId="stage-tenant-keys" />;
  }
  return <TenantKeys roster={run.tenants} tenants={held} max={max} testId="stage-tenant-keys" />;
}

interface BodyProps {
  run: RunSummary;
  req: number;
  detail: RequestDetail;
  compareRun: RunSummary | undefined;
  compareDetail: RequestDetail | undefined;
  width: number;
  linkedPage: { node: string; page: number } | null;
  screen: boolean;
  /** The answer under the flow, the microscope after it (the first screen). */
  answerFirst: boolean;
  /** The run on screen is the previous one while this one is computed (its controls keep a Play until it is there). */
  recomputing: boolean;
}


/** The screen layout's zoom: the picture's 12 px labels at 20.4 px. */
const SCREEN_ZOOM = 1.7;

interface RowProps {
  moment: Moment;
  width: number;
  linkedPage: { node: string; page: number } | null;
  row: 'main' | 'fix';
  screenHeight: number | null;
  answerFirst: boolean;
}

/** One picture (the run as deployed, or the comparison run with a fix) at the moment. */
function StageRow({ moment, width, linkedPage, row, screenHeight, answerFirst }: RowProps) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const { run, req, detail, script, position } = moment;
  const sentence = stepSentence(moment.step, moment, t, lang);
  const dpr = typeof window !== 'undefined' ? window.devicePixelRatio || 1 : 1;
  return (
    <>
      <HandoffPicture run={run} req={req} detail={detail} frame={moment.frame} snapshot={moment.snapshot} width={width} dpr={dpr} lang={lang} linkedPage={linkedPage} row={row} sentence={sentence} screen={screenHeight ? { zoom: SCREEN_ZOOM, viewHeight: screenHeight } : null} previousStep={script.steps[position.index - 1]?.id ?? null} answerFirst={answerFirst} />
      {row === 'fix' ? <p className="stage-sentence" data-testid="stage-sentence-fix">{sentence}</p> : null}
    </>
  );
}

/**
 * Where the handoff's controls will be, while its picture is prepared (the run, or the request's
 * events, still being computed): a line that says so, and a Play that is kept and plays once ready.
 */
export function PreparingHandoff({ why }: { why: string }) {
  const store = useAppStore();
  const t = useT();
  const asked = useApp((s) => s.handoffPlayAsked);
  const line = useId();
  return (
    <div className="hc hc-preparing" aria-busy="true" data-testid="handoff-preparing">
      <button type="button" className="hc-play" onClick={() => askHandoffPlay(store)} aria-pressed={asked} aria-describedby={line} data-testid="handoff-play">
        {'\u25b6'} {t('hcPlay')}
      </button>
      <p id={line} className="hint hc-preparing-line" role="status">
        {why} {t(asked ? 'hcPlayAsked' : 'hcPlayEarly')}
      </p>
    </div>
  );
}

/** The handoff clock's controls: play or pause, the scrubber with the steps named on it, speed. */
function HandoffControls({ script, position, steps, busy }: { script: HandoffScript; position: HandoffPosition; steps: readonly StageStep[]; busy: boolean }) {
  const store = useAppStore();
  const t = useT();
  const lang = useApp((s) => s.lang);
  const playing = useApp((s) => s.handoffPlaying);
  const speed = useApp((s) => s.handoffSpeed);
  const running = useApp((s) => s.handoff !== null);
  const asked = useApp((s) => s.handoffPlayAsked);
  // `busy`: the run on screen is the previous one while this one is computed: Play is kept until it is there.
  const total = script.total;
  useEffect(() => {
    if (asked && !busy) playHandoff(store, total);
  }, [asked, busy, store, total]);
  const press = () => (busy && !playing ? askHandoffPlay(store) : playing ? pauseHandoff(store) : playHandoff(store, total));
  const h = Math.max(0, Math.min(total, position.h));
  const index = position.index;
  const name = index >= 0 ? t(`hcStep.${steps[index]!.id}`) : t('st_idle');
  const fmtS = (x: number) => formatNumber(Math.round(x * 10) / 10, lang);
  const valueText = t('hcValue', { n: String(index + 1), count: String(steps.length), name, s: fmtS(h), total: fmtS(total) });
  const go = (i: number) => goToStep(store, script, i);
  const back = () => {
    const s = script.steps[index];
    // Back: to the end of the step before (its end state), or the start of the first.
    if (index <= 0) seekHandoff(store, 0);
    else if (s && h > s.at + 1e-6 && h < s.at + s.dur - 1e-6) seekHandoff(store, stepEnd(script.steps[index - 1]!));
    else go(index - 1);
  };
  const onKey = (e: React.KeyboardEvent) => {
    if (e.key === ' ' || e.key === 'k') press();
    else if (e.key === 'ArrowRight') go(index + 1);
    else if (e.key === 'ArrowLeft') back();
    else if (e.key === 'Home') seekHandoff(store, 0);
    else if (e.key === 'End') seekHandoff(store, total);
    else return;
    e.preventDefault();
    e.stopPropagation();
  };
  const track = useRef<HTMLDivElement>(null);
  const trackWidth = useSize(track, 'clientWidth');
  /** What a segment says: the step's name where it fits, else its number where that fits, else nothing (its title names it). */
  const segmentLabel = (s: StageStep & { dur: number }, i: number): string => {
    const room = (trackWidth * s.dur) / total - 6;
    const name = t(`hcStep.${s.id}`);
    // 13 px text: about 0.6 em a character, digits included.
    if (name.length * 7.8 <= room) return name;
    return String(i + 1).length * 7.8 <= room ? String(i + 1) : '';
  };
  const seekAtPointer = (clientX: number) => {
    const el = track.current;
    if (!el) return;
    const r = el.getBoundingClientRect();
    seekHandoff(store, ((clientX - r.left) / Math.max(1, r.width)) * total);
  };
  return (
    <div className="hc" data-testid="handoff-clock">
      <button type="button" className="hc-play" onClick={press} data-testid="handoff-play" aria-busy={busy || undefined} aria-pressed={busy ? asked : undefined} aria-label={playing ? t('hcPause') : h >= total - 1e-6 && running ? t('hcReplay') : t('hcPlay')}>
        {/* The three labels in one cell, the current one shown: the button keeps the widest's width. */}
        <span className="hc-play-labels">
          {(['hcPlay', 'hcPause', 'hcReplay'] as const).map((key) => {
            const on = key === (playing ? 'hcPause' : h >= total - 1e-6 && running ? 'hcReplay' : 'hcPlay');
            return (
              <span key={key} className={on ? undefined : 'hc-play-spacer'} aria-hidden={on ? undefined : true}>
                {key === 'hcPause' ? '\u275a\u275a' : '\u25b6'} {t(key)}
              </span>
            );
          })}
        </span>
      </button>
      <div
        ref={track}
        className="hc-track"
        role="slider"
        tabIndex={0}
        aria-label={t('hcTitle')}
        aria-valuemin={0}
        aria-valuemax={Math.round(total * 10) / 10}
        aria-valuenow={Math.round(h * 10) / 10}
        aria-valuetext={valueText}
        aria-keyshortcuts="Space ArrowLeft ArrowRight Home End"
        data-testid="handoff-scrubber"
        onKeyDown={onKey}
        onPointerDown={(e) => {
          (e.currentTarget as HTMLElement).setPointerCapture?.(e.pointerId);
          seekAtPointer(e.clientX);
        }}
        onPointerMove={(e) => {
          if (e.buttons & 1) seekAtPointer(e.clientX);
        }}
      >
        {script.steps.map((s, i) => (
          <span key={i} className={`hc-seg${i === index ? ' hc-on' : i < index ? ' hc-past' : ''}`} data-step={s.id} data-at={s.at} data-dur={s.dur} style={{ left: `${(100 * s.at) / total}%`, width: `${(100 * s.dur) / total}%` }} title={t(`hcStep.${s.id}`)}>
            <span className="hc-seg-label">{segmentLabel(s, i)}</span>
          </span>
        ))}
        <span className="hc-head" style={{ left: `${(100 * h) / total}%` }} />
      </div>
      <label className="hc-speed">
        <span className="visually-hidden">{t('hcSpeed')}</span>
        <select value={String(speed)} onChange={(e) => store.setState({ handoffSpeed: Number(e.target.value) })} aria-label={t('hcSpeed')}>
          {HANDOFF_SPEEDS.map((x) => (
            <option key={x} value={String(x)}>
              {formatNumber(x, lang)}{'\u00d7'}
            </option>
          ))}
        </select>
      </label>
      {busy ? (
        <p className="hint hc-preparing-line" role="status" data-testid="handoff-busy">
          {t('hcRecomputing')} {t(asked ? 'hcPlayAsked' : 'hcPlayEarly')}
        </p>
      ) : null}
      <span className="hc-readout" aria-hidden="true">
        <span data-testid="stage-step-label">{t('stageStepOf', { n: String(index + 1), count: String(steps.length) })}</span>
        {' \u00b7 '}
        {name}
      </span>
    </div>
  );
}

/** The handoff clock's controls, the step's sentence, and the pictures at the clocks' moment. */
function StageBody({ run, req, detail, compareRun, compareDetail, width, linkedPage, screen, answerFirst, recomputing }: BodyProps) {
  const store = useAppStore();
  const rootRef = useRef<HTMLDivElement>(null);
  const rootHeight = useSize(rootRef, 'clientHeight', screen);
  const twoRows = !!(compareRun && store.getState().compare && compareDetail);
  const screenHeight = screen ? Math.max(120, twoRows ? (rootHeight - 60) / 2 : rootHeight - 4) : null;
  const t = useT();
  const lang = useApp((s) => s.lang);
  const compareKey = useApp((s) => s.compare);
  const moment = useMoment(run, req, detail)!;
  const fixMoment = useMoment(compareRun, req, compareDetail);
  const { script, position } = moment;
  const steps = script.steps;
  const index = position.index;
  const reducedMotion = moment.reducedMotion;
  const sentence = stepSentence(moment.step, moment, t, lang);
  const allSentences = [...new Set([t('st_idle'), ...steps.map((x) => stepSentence(x, moment, t, lang))])];
  // The picture's keys: the same as the handoff clock's (focus the diagram, then ← → step).
  const onKey = (e: React.KeyboardEvent) => {
    if (e.target !== e.currentTarget) return;
    const go = (i: number) => goToStep(store, script, i);
    if (e.key === 'ArrowRight') go(index + 1);
    else if (e.key === 'ArrowLeft') (index <= 0 ? seekHandoff(store, 0) : go(index - 1));
    else if (e.key === 'Home') seekHandoff(store, 0);
    else if (e.key === 'End') seekHandoff(store, script.total);
    else if (e.key === ' ') (store.getState().handoffPlaying ? pauseHandoff(store) : playHandoff(store, script.total));
    else return;
    e.preventDefault();
  };
  return (
    <>
      <HandoffControls script={script} position={position} steps={script.steps} busy={recomputing} />
      {/* Every step's sentence in one cell, the current one shown: the caption is as tall as the
          longest at this width and language, so the picture below never moves as steps change. The
          others are drawn from an attribute (stage.css), never as the page's text: while a question
          waits, a later step's sentence is its answer, and hidden text is still text to a search or a copy. */}
      <div className="stage-caption-box">
        <p className="stage-caption" aria-live="polite" data-testid="stage-caption" {...highlightable('stage-caption')}>
          {sentence}
        </p>
        {allSentences.map((x, i) => (
          <p key={i} className="stage-caption stage-caption-spacer" aria-hidden="true" data-sizer={x} />
        ))}
      </div>
      <div
        ref={rootRef}
        className="stage-root"
        data-testid="stage"
        {...highlightable('stage')}
        data-step={steps[index]?.id ?? 'idle'}
        data-step-index={index}
        data-handoff={position.h.toFixed(2)}
        data-reduced-motion={reducedMotion ? 'true' : 'false'}
        tabIndex={0}
        role="group"
        aria-roledescription={t('viewStage')}
        aria-label={t('stageTitle')}
        aria-keyshortcuts="Space ArrowLeft ArrowRight Home End"
        aria-describedby="stage-keys"
        onKeyDown={onKey}
      >
        {compareRun && compareKey ? <h3 className="stage-row-title">{t('stageRowMain')}</h3> : null}
        <StageRow moment={moment} width={width} linkedPage={linkedPage} row="main" screenHeight={screenHeight} answerFirst={answerFirst} />
        {compareRun && compareKey && fixMoment ? (
          <>
            <h3 className="stage-row-title">{t('stageRowFix', { fix: t(`switch.${compareKey}.fix`) })}</h3>
            <StageRow moment={fixMoment} width={width} linkedPage={null} row="fix" screenHeight={screenHeight} answerFirst={answerFirst} />
          </>
        ) : null}
      </div>
      <div className="stepper" role="group" aria-label={t('step')}>
        <button type="button" onClick={() => (index <= 0 ? seekHandoff(store, 0) : seekHandoff(store, stepEnd(script.steps[index - 1]!)))} disabled={index <= 0 && position.h <= 0} data-testid="stage-prev">
          {t('stagePrev')}
        </button>
        <button type="button" onClick={() => goToStep(store, script, index + 1)} disabled={index >= steps.length - 1 && position.h >= script.total} data-testid="stage-next">
          {t('stageNext')}
        </button>
      </div>
      <p className="hint" id="stage-keys">
        {t('hcKeys')}
      </p>
    </>
  );
}
