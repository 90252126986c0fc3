/**
 * The page's side of the video renderer (`?screen=render`): the recorder hands it a timeline
 * (render/schedule.ts), it computes every run the timeline needs before the first frame, and then
 * shows any frame on request — the store is set to what the chapter's steps give at that frame, the
 * screen to its cue, card and predict beat — and answers once the page has drawn it. A frame is a
 * pure function of its number: no step runner, no timer, no free-running animation (the frame clock
 * is driven, CSS animations are off), so two renders give the same pictures.
 */
import { QueryObserver, type QueryClient } from '@tanstack/react-query';
import { loadFacts } from '../../data/loadFacts.ts';
import { loadLaterText } from '../i18n/catalogue.ts';
import { FACTS_QUERY_KEY } from '../../data/useFacts.ts';
import { DEMO_REQUESTS } from '../../engine/scenarios.ts';
import { runKeyOf } from '../../engine/runs/index.ts';
import { withFix } from '../../engine/switches.ts';
import { ensureRun, runRequestOf, type RunSummary } from '../run/hooks.ts';
import type { RequestDetail } from '../run/summary.ts';
import { advanceFrame, driveClock } from '../state/clock.ts';
import { useApp, type ScreenFrame, type UrlState } from '../state/store.ts';
import { CHAPTERS } from '../walkthrough/chapters/index.ts';
import { handoffIn, instantIn, scenarioOf } from '../walkthrough/runner.ts';
import { handoffScript, positionAtInstant } from '../views/stage/handoff.ts';
import { CHAPTER_BASE, type Step } from '../walkthrough/steps.ts';
import { videoSteps } from './directions.ts';
import { beatAt, cueAt, sceneAt, type Scene, type Timeline } from './schedule.ts';

type Situation = Pick<UrlState, 'scenario' | 'switches' | 'compare' | 'time' | 'handoff' | 'selectedRequest' | 'selectedPage' | 'view' | 'playing' | 'requestsPerDay' | 'tenants'>;

export interface RenderApi {
  /** Computes every run and request the timeline shows; resolves with the frame count and the instants no run could place. */
  load(timeline: Timeline): Promise<{ frames: number; unplaced: string[] }>;
  /** Shows one frame and resolves once it is drawn. */
  show(frame: number): Promise<void>;
}

const keyOf = (chapter: number, step: number) => `${chapter}:${step}`;

function baseOf(chapter: number): Situation {
  const s = useApp.getState();
  const ch = CHAPTERS[chapter - 1]!;
  return { ...(CHAPTER_BASE as Situation), scenario: scenarioOf(ch), requestsPerDay: s.requestsPerDay, tenants: s.tenants, view: 'cluster', time: 0, handoff: null } as Situation;
}

/** The chapter's situation at a frame: its steps replayed up to it, tweens part-way (eased). */
function situationAt(scene: Extract<Scene, { kind: 'body' }>, frame: number, resolved: ReadonlyMap<string, number>, handoffs: ReadonlyMap<string, number> = handoffsResolved): { s: Situation; highlight: string | null } {
  const s = baseOf(scene.chapter);
  let highlight: string | null = null;
  const steps = videoSteps(CHAPTERS[scene.chapter - 1]!);
  for (const ts of scene.steps) {
    if (ts.at > frame) break;
    const index = ts.index;
    const step: Step = steps[index]!;
    const r = resolved.get(keyOf(scene.chapter, index));
    if ('set' in step) {
      const { switches, ...rest } = step.set;
      Object.assign(s, rest);
      if (switches) s.switches = { ...s.switches, ...switches };
    } else if ('select' in step) s.selectedRequest = step.select === null ? null : (r ?? null);
    else if ('seek' in step) {
      if (r !== undefined) s.time = r;
      s.handoff = handoffs.get(keyOf(scene.chapter, index)) ?? null;
    } else if ('tween' in step) {
      const h = handoffs.get(keyOf(scene.chapter, index));
      const k = ts.frames > 0 ? Math.min(1, (frame - ts.at) / ts.frames) : 1;
      if (h !== undefined) {
        // A stage step: the handoff clock moves there at an even pace (each step eases itself).
        if (r !== undefined) s.time = r;
        const from = s.handoff ?? handoffs.get(`${keyOf(scene.chapter, index)}:from`) ?? 0;
        s.handoff = from + (h - from) * k;
      } else if (r !== undefined) {
        const eased = 0.5 - 0.5 * Math.cos(Math.PI * k);
        s.time = s.time + (r - s.time) * eased;
        s.handoff = null;
      }
    } else if ('highlight' in step) highlight = step.highlight;
  }
  return { s, highlight };
}

/** Seconds on the handoff clock of each stage instant the chapters seek or tween to (and, for a tween, where it starts). */
let handoffsResolved: Map<string, number> = new Map();

/** Keeps react-query from dropping what the video needs while it renders (no observer = collectable). */
function hold(client: QueryClient, queryKey: readonly unknown[]): void {
  new QueryObserver(client, { queryKey, enabled: false }).subscribe(() => undefined);
}

async function runOf(client: QueryClient, s: Situation): Promise<RunSummary> {
  const run = await ensureRun(client, s);
  hold(client, ['run', runKeyOf(runRequestOf(s))]);
  return run;
}

/**
 * One request's detail, held in react-query. The run client keeps only a few run workers alive, so a
 * run computed chapters earlier may have lost the worker that answers for its requests (a fresh one
 * knows no run): then the run is computed again (the engine is deterministic: the same run) and
 * asked. Without this, an instant of chapter 10 placed in the first chapters' run went unplaced in
 * the full video only, and its clock read the chapter's start.
 */
async function detailOf(client: QueryClient, s: Situation, run: RunSummary, req: number): Promise<RequestDetail> {
  const queryKey = ['detail', run.runKey, req];
  const ask = (r: RunSummary) => client.fetchQuery({ queryKey, queryFn: () => r.detail(req), staleTime: Infinity });
  let d: RequestDetail;
  try {
    d = await ask(run);
  } catch {
    // Computed again already (an earlier detail of this run found its worker gone)? Else now.
    const cached = client.getQueryData<RunSummary>(['run', run.runKey]);
    if (cached && cached !== run) d = await ask(cached);
    else {
      client.removeQueries({ queryKey: ['run', run.runKey], exact: true });
      d = await ask(await runOf(client, s));
    }
  }
  hold(client, queryKey);
  return d;
}

/** The run as `instantIn` reads it: its details through the held cache (detailOf). */
const placing = (client: QueryClient, s: Situation, run: RunSummary): RunSummary => ({ ...run, detail: (req: number) => detailOf(client, { ...s }, run, req) });

/** Resolves every instant and request the chapters name, and computes every run and detail shown. */
async function prepare(client: QueryClient, tl: Timeline): Promise<{ resolved: Map<string, number>; unplaced: string[] }> {
  const resolved = new Map<string, number>();
  handoffsResolved = new Map();
  const unplaced: string[] = [];
  await client.ensureQueryData({ queryKey: FACTS_QUERY_KEY, queryFn: () => loadFacts() });
  hold(client, FACTS_QUERY_KEY);
  for (const scene of tl.scenes) {
    if (scene.kind !== 'body') continue;
    const steps = videoSteps(CHAPTERS[scene.chapter - 1]!);
    const s = baseOf(scene.chapter);
    const visit = async () => {
      const run = await runOf(client, s);
      if (s.compare) {
        const other = await runOf(client, { ...s, switches: withFix(s.switches, s.compare) });
        // The comparison picture shows the selected request's outcome in both runs.
        const id = s.selectedRequest !== null ? run.requests.ids[s.selectedRequest] : undefined;
        const j = id === undefined ? -1 : other.requests.ids.indexOf(id);
        if (j >= 0) await detailOf(client, { ...s, switches: withFix(s.switches, s.compare) }, other, j);
      }
      if (s.selectedRequest !== null && s.selectedRequest < run.requests.count) await detailOf(client, s, run, s.selectedRequest);
      // The capacity gauge reads the over-long request of the demo.
      const over = run.requests.ids.indexOf(DEMO_REQUESTS.overLong);
      if (over >= 0) await detailOf(client, s, run, over);
      return run;
    };
    await visit();
    for (const ts of scene.steps) {
      const index = ts.index;
      const step = steps[index]!;
      if ('set' in step) {
        const { switches, ...rest } = step.set;
        Object.assign(s, rest);
        if (switches) s.switches = { ...s.switches, ...switches };
      } else if ('select' in step) {
        if (step.select !== null) {
          const run = await runOf(client, s);
          const i = run.requests.ids.indexOf(step.select);
          if (i < 0) throw new Error(`chapter ${scene.chapter}: no request ${step.select} in its run`);
          resolved.set(keyOf(scene.chapter, index), i);
          s.selectedRequest = i;
        } else s.selectedRequest = null;
      } else if ('seek' in step || 'tween' in step) {
        const run = await runOf(client, s);
        try {
          const placed = placing(client, s, run);
          const instant = 'seek' in step ? step.seek : step.tween.to;
          const t = await instantIn(placed, instant);
          const h = await handoffIn(placed, instant);
          if (h !== null) {
            if ('tween' in step && s.handoff === null && s.selectedRequest !== null) {
              // Where the handoff clock stands when the tween begins: where the incident's instant falls.
              const d = await detailOf(client, s, run, s.selectedRequest);
              handoffsResolved.set(`${keyOf(scene.chapter, index)}:from`, Math.max(0, positionAtInstant(handoffScript(d.events, d.response.tokens.length), s.time).h));
            }
            handoffsResolved.set(keyOf(scene.chapter, index), h);
            s.handoff = h;
          } else if ('tween' in step) s.handoff = null;
          resolved.set(keyOf(scene.chapter, index), t);
          s.time = t;
        } catch (e) {
          // A run that cannot place the instant keeps its time (as the walkthrough does); the
          // recorder prints it, so a picture that stays put is never a surprise.
          unplaced.push(`chapter ${scene.chapter}, step ${index + 1}: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      await visit();
    }
  }
  return { resolved, unplaced };
}

/** Reuses the store's objects when equal, so a frame that changes nothing re-renders nothing. */
function sameOrNew<T>(prev: T, next: T): T {
  return JSON.stringify(prev) === JSON.stringify(next) ? prev : next;
}

function frameOf(tl: Timeline, frame: number, resolved: ReadonlyMap<string, number>): { s: Situation; screen: ScreenFrame } {
  const scene = sceneAt(tl, frame);
  const bodies = tl.scenes.filter((x): x is Extract<Scene, { kind: 'body' }> => x.kind === 'body');
  // A card shows over the state its chapter starts from; the end card over the last chapter's end.
  let body: Extract<Scene, { kind: 'body' }> | undefined;
  let at = frame;
  if (scene.kind === 'body') body = scene;
  else if (scene.kind === 'end') {
    body = bodies[bodies.length - 1];
    at = body ? body.to - 1 : 0;
  } else {
    body = bodies.find((b) => b.from >= scene.to) ?? bodies[0];
    at = body?.from ?? 0;
  }
  const { s, highlight } = body ? situationAt(body, at, resolved) : { s: baseOf(1), highlight: null };
  const cue = scene.kind === 'body' ? cueAt(tl, frame) : null;
  const inBeat = beatAt(tl, frame);
  return {
    s,
    screen: {
      frame,
      fps: tl.fps,
      scene: scene.kind === 'body' ? 'body' : scene.kind === 'card' ? 'card' : scene.kind,
      sceneFrame: frame - scene.from,
      sceneFrames: scene.to - scene.from,
      chapter: scene.kind === 'card' || scene.kind === 'body' ? scene.chapter : null,
      cue: cue ? { key: cue.key, kind: cue.kind, text: cue.text, spoken: cue.spoken, elapsed: frame - cue.from } : null,
      beat: inBeat
        ? { secondsLeft: Math.max(0, Math.ceil((inBeat.to - Math.max(frame, inBeat.from)) / tl.fps)), elapsed: Math.max(0, Math.min(1, (frame - inBeat.from) / (inBeat.to - inBeat.from))), revealed: frame >= inBeat.to }
        : null,
      highlight: scene.kind === 'body' ? highlight : null,
    },
  };
}

let drawn = -1;
/** The screen calls this from a layout effect once a frame is committed. */
export function markDrawn(frame: number): void {
  drawn = frame;
}

const nextPaint = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

export function createRenderApi(client: QueryClient): RenderApi {
  let timeline: Timeline | null = null;
  let resolved = new Map<string, number>();
  driveClock();
  return {
    async load(tl) {
      timeline = tl;
      useApp.getState().set({ lang: tl.lang });
      document.documentElement.lang = tl.lang;
      // The type is the page's own (public/fonts): a frame drawn before it loads would be set in the
      // fallback face, and which frames that hits depends on the machine's load.
      await document.fonts.load('1em "Inter Variable"');
      // Every text the video shows in its own language: the page loads the catalogue's later part
      // (the screen's cards and lines among it) only when asked, and until then reads it in English.
      await loadLaterText(tl.lang);
      const prepared = await prepare(client, tl);
      resolved = prepared.resolved;
      await document.fonts.ready;
      return { frames: tl.frames, unplaced: prepared.unplaced };
    },
    async show(frame) {
      if (!timeline) throw new Error('render: load a timeline first');
      const { s, screen } = frameOf(timeline, frame, resolved);
      const cur = useApp.getState();
      cur.set({ ...s, switches: sameOrNew(cur.switches, s.switches), selectedPage: sameOrNew(cur.selectedPage, s.selectedPage) });
      useApp.setState({ screenFrame: screen });
      advanceFrame((frame * 1000) / timeline.fps);
      // Drawn when React has committed this frame, nothing is being fetched, and a paint has let
      // resize observers (the grids' widths) settle; then one more paint for what they changed.
      for (let i = 0; ; i++) {
        await nextPaint();
        if (drawn === frame && client.isFetching() === 0 && document.fonts.status === 'loaded') break;
        // About 50 s of paints: a frame waits for nothing but the page itself, however loaded the machine.
        if (i > 3000) throw new Error(`render: frame ${frame} never settled (fetching ${client.isFetching()})`);
      }
      // What this frame's commit asked of the next frame (an overlay's repaint) belongs to this frame:
      // run it at the same instant, so a frame never shows the one rendered before it.
      advanceFrame((frame * 1000) / timeline.fps);
      await nextPaint();
      await nextPaint();
    },
  };
}
