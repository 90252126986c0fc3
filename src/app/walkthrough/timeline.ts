/**
 * One chapter timeline for the live walkthrough, the screen layout and the video.
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
 */
import type { RunSummary } from '../run/summary.ts';
import { CHAPTER_BASE, type Caption, type Step } from './chapters/steps.ts';
import type { UrlState } from '../state/store.ts';
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

/** The beats of a list of steps: every wait, tween and checkpoint, then the end. */
export function beatsOf(steps: readonly Step[]): Beat[] {
  const beats: Beat[] = [];
  steps.forEach((s, i) => {
    if ('wait' in s) beats.push({ step: i, kind: 'wait', ms: s.wait });
    else if ('tween' in s) beats.push({ step: i, kind: 'tween', ms: s.tween.ms });
    else if ('checkpoint' in s) beats.push({ step: i, kind: 'checkpoint', ms: 0 });
  });
  beats.push({ step: steps.length, kind: 'end', ms: 0 });
  return beats;
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

/** What the page shows `ms` into beat `beat` (clamped to the beats there are). */
export function sample(tl: ChapterTimeline, beat: number, ms = 0): Shown {
  const b = tl.beats[Math.max(0, Math.min(tl.beats.length - 1, beat))]!;
  return shownAt(tl, b.step, b.kind === 'tween' && b.ms > 0 ? ms / b.ms : 0);
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
