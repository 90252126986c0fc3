/**
 * One chapter timeline for the live walkthrough, the screen layout and the video: the one schedule.
 *
 * A chapter's steps compile (`compileChapter`: every instant, request and zoom window resolved
 * against the run the chapter is on at that step) into a pure timeline of beats: a beat is a step
 * that takes time (a wait, a tween), a checkpoint (the chapter holds there until the question is
 * answered), or the chapter's end. The steps that take no time (a switch set, a caption, a seek)
 * fold into the start of the beat after them. `shownAt` is the one interpreter: what the page shows
 * with the first `step` steps played and the next one `k` of the way through; `sample` reads it by
 * beat and beat time. The walkthrough samples it from the frame clock, the screen layout from its
 * clicker, the video's driver from the frame number, so a tween moves the same way in all three
 * (`ease`, the stage's own easing, on the incident's clock; the handoff clock moves at an even pace
 * because each of its steps eases itself, moment/handoff.ts).
 *
 * It is also the one place that reads a step's kind (`timeOf`): what takes time, what a beat says
 * (its captions), what the reveal of a question plays (`revealSteps`), where a beat starts live
 * (`beatStartsMs`, `livePosition`), and the order of a talk's scenes (`talkOf`). The video
 * (render/schedule.ts) lays these beats out in frames from its narration's lengths and nothing else.
 */
import type { RunSummary } from '../run/summary.ts';
import { CHAPTER_BASE, type Caption, type Step } from './chapters/steps.ts';
import type { AppStore, UrlState } from '../state/store.ts';
import type { HighlightId } from '../views/shared/highlight.ts';
import { ease } from '../moment/handoff.ts';
import type { Chapter } from './chapters/chapter.ts';
import { handoffAtInstant, handoffIn, instantIn, requestIn, scenarioOf } from './resolve.ts';

export { ease };

/** What a chapter moves: the situation, and the window the timeline is zoomed to. */
export type Situation = Pick<UrlState, 'scenario' | 'switches' | 'compare' | 'time' | 'handoff' | 'selectedRequest' | 'selectedPage' | 'view' | 'playing' | 'speed' | 'requestsPerDay' | 'tenants'> & {
  timelineZoom: { from: number; to: number } | null;
};

/** What the page shows at one point of a chapter. */
export interface Shown {
  situation: Situation;
  caption: Caption | null;
  highlight: HighlightId | null;
}

/** What one step resolved to in its run (absent: nothing to resolve, or an instant no run could place). */
export interface Resolved {
  time?: number;
  /** Seconds on the handoff clock of a stage instant (null: not a stage step). */
  handoff?: number | null;
  /** Where a tween to a stage step starts on the handoff clock when the stage followed the incident's clock. */
  handoffFrom?: number;
  request?: number | null;
  zoom?: { from: number; to: number } | null;
}

export type BeatKind = 'wait' | 'tween' | 'checkpoint' | 'end';

export interface Beat {
  /** The step this beat plays (the chapter's length for its end). */
  step: number;
  kind: BeatKind;
  /** Real time the beat takes live (a checkpoint and the end take none: they hold). */
  ms: number;
  /** The captions that come up as the beat starts (folded into it with the other instant steps), by step index. */
  captions: { step: number; caption: Caption }[];
}

export interface ChapterTimeline {
  steps: readonly Step[];
  base: Situation;
  resolved: readonly (Resolved | undefined)[];
  beats: readonly Beat[];
  /** Instants no run could place ("step 4: …"): those steps keep the time they found. */
  unplaced: string[];
}

/** Where every chapter starts: the incident as it happened, nothing selected, on the chapter's run. */
export function baseOf(chapter: Chapter, traffic: Pick<UrlState, 'requestsPerDay' | 'tenants'>): Situation {
  return {
    ...(CHAPTER_BASE as Omit<Situation, 'handoff' | 'speed' | 'requestsPerDay' | 'tenants' | 'timelineZoom'>),
    scenario: scenarioOf(chapter),
    handoff: null,
    speed: 0,
    requestsPerDay: traffic.requestsPerDay,
    tenants: traffic.tenants,
    timelineZoom: null,
  };
}

/** What a step takes: a beat of its own (a wait, a tween, the checkpoint), or nothing (it folds into the next beat). */
function timeOf(s: Step): { kind: Exclude<BeatKind, 'end'>; ms: number } | null {
  if ('wait' in s) return { kind: 'wait', ms: s.wait };
  if ('tween' in s) return { kind: 'tween', ms: s.tween.ms };
  if ('checkpoint' in s) return { kind: 'checkpoint', ms: 0 };
  return null;
}

/** The beats of a list of steps: every wait, tween and checkpoint, then the end; each with the captions folded into its start. */
export function beatsOf(steps: readonly Step[]): Beat[] {
  const beats: Beat[] = [];
  let captions: Beat['captions'] = [];
  steps.forEach((s, i) => {
    if ('caption' in s) captions.push({ step: i, caption: s.caption });
    const t = timeOf(s);
    if (t === null) return;
    beats.push({ step: i, ...t, captions });
    captions = [];
  });
  beats.push({ step: steps.length, kind: 'end', ms: 0, captions });
  return beats;
}

/**
 * The steps from `from` (the one after a checkpoint) that the answer's reveal plays, and the index
 * after them: the instant steps right after a checkpoint (a switch set, a highlight, a seek) take
 * effect when the answer is revealed, not after it, so the answer is said over the picture it
 * describes (the video reveals at the end of its predict beat, the screen layout on the key).
 */
export function revealSteps(steps: readonly Step[], from: number): { steps: Step[]; next: number } {
  let next = from;
  while (next < steps.length && ('set' in steps[next]! || 'highlight' in steps[next]! || 'seek' in steps[next]!)) next++;
  return { steps: steps.slice(from, next), next };
}

/** Index of a chapter's checkpoint step, or -1. */
export function checkpointIndex(steps: readonly Step[]): number {
  return steps.findIndex((s) => 'checkpoint' in s);
}

/** Every caption a chapter shows, in order (for the recorder's captions and the speaker's outline). */
export function captionsOf(steps: readonly Step[]): Caption[] {
  return steps.flatMap((s) => ('caption' in s ? [s.caption] : []));
}

/** Real time a chapter's steps take when animated (waits and tweens), in ms. */
export function animatedDuration(steps: readonly Step[]): number {
  return steps.reduce((sum, s) => sum + ('wait' in s ? s.wait : 'tween' in s ? s.tween.ms : 0), 0);
}

/** Where each beat starts when the chapter plays live from its start, its question answered (ms). */
export function beatStartsMs(beats: readonly Beat[]): number[] {
  let t = 0;
  return beats.map((b) => {
    const at = t;
    t += b.ms;
    return at;
  });
}

/**
 * Where the live runner is `elapsedMs` after it started playing from beat `from`: the schedule's
 * position (`livePosition`), never before `from`, and held at `stop` (the unanswered question, or
 * the end) once reached.
 */
export function playedPosition(beats: readonly Beat[], from: number, stop: number, elapsedMs: number): Position {
  const at = livePosition(beats, beatStartsMs(beats)[from]! + elapsedMs);
  return at.beat >= stop ? { beat: stop, ms: 0 } : at.beat < from ? { beat: from, ms: 0 } : at;
}

/** A point of a chapter: a beat, the time into it, and (at a checkpoint) whether its answer is revealed. */
export interface Position {
  beat: number;
  ms: number;
  revealed?: boolean;
}

/**
 * Where a chapter is `chapterMs` after it started playing live, its question answered: the beat whose
 * time holds that instant (a beat that takes none is passed through), or the end past the last.
 */
export function livePosition(beats: readonly Beat[], chapterMs: number): Position {
  const starts = beatStartsMs(beats);
  for (let b = 0; b < beats.length; b++) {
    if (beats[b]!.ms > 0 && chapterMs < starts[b]! + beats[b]!.ms) return { beat: b, ms: Math.max(0, chapterMs - starts[b]!) };
  }
  return { beat: beats.length - 1, ms: 0 };
}

/** The beat a chapter stops at when played through unanswered: its checkpoint, or its end. */
export function stopBeat(beats: readonly Beat[], answered: boolean): number {
  const cp = beats.findIndex((b) => b.kind === 'checkpoint');
  return cp >= 0 && !answered ? cp : beats.length - 1;
}

/**
 * The beat an attendee's page shows for the beat the room names (clamped to the chapter's beats):
 * never one past the chapter's question before the room has revealed it, whatever order the room's
 * messages came in; there it shows the question.
 */
export function roomBeatShown(beats: readonly Beat[], roomBeat: number, revealed: boolean): number {
  const b = Math.max(0, Math.min(beats.length - 1, roomBeat));
  const question = beats.findIndex((x) => x.kind === 'checkpoint');
  return question >= 0 && !revealed && b > question ? question : b;
}

/** Plays one step onto `out`; a tween `k` (0…1) of the way. */
function play(out: Shown, step: Step, r: Resolved | undefined, k: number): void {
  const s = out.situation;
  if ('set' in step) {
    const { switches, ...rest } = step.set;
    Object.assign(s, rest);
    if (switches) s.switches = { ...s.switches, ...switches };
  } else if ('select' in step) {
    if (r === undefined) return;
    const next = r.request ?? null;
    // Another request: its handoff clock starts where the incident's instant falls (store.ts).
    if (next !== s.selectedRequest) s.handoff = null;
    s.selectedRequest = next;
  } else if ('caption' in step) out.caption = step.caption;
  else if ('highlight' in step) out.highlight = step.highlight;
  else if ('zoom' in step) {
    if (r && r.zoom !== undefined) s.timelineZoom = r.zoom;
  } else if ('seek' in step) {
    if (r?.time === undefined) return;
    s.time = r.time;
    s.handoff = r.handoff ?? null;
  } else if ('tween' in step) {
    if (r?.time === undefined) return;
    if (r.handoff !== undefined && r.handoff !== null) {
      // A stage step: the incident's clock is the step's own; the handoff clock moves there.
      const from = s.handoff ?? r.handoffFrom ?? 0;
      s.time = r.time;
      s.handoff = from + (r.handoff - from) * k;
    } else {
      s.time = s.time + (r.time - s.time) * ease(k);
      s.handoff = null;
    }
  }
}

/** What the page shows with the first `step` steps played, and step `step` (a tween) `k` of the way. */
export function shownAt(tl: ChapterTimeline, step: number, k = 0): Shown {
  const out: Shown = { situation: { ...tl.base }, caption: null, highlight: null };
  const n = Math.min(step, tl.steps.length);
  for (let i = 0; i < n; i++) play(out, tl.steps[i]!, tl.resolved[i], 1);
  const current = tl.steps[n];
  if (current && 'tween' in current && k > 0) play(out, current, tl.resolved[n], Math.min(1, k));
  return out;
}

/**
 * What the page shows `ms` into beat `beat` (clamped to the beats there are); at a checkpoint
 * `revealed`, the picture its answer is said over (the reveal's steps played: the one place it is applied).
 */
export function sample(tl: ChapterTimeline, beat: number, ms = 0, revealed = false): Shown {
  const b = tl.beats[Math.max(0, Math.min(tl.beats.length - 1, beat))]!;
  if (revealed && b.kind === 'checkpoint') return shownAt(tl, revealSteps(tl.steps, b.step + 1).next);
  return shownAt(tl, b.step, b.kind === 'tween' && b.ms > 0 ? ms / b.ms : 0);
}

/** `sample` at a position. */
export const sampleAt = (tl: ChapterTimeline, p: Position): Shown => sample(tl, p.beat, p.ms, p.revealed ?? false);

/** Reuses the store's objects when equal, so a frame that changes nothing re-renders nothing. */
function sameOrNew<T>(prev: T, next: T): T {
  return JSON.stringify(prev) === JSON.stringify(next) ? prev : next;
}

/** Puts a sampled situation in the store (the walkthrough, the screen layout and the video's frames alike). */
export function applySituation(store: AppStore, s: Situation): void {
  const cur = store.getState();
  cur.set({ ...s, switches: sameOrNew(cur.switches, s.switches), selectedPage: sameOrNew(cur.selectedPage, s.selectedPage), timelineZoom: sameOrNew(cur.timelineZoom, s.timelineZoom) });
}

// ---------------------------------------------------------------------------------------------
// The talk: its scenes in order, and the lengths the screen layout and the video share.

/** Frames a second of the screen layout's motion (the video's frame rate; a card's rise counts in them). */
export const FPS = 30;
/** A card (title, chapter, end) is up at least this long; the video holds it longer while it is said. */
export const CARD_MIN_MS = 2200;
/** A predict beat's countdown lasts 6–8 s: 3 s plus half the time the question takes to say or read. */
export const PREDICT_MIN_MS = 6000;
export const PREDICT_MAX_MS = 8000;
/** Reading speed a caption is held to (characters per second); the video's test checks ≤ 17. */
export const READ_CPS = 16;

export const framesOf = (ms: number) => Math.max(1, Math.ceil((ms * FPS) / 1000 - 1e-9));

/** How long a text takes to read on screen (ms): at READ_CPS, and never under 1.2 s. */
export const readingMs = (text: string) => Math.max((text.length / READ_CPS) * 1000, 1200);

/** The predict beat's countdown after a question that took `askedMs` to say (or read). */
export function predictMs(askedMs: number): number {
  return Math.max(PREDICT_MIN_MS, Math.min(PREDICT_MAX_MS, 3000 + askedMs / 2));
}

/** One scene of a talk: the title card, a chapter's card, its body, the end card. */
export type TalkScene = { kind: 'title' } | { kind: 'card'; chapter: number } | { kind: 'body'; chapter: number } | { kind: 'end' };

/** The scenes of a talk in order: the title, then each chapter's card and body, then the end. */
export function talkOf(chapters: readonly number[], cards: { title: boolean; end: boolean } = { title: true, end: true }): TalkScene[] {
  return [
    ...(cards.title ? [{ kind: 'title' } as const] : []),
    ...chapters.flatMap((n) => [{ kind: 'card', chapter: n } as const, { kind: 'body', chapter: n } as const]),
    ...(cards.end ? [{ kind: 'end' } as const] : []),
  ];
}

export interface Placement {
  /** The run a situation shows (computed, or read from the cache). */
  run(s: Situation): Promise<RunSummary>;
  /** Called with the situation after every step (the video computes what it will show there). */
  visited?(s: Situation): Promise<void>;
  signal?: AbortSignal;
}

/** Resolves every step of a chapter against the runs it plays on, once. */
export async function compileChapter(steps: readonly Step[], base: Situation, place: Placement): Promise<ChapterTimeline> {
  const resolved: (Resolved | undefined)[] = [];
  const unplaced: string[] = [];
  const out: Shown = { situation: { ...base }, caption: null, highlight: null };
  const s = out.situation;
  await place.visited?.({ ...s });
  for (const [i, step] of steps.entries()) {
    if (place.signal?.aborted) throw new Error('aborted');
    let r: Resolved | undefined;
    try {
      if ('select' in step) r = { request: step.select === null ? null : requestIn(await place.run({ ...s }), step.select) };
      else if ('zoom' in step) {
        if (step.zoom === null) r = { zoom: null };
        else {
          const run = await place.run({ ...s });
          r = { zoom: { from: await instantIn(run, step.zoom.from), to: await instantIn(run, step.zoom.to) } };
        }
      } else if ('seek' in step || 'tween' in step) {
        const run = await place.run({ ...s });
        const instant = 'seek' in step ? step.seek : step.tween.to;
        const time = await instantIn(run, instant);
        const handoff = await handoffIn(run, instant);
        r = { time, handoff };
        if ('tween' in step && handoff !== null && s.handoff === null) r.handoffFrom = await handoffAtInstant(run, s.selectedRequest, s.time);
      }
    } catch (e) {
      if (place.signal?.aborted) throw e;
      // A run that cannot place the instant keeps its time; the recorder prints it, so a picture
      // that stays put is never a surprise.
      unplaced.push(`step ${i + 1}: ${e instanceof Error ? e.message : String(e)}`);
      r = undefined;
    }
    resolved.push(r);
    play(out, step, r, 1);
    await place.visited?.({ ...s });
  }
  return { steps, base, resolved, beats: beatsOf(steps), unplaced };
}
