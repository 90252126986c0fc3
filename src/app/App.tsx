import { Suspense, lazy, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useFacts } from '../data/useFacts.ts';
import { SCENARIO_NAMES, type ScenarioName } from '../engine/runs/index.ts';
import { pick, setLanguage, useT } from './i18n/i18n.ts';
import { formatUtcDayRange } from './i18n/format.ts';
import { scenarioName } from './views/shared/scenarioName.ts';
import { linkNotice } from './i18n/linkNotice.ts';
import { loadLaterText, withLaterText } from './i18n/catalogue.ts';
import { MODEL_START_EPOCH_MS } from '../engine/runs/index.ts';
import { WINDOW_LAST_DAY_ISO, WINDOW_START_ISO, WINDOW_START_MS } from '../engine/incident/timeline.ts';
import { useCompareRun, useMainRun, type RunSummary } from './run/hooks.ts';
import { liveWorkerNames } from './run/rpc.ts';
import { runMatrixInWorker } from './run/runClient.ts';
import { useApp, type Language, type ViewName, useAppStore } from './state/store.ts';
import { seekHandoff } from './state/handoffClock.ts';
import { startPlayback } from './state/playback.ts';
import { holdUnsettled } from './state/settled.ts';
import { openingUrl, replaceNextHistoryEntry, startUrlSync, type IgnoredNotice } from './state/urlSync.ts';
import { ClusterView } from './views/cluster/ClusterView.tsx';
import { setGridRedraw } from './views/cluster/pageGrid.ts';
import { FactBadge } from './views/shared/Evidence.tsx';
import { RunProgress } from './views/shared/RunProgress.tsx';
import { EVIDENCE_ID, EvidencePanel, focusEvidence } from './views/shared/EvidencePanel.tsx';
import { loadAssumptionTexts } from './views/shared/assumptionTexts.ts';
import { Timeline, type Milestone } from './views/timeline/Timeline.tsx';
import { timelineMilestones } from './views/timeline/milestones.ts';
import { WalkthroughButton } from './walkthrough/WalkthroughButton.tsx';
import { ExploreButton, ExploreDrawer, useExploreKey } from './views/story/ExploreDrawer.tsx';
import { ProbeSlot } from './views/story/ProbeSlot.tsx';
import { StoryScreen } from './views/story/StoryScreen.tsx';
import { storyOpening } from './views/story/storyText.ts';
import { STORY_PICTURE_ID, STORY_PICTURE_VIEW } from './views/story/StoryPicture.tsx';
import { whatIfSwitches } from './views/story/WhatIf.tsx';

// Every lazy view below comes with the catalogue's later text (i18n/catalogue.ts).

// The chapters (text in two languages) load only when the walkthrough opens.
const Walkthrough = lazy(() => withLaterText(() => import('./walkthrough/Walkthrough.tsx')).then((m) => ({ default: m.Walkthrough })));
// A workshop room's bar and quiz (`?room`) load only in a room.
const RoomBar = lazy(() => withLaterText(() => import('./walkthrough/RoomPanel.tsx')).then((m) => ({ default: m.RoomBar })));
// Loaded when a comparison is asked for: it is not needed for the first screen.
const ComparePanel = lazy(() => withLaterText(() => import('./views/compare/ComparePanel.tsx')).then((m) => ({ default: m.ComparePanel })));

// The video renderer's screen (`?screen=render`) loads only when asked for.
const RenderScreen = lazy(() => withLaterText(() => import('./render/RenderScreen.tsx')).then((m) => ({ default: m.RenderScreen })));

// Not on the first screen (the Cluster tab is): each loads when its tab is first shown; the Explore
// drawer's contents when it opens or once the first screen is drawn (ExploreDrawer).
const TransferView = lazy(() => withLaterText(() => import('./views/transfer/TransferView.tsx')).then((m) => ({ default: m.TransferView })));
const ResponseView = lazy(() => withLaterText(() => import('./views/response/ResponseView.tsx')).then((m) => ({ default: m.ResponseView })));
const ExploreContents = lazy(() => withLaterText(() => import('./views/story/ExploreContents.tsx')).then((m) => ({ default: m.ExploreContents })));

// "Your deployment" (its parsers and bands) loads only when opened, or when a link holds a deployment.
const DeploymentView = lazy(() => withLaterText(() => import('./views/deployment/DeploymentView.tsx')).then((m) => ({ default: m.DeploymentView })));

// The live screen layout (`?screen`) loads only when opened.
const LiveScreen = lazy(() => withLaterText(() => import('./screen/LiveScreen.tsx')).then((m) => ({ default: m.LiveScreen })));

const VIEWS: ViewName[] = ['stage', 'cluster', 'transfer', 'response'];

const VIEW_LABEL = { cluster: 'viewCluster', transfer: 'viewTransfer', response: 'viewResponse', stage: 'viewStage' } as const;

function Notices() {
  const t = useT();
  const notices = useApp((s) => s.notices);
  const dismiss = useApp((s) => s.dismissNotice);
  if (notices.length === 0) return null;
  return (
    <div className="notices" role="status" aria-live="polite" data-testid="notices">
      {notices.map((n, i) => (
        <p key={n} className="notice">
          <b>{t('noticeTitle')}:</b> {n}{' '}
          <button type="button" onClick={() => dismiss(i)}>
            {t('dismiss')}
          </button>
        </p>
      ))}
    </div>
  );
}

function Headline() {
  const lang = useApp((s) => s.lang);
  const facts = useFacts();
  // What happened and where, first: the model and the service by name (F1), then the count (F2).
  const f1 = facts.data?.byId.get('F1');
  const f2 = facts.data?.byId.get('F2');
  // In a what-if the report's figure stays the report's, said so (views/story/WhatIf.tsx).
  const whatIf = useApp((s) => whatIfSwitches(s.switches).length > 0);
  const t = useT();
  if (!f1 || !f2) return null;
  return (
    <p className="headline" data-testid="headline" data-what-if={whatIf ? 'true' : 'false'}>
      <span data-testid="headline-where" data-fact="F1">
        {pick(lang, f1.en, f1.fr)} <FactBadge id="F1" />
      </span>{' '}
      {whatIf ? <b className="lens-keep">{t('reportSays')} </b> : null}
      <span data-fact="F2">
        {pick(lang, f2.en, f2.fr)} <FactBadge id="F2" />
      </span>
    </p>
  );
}

/**
 * Whether the page was opened on a given instant or on a walkthrough chapter (which sets its own);
 * otherwise it starts at the first cross-tenant read.
 */
const OPENED_SITUATED = ((q) => q.time !== undefined || q.chapter !== undefined)(openingUrl().state);

function Header({ explore, onExplore, deployment, onDeployment }: { explore: boolean; onExplore: () => void; deployment: boolean; onDeployment: () => void }) {
  const t = useT();
  const store = useAppStore();
  const scenario = useApp((s) => s.scenario);
  const lang = useApp((s) => s.lang);
  const set = useApp((s) => s.set);
  // The tagline tells the mechanism; while the room predicts it would answer the question.
  const questionOpen = useApp((s) => s.questionOpen || s.questionAhead);
  const range = formatUtcDayRange(WINDOW_START_ISO.slice(0, 10), WINDOW_LAST_DAY_ISO, lang);
  return (
    <header className="site-header">
      <div>
        <h1>{t('title')}</h1>
        <Headline />
        <p className="tagline" data-testid="tagline">
          {questionOpen ? t('taglineAsked') : t('tagline')}
        </p>
      </div>
      <div className="header-controls">
        <ExploreButton open={explore} onToggle={onExplore} />
        <WalkthroughButton />
        <button type="button" onClick={focusEvidence} aria-controls={EVIDENCE_ID} data-testid="evidence-open">
          {t('evidenceOpen')}
        </button>
        {/* After the story's own ways in: an operator's question comes once the incident is told. */}
        <button type="button" id="deployment-open" aria-expanded={deployment} onClick={onDeployment} data-testid="deployment-open">
          {t('depOpen')}
        </button>
        <label>
          {t('scenario')}{' '}
          <select value={scenario} onChange={(e) => set({ scenario: e.target.value as ScenarioName, time: 0, selectedRequest: null, selectedPage: null })} data-testid="scenario">
            {SCENARIO_NAMES.map((name) => (
              <option key={name} value={name}>
                {scenarioName(name, t, lang)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t('language')}{' '}
          <select value={lang} onChange={(e) => setLanguage(store, e.target.value as Language)}>
            <option value="en">English</option>
            <option value="fr">Français</option>
          </select>
        </label>
      </div>
    </header>
  );
}

export function App() {
  // Read once: the screen layout is a way of opening the page, not a setting that changes.
  const screen = useMemo(() => openingUrl().state.screen ?? 'off', []);
  const store = useAppStore();
  const liveNotice: IgnoredNotice = useCallback((ignored) => linkNotice(store.getState().lang, ignored), [store]);
  // The live layout is entered and left in the page (Escape, the walkthrough's link): followed in the store.
  // The store reads the URL in an effect (urlSync); the first render already knows from the URL.
  useMemo(() => screen === 'live' && store.getState().set({ screen: 'live' }), [screen, store]);
  const live = useApp((s) => s.screen === 'live');
  if (screen !== 'render' && live) {
    return (
      <Suspense fallback={null}>
        <LiveScreen notice={liveNotice} />
      </Suspense>
    );
  }
  if (screen === 'render') {
    return (
      <Suspense fallback={null}>
        <RenderScreen />
      </Suspense>
    );
  }
  return <Dashboard />;
}

/**
 * True once `ready` has been true and the browser has then been idle: what is not on the first
 * screen (the drawer's contents, the probe's own replay in a worker) starts then, not while the
 * first screen is still being drawn. Stays true.
 */
function useIdleAfter(ready: boolean): boolean {
  const [idle, setIdle] = useState(false);
  useEffect(() => {
    if (idle || !ready) return;
    const done = () => setIdle(true);
    if (typeof requestIdleCallback === 'function') {
      const id = requestIdleCallback(done, { timeout: 1000 });
      return () => cancelIdleCallback(id);
    }
    const id = setTimeout(done, 100);
    return () => clearTimeout(id);
  }, [idle, ready]);
  return idle;
}

function Dashboard() {
  const t = useT();
  const store = useAppStore();
  const view = useApp((s) => s.view);
  const scenario = useApp((s) => s.scenario);
  const set = useApp((s) => s.set);
  const lang = useApp((s) => s.lang);
  const main = useMainRun();
  // Playback of the incident's clock runs beside the store, up to the end of the run on screen.
  const mainEnd = useRef<number | null>(null);
  mainEnd.current = main.data?.endMs ?? null;
  useEffect(() => startPlayback(store, () => mainEnd.current), [store]);
  const compare = useCompareRun();
  const viewRoot = useRef<HTMLDivElement>(null);
  const facts = useFacts();
  const milestones: Milestone[] = useMemo(
    () =>
      // The report's milestones belong to the incident window; the demo and the matrix are the model's alone.
      facts.data && scenario === 'incident' ? timelineMilestones(facts.data, lang) : [],
    [facts.data, lang, scenario],
  );
  const autoTimed = useRef(OPENED_SITUATED);
  const [explore, setExplore] = useState(false);
  // The walkthrough (its chapters and runner) loads when a chapter is first opened, and stays
  // mounted after, so that closing and reopening keeps its answers.
  const walking = useApp((s) => s.chapter !== null);
  const inRoom = useApp((s) => s.roomView !== null);
  const [walkthroughMounted, setWalkthroughMounted] = useState(false);
  if (walking && !walkthroughMounted) setWalkthroughMounted(true);
  const toggleExplore = useCallback(() => setExplore((o) => !o), []);
  useExploreKey(toggleExplore);
  // Open while the person wants it, and whenever a deployment is held (a link, or a replay).
  const [deploymentWanted, setDeploymentWanted] = useState(false);
  const holdsDeployment = useApp((s) => s.deployment !== null);
  const deploymentOpen = deploymentWanted || holdsDeployment;
  const closeDeployment = useCallback(() => {
    setDeploymentWanted(false);
    document.getElementById('deployment-open')?.focus();
  }, []);
  const showReplay = useCallback((arrived?: RunSummary) => {
    // A replay just computed opens as any run's story does: on its request, just after its answer.
    const opening = arrived ? storyOpening(arrived) : null;
    if (opening) store.getState().set({ time: opening.t, selectedRequest: opening.req, view: 'stage' });
    const picture = document.getElementById(STORY_PICTURE_ID);
    picture?.scrollIntoView({ block: 'start' });
    picture?.focus({ preventScroll: true });
  }, [store]);

  useEffect(() => startUrlSync(store, (ignored) => linkNotice(store.getState().lang, ignored)), [store]);
  // The run on screen once it is the one the switches describe (not the previous one kept meanwhile).
  const shownRun = useRef<string | null>(null);
  const shownKey = main.data && !main.recomputing ? main.data.runKey : null;
  useEffect(() => {
    shownRun.current = shownKey;
  }, [shownKey]);
  useEffect(() => {
    // `?bench`: a hook for bench/ui.bench.ts to seek programmatically and time the redraw.
    if (store.getState().bench) {
      (window as unknown as { __stalePages: unknown }).__stalePages = {
        seek: (ms: number) => store.getState().set({ time: ms, playing: false }),
        // The handoff clock at `h` seconds, paused (as its scrubber puts it).
        handoff: (h: number) => seekHandoff(store, h),
        state: () => store.getState(),
        gridRedraw: setGridRedraw,
        // The benchmarks' baselines and checks: the matrix started at once (as every load did), live workers.
        matrix: () => runMatrixInWorker(),
        workers: () => liveWorkerNames(),
        // The switch benchmark: which run the picture shows, and whether a progress line is up.
        shownRun: () => shownRun.current,
      };
    }
  }, []);
  useEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);
  // A run can end before the time in a link: keep the cursor inside the run. A page opened without
  // a time starts on the request the story tells (the first leak, or the request that would have
  // leaked): the incident's instant just after its answer went out, its handoff at the beginning.
  // A chapter open by then (a workshop room's, followed) decides where the page is instead.
  useEffect(() => {
    const run = main.data;
    if (!run) return;
    // The story's instant is its answer's, rounded up to the link's microsecond: a run whose last
    // event is that answer (a replay on an operator's deployment) keeps it.
    if (store.getState().time > Math.ceil(run.endMs * 1000) / 1000) set({ time: run.endMs });
    if (!autoTimed.current) {
      autoTimed.current = true;
      const opening = run.refused === null && store.getState().chapter === null ? storyOpening(run) : null;
      if (opening) {
        replaceNextHistoryEntry(store);
        // The handoff starts at its beginning, paused (the client about to send; Play runs it), and
        // the counters beside it count as of its instant. A handoff clock given in the link (`h`) is kept.
        set({ time: Math.min(opening.t, run.endMs), selectedRequest: opening.req, handoff: store.getState().handoff ?? 0 });
      }
    }
  }, [main.data, set]);

  const run = main.data;
  const settled = useIdleAfter(run !== undefined);
  // What starts once the first screen is drawn (the later text, the probe's run) starts before the
  // page may say it is at rest (state/settled.ts).
  useEffect(() => (settled ? undefined : holdUnsettled()), [settled]);
  // The text of what is not on the first screen, once it is drawn: the drawer, tabs and panels.
  useEffect(() => {
    if (settled) loadLaterText(lang).catch((error: unknown) => store.getState().notify(error instanceof Error ? error.message : String(error)));
  }, [settled, lang]);
  useEffect(() => {
    if (settled) loadAssumptionTexts().catch(() => undefined);
  }, [settled]);
  const onTabKey = (e: React.KeyboardEvent) => {
    const i = VIEWS.indexOf(view);
    if (e.key === 'ArrowRight' || e.key === 'ArrowLeft') {
      e.preventDefault();
      const next = VIEWS[(i + (e.key === 'ArrowRight' ? 1 : VIEWS.length - 1)) % VIEWS.length]!;
      set({ view: next });
      document.getElementById(`tab-${next}`)?.focus();
    }
  };
  return (
    <>
      <a className="skip" href="#views">
        {t('skipToViews')}
      </a>
      <a className="skip" href={`#${EVIDENCE_ID}`}>
        {t('skipToEvidence')}
      </a>
      <Header explore={explore} onExplore={toggleExplore} deployment={deploymentOpen} onDeployment={() => setDeploymentWanted((o) => !o || holdsDeployment)} />
      <Notices />
      {deploymentOpen ? (
        <Suspense fallback={<p role="status">{t('loading')}</p>}>
          <DeploymentView onClose={closeDeployment} onShowReplay={showReplay} />
        </Suspense>
      ) : null}
      {inRoom ? (
        <Suspense fallback={null}>
          <RoomBar />
        </Suspense>
      ) : null}
      {walkthroughMounted ? (
        <Suspense fallback={null}>
          <Walkthrough />
        </Suspense>
      ) : null}
      {main.isError ? (
        <p role="alert" className="alert">
          {main.error?.message}
        </p>
      ) : null}
      <ExploreDrawer open={explore} onClose={() => setExplore(false)} preload={settled}>
        <Suspense fallback={<p role="status">{t('loading')}</p>}>
          <ExploreContents run={run} compare={compare.data} viewRoot={viewRoot} />
        </Suspense>
      </ExploreDrawer>
      <StoryScreen
        run={run}
        progress={
          main.progress ? (
            <RunProgress
              feed={main.progress}
              label={(scenario === 'incident' ? t('replaying', { range: formatUtcDayRange(WINDOW_START_ISO.slice(0, 10), WINDOW_LAST_DAY_ISO, lang, { prose: true }) }) : t('loading')) + (main.recomputing ? ` — ${t('recomputing')}` : '')}
              startEpochMs={scenario === 'incident' ? WINDOW_START_MS : MODEL_START_EPOCH_MS}
            />
          ) : null
        }
      />
      {run && !run.refused ? <Timeline run={run} compare={compare.data ?? null} milestones={milestones} /> : (
        <div className="timeline timeline-pending">
          <p className="hint">{t(run ? 'timelineRefused' : 'timelinePending')}</p>
        </div>
      )}
      {run && !run.refused && compare.data && !compare.data.refused ? (
        <Suspense fallback={null}>
          <ComparePanel run={run} compare={compare.data} />
        </Suspense>
      ) : null}
      <div className="story-probe">
        <ProbeSlot after={settled ? run : undefined} paused={main.progress !== null} />
      </div>
      <main className="layout layout-views" aria-busy={main.recomputing} data-recomputing={main.recomputing || undefined}>
        <div className="views panel" id="views">
          <div className="tabs-row">
            <div role="tablist" aria-label={t('views')} onKeyDown={onTabKey}>
              {VIEWS.map((v) => (
                <button key={v} id={`tab-${v}`} type="button" role="tab" aria-selected={view === v} aria-controls={`panel-${v}`} tabIndex={view === v ? 0 : -1} onClick={() => set({ view: v })}>
                  {t(VIEW_LABEL[v])}
                </button>
              ))}
            </div>
          </div>
          <div id={`panel-${view}`} role="tabpanel" aria-labelledby={`tab-${view}`} ref={viewRoot} tabIndex={-1}>
            {!run ? <p role="status">{t('loading')}</p> : null}
            {run && !run.refused && view === 'cluster' ? <ClusterView run={run} /> : null}
            <Suspense fallback={<p role="status">{t('loading')}</p>}>
              {run && !run.refused && view === 'transfer' ? <TransferView run={run} /> : null}
              {run && !run.refused && view === 'response' ? <ResponseView run={run} picker={false} /> : null}
            </Suspense>
            {run && !run.refused && view === STORY_PICTURE_VIEW ? (
              // The first screen already draws this view: one copy, so that its ids and live region stay unique.
              <p className="hint" data-testid="picture-above">
                {t('pictureAbove')}{' '}
                <button type="button" className="linklike" onClick={() => document.getElementById(STORY_PICTURE_ID)?.focus()}>
                  {t('pictureAboveGo')}
                </button>
              </p>
            ) : null}
          </div>
        </div>
      </main>
      <EvidencePanel load={settled} />
    </>
  );
}
