/**
 * The page's side of the video renderer (`?screen=render`): the recorder hands it a timeline
 * (render/schedule.ts), it computes every run the timeline needs before the first frame, and then
 * shows any frame on request — its store (the page's own, handed to it) is set to what the chapter's timeline shows at that frame, the
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
import type { AppStore, ScreenFrame } from '../state/store.ts';
import { CHAPTERS } from '../walkthrough/chapters/index.ts';
import { applySituation, baseOf, compileChapter, sampleAt, type ChapterTimeline, type Situation } from '../walkthrough/timeline.ts';
import { videoSteps } from './directions.ts';
import { beatAt, cueAt, frameAtPosition, positionAtFrame, sceneAt, type Scene, type Timeline } from './schedule.ts';

export interface RenderApi {
  /** Computes every run and request the timeline shows; resolves with the frame count and the instants no run could place. */
  load(timeline: Timeline): Promise<{ frames: number; unplaced: string[] }>;
  /** Shows one frame and resolves once it is drawn, with the parts of its picture that reach under the caption band (none: []). */
  show(frame: number): Promise<string[]>;
  /** The frame `ms` into beat `beat` of a chapter's body (walkthrough/timeline.ts), or null when the timeline has no such beat. */
  frameOfBeat(chapter: number, beat: number, ms?: number): number | null;
}

function situationOf(store: AppStore, chapter: number): Situation {
  return baseOf(CHAPTERS[chapter - 1]!, store.getState());
}

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

/** Compiles every chapter the timeline shows (the one compiler), computing every run and detail shown. */
async function prepare(client: QueryClient, store: AppStore, tl: Timeline): Promise<{ compiled: Map<number, ChapterTimeline>; unplaced: string[] }> {
  const compiled = new Map<number, ChapterTimeline>();
  const unplaced: string[] = [];
  await client.ensureQueryData({ queryKey: FACTS_QUERY_KEY, queryFn: () => loadFacts() });
  hold(client, FACTS_QUERY_KEY);
  for (const scene of tl.scenes) {
    if (scene.kind !== 'body') continue;
    const visited = async (s: Situation) => {
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
    };
    const c = await compileChapter(videoSteps(CHAPTERS[scene.chapter - 1]!), situationOf(store, scene.chapter), {
      run: async (s) => placing(client, s, await runOf(client, s)),
      visited,
    });
    compiled.set(scene.chapter, c);
    // The recorder prints these, so a picture that stays put is never a surprise.
    unplaced.push(...c.unplaced.map((u) => `chapter ${scene.chapter}, ${u}`));
  }
  return { compiled, unplaced };
}

function frameOf(store: AppStore, tl: Timeline, frame: number, compiled: ReadonlyMap<number, ChapterTimeline>): { s: Situation; screen: ScreenFrame } {
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
  const c = body ? compiled.get(body.chapter) : undefined;
  let s = situationOf(store, body?.chapter ?? 1);
  let highlight: string | null = null;
  if (body && c) {
    // The one schedule's beat and beat time at this frame, sampled by the walkthrough's interpreter.
    const shown = sampleAt(c, positionAtFrame(body, at));
    s = shown.situation;
    highlight = shown.highlight;
  }
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

/** Per store, the last frame the screen committed. */
const drawnOf = new WeakMap<AppStore, number>();
/** The screen calls this from a layout effect once a frame is committed. */
export function markDrawn(store: AppStore, frame: number): void {
  drawnOf.set(store, frame);
}

/**
 * The parts of the picture that reach under the caption band: every element of the picture box that
 * draws (an image, a canvas, an svg, a text) whose visible box (cut by its clipping ancestors) goes on
 * past the band's top. The picture box clips at the band, so such a part is cut there: a picture
 * under the band. Named by tag, class and the start of its text.
 */
export function picturesUnderBand(doc: Document = document): string[] {
  const box = doc.querySelector('.screen-picture-box');
  const band = doc.querySelector('.screen-band');
  if (!box || !band) return [];
  const top = band.getBoundingClientRect().top;
  const clipOf = new Map<Element, number>();
  const clipBottom = (el: Element): number => {
    if (el === box || !el.parentElement) return Infinity;
    const known = clipOf.get(el);
    if (known !== undefined) return known;
    const parent = el.parentElement;
    const style = getComputedStyle(parent);
    const own = parent !== box && style.overflowY !== 'visible' ? parent.getBoundingClientRect().bottom : Infinity;
    const b = Math.min(own, clipBottom(parent));
    clipOf.set(el, b);
    return b;
  };
  const out: string[] = [];
  for (const el of box.querySelectorAll('*')) {
    const draws = el instanceof HTMLCanvasElement || el instanceof HTMLImageElement || (el instanceof SVGSVGElement && !el.parentElement?.closest('svg')) || [...el.childNodes].some((n) => n.nodeType === 3 && (n.textContent ?? '').trim() !== '' && !el.closest('svg'));
    if (!draws) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0 || r.top >= top) continue;
    const bottom = Math.min(r.bottom, clipBottom(el));
    if (bottom <= top + 1) continue;
    const style = getComputedStyle(el);
    if (style.visibility === 'hidden' || style.opacity === '0') continue;
    const cls = typeof el.className === 'string' ? el.className : el.getAttribute('class') ?? '';
    out.push(`${el.tagName.toLowerCase()}${cls ? '.' + cls.trim().split(/\s+/).join('.') : ''} "${(el.textContent ?? '').trim().slice(0, 30)}" (${Math.round(r.top)}–${Math.round(r.bottom)} px, band at ${Math.round(top)})`);
  }
  return out;
}

const nextPaint = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

export function createRenderApi(client: QueryClient, store: AppStore): RenderApi {
  let timeline: Timeline | null = null;
  let compiled = new Map<number, ChapterTimeline>();
  driveClock();
  return {
    async load(tl) {
      timeline = tl;
      store.getState().set({ lang: tl.lang });
      document.documentElement.lang = tl.lang;
      // The type is the page's own (public/fonts): a frame drawn before it loads would be set in the
      // fallback face, and which frames that hits depends on the machine's load.
      await document.fonts.load('1em "Inter Variable"');
      // Every text the video shows in its own language: the page loads the catalogue's later part
      // (the screen's cards and lines among it) only when asked, and until then reads it in English.
      await loadLaterText(tl.lang);
      const prepared = await prepare(client, store, tl);
      compiled = prepared.compiled;
      await document.fonts.ready;
      return { frames: tl.frames, unplaced: prepared.unplaced };
    },
    async show(frame) {
      if (!timeline) throw new Error('render: load a timeline first');
      const { s, screen } = frameOf(store, timeline, frame, compiled);
      applySituation(store, s);
      store.setState({ screenFrame: screen });
      advanceFrame((frame * 1000) / timeline.fps);
      // Drawn when React has committed this frame, nothing is being fetched, and a paint has let
      // resize observers (the grids' widths) settle; then one more paint for what they changed.
      for (let i = 0; ; i++) {
        await nextPaint();
        if (drawnOf.get(store) === frame && client.isFetching() === 0 && document.fonts.status === 'loaded') break;
        // About 50 s of paints: a frame waits for nothing but the page itself, however loaded the machine.
        if (i > 3000) throw new Error(`render: frame ${frame} never settled (fetching ${client.isFetching()})`);
      }
      // What this frame's commit asked of the next frame (an overlay's repaint) belongs to this frame:
      // run it at the same instant, so a frame never shows the one rendered before it.
      advanceFrame((frame * 1000) / timeline.fps);
      await nextPaint();
      await nextPaint();
      return screen.scene === 'body' ? picturesUnderBand() : [];
    },
    frameOfBeat(chapter, beat, ms = 0) {
      const body = timeline?.scenes.find((x): x is Extract<Scene, { kind: 'body' }> => x.kind === 'body' && x.chapter === chapter);
      if (!timeline || !body || !compiled.get(chapter)?.beats[beat]) return null;
      return frameAtPosition(body, beat, ms);
    },
  };
}
