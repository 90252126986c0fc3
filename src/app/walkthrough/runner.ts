/**
 * Plays the chapter in the store against the real views: on every chapter change the previous
 * chapter's steps are aborted, the store is put in the new chapter's starting state, and its steps
 * run up to its checkpoint (or its end). Instants resolve against the run on screen once it is
 * computed (react-query's cache, awaited, never polled). Answers are kept for the session, so coming
 * back to a chapter already answered plays it through.
 */
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState } from 'react';
import { MILESTONE_T, WINDOW_START_MS } from '../../engine/incident/index.ts';
import { ensureRun, type RunSummary } from '../run/hooks.ts';
import { nextFrame } from '../state/clock.ts';
import { useApp } from '../state/store.ts';
import type { HighlightId } from '../views/shared/highlight.ts';
import type { Chapter } from './chapter.ts';
import { CHAPTERS, clampChapter } from './chapters/index.ts';
import { CHAPTER_BASE, checkpointIndex, runSteps, type Caption, type Instant, type StepHost } from './steps.ts';
import { stageSteps } from '../views/stage/stageFrame.ts';
import { handoffScript, handoffTimeOf, positionAtInstant } from '../views/stage/handoff.ts';

export type RunnerStatus = 'idle' | 'running' | 'checkpoint' | 'done';
/** A chosen option id, or null when the presenter revealed without an answer. */
export type Answer = string | null;

/** The walkthrough tells listeners (the recorder) what it shows, in the page's language. */
export type WalkthroughEvent =
  | { type: 'chapter'; chapter: number; id: string; title: string }
  | { type: 'caption'; chapter: number; text: string }
  | { type: 'status'; chapter: number; status: RunnerStatus };

function emit(detail: WalkthroughEvent): void {
  window.dispatchEvent(new CustomEvent<WalkthroughEvent>('walkthrough', { detail }));
}

const prefersReducedMotion = () => window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;

export function scenarioOf(chapter: Chapter) {
  return chapter.scenario ?? 'demo';
}

function currentRun(client: QueryClient, signal: AbortSignal): Promise<RunSummary> {
  if (signal.aborted) return Promise.reject(new Error('aborted'));
  return ensureRun(client, useApp.getState());
}

/** Simulated ms of an instant in a run. */
export async function instantIn(run: RunSummary, instant: Instant): Promise<number> {
  let t: number;
  if ('fraction' in instant) t = instant.fraction * run.endMs;
  else if ('milestone' in instant) t = WINDOW_START_MS + MILESTONE_T[instant.milestone] - run.startEpochMs;
  else if ('stage' in instant) {
    const req = run.requests.ids.indexOf(instant.request);
    if (req < 0) throw new Error(`no request ${instant.request} in this run`);
    const steps = stageSteps((await run.detail(req)).events);
    const s = steps.find((x) => x.id === instant.stage);
    if (!s) throw new Error(`request ${instant.request} has no ${instant.stage} stage step`);
    // A share of the step, on the URL's microsecond grid; the open-ended last step counts as one millisecond.
    const span = (s.end === Infinity ? 1 : s.end - s.start) * (instant.into ?? 0);
    t = Math.round((s.start + span) * 1000) / 1000;
    if (t >= s.end) t = s.start;
    // The steps of a request's last instant are spread over a short tail after it, for the viewer
    // (stageFrame.ts); when that instant ends the run, the incident's clock stops at the run's end
    // while the handoff clock still places the step.
    t = Math.min(t, run.endMs);
  } else {
    const req = run.requests.ids.indexOf(instant.request);
    if (req < 0) throw new Error(`no request ${instant.request} in this run`);
    const events = (await run.detail(req)).events;
    const e = events.find((x) => x.type === instant.event);
    if (!e) throw new Error(`request ${instant.request} has no ${instant.event} event`);
    t = e.t + (instant.offsetMs ?? 0);
  }
  if (!(t >= 0 && t <= run.endMs)) throw new Error(`the instant (${t} ms) is outside this run (0 to ${run.endMs} ms)`);
  return t;
}

/**
 * Seconds on a request's handoff clock at a stage instant (views/stage/handoff.ts), or null for an
 * instant that is not a stage step: a chapter that seeks or tweens to a stage step moves the handoff
 * clock, at a viewer's pace, not the incident's 2 ms.
 */
export async function handoffIn(run: RunSummary, instant: Instant): Promise<number | null> {
  if (!('stage' in instant)) return null;
  const req = run.requests.ids.indexOf(instant.request);
  if (req < 0) return null;
  const d = await run.detail(req);
  return handoffTimeOf(handoffScript(d.events, d.response.tokens.length), instant.stage, instant.into ?? 0);
}

/** Where the handoff clock is now for the selected request (its own time, or where the incident's instant falls). */
export async function handoffNow(run: RunSummary): Promise<number> {
  const s = useApp.getState();
  if (s.handoff !== null) return s.handoff;
  if (s.selectedRequest === null || s.selectedRequest >= run.requests.count) return 0;
  const d = await run.detail(s.selectedRequest);
  return Math.max(0, positionAtInstant(handoffScript(d.events, d.response.tokens.length), s.time).h);
}

export function useChapterRunner() {
  const queryClient = useQueryClient();
  const chapter = useApp((s) => s.chapter);
  const lang = useApp((s) => s.lang);
  const [status, setStatus] = useState<RunnerStatus>('idle');
  const [caption, setCaption] = useState<Caption | null>(null);
  const [highlight, setHighlight] = useState<HighlightId | null>(null);
  const [answers, setAnswers] = useState<ReadonlyMap<number, Answer>>(new Map());
  const [skip, setSkip] = useState(prefersReducedMotion);
  const skipRef = useRef(skip);
  skipRef.current = skip;
  const langRef = useRef(lang);
  langRef.current = lang;
  const controller = useRef<AbortController | null>(null);

  const host = useCallback(
    (signal: AbortSignal, n: number): StepHost => ({
      apply: (patch) => {
        if (signal.aborted) return;
        const { switches, ...rest } = patch;
        const s = useApp.getState();
        s.set(switches ? { ...rest, switches: { ...s.switches, ...switches } } : rest);
      },
      caption: (text) => {
        setCaption(text);
        if (text) emit({ type: 'caption', chapter: n, text: text[langRef.current] });
      },
      highlight: setHighlight,
      time: () => useApp.getState().time,
      animating: () => !skipRef.current,
      frame: nextFrame,
      timeOf: async (instant, sig) => instantIn(await currentRun(queryClient, sig), instant),
      handoffOf: async (instant, sig) => handoffIn(await currentRun(queryClient, sig), instant),
      handoffNow: async (sig) => handoffNow(await currentRun(queryClient, sig)),
      requestIndex: async (id, sig) => {
        const i = (await currentRun(queryClient, sig)).requests.ids.indexOf(id);
        if (i < 0) throw new Error(`no request ${id} in this run`);
        return i;
      },
    }),
    [queryClient],
  );

  const play = useCallback(
    async (n: number, from: number, signal: AbortSignal, answered: ReadonlyMap<number, Answer>) => {
      const ch = CHAPTERS[n - 1]!;
      setStatus('running');
      emit({ type: 'status', chapter: n, status: 'running' });
      let index = from;
      for (;;) {
        const r = await runSteps(ch.steps, index, host(signal, n), signal);
        if (r.stop === 'aborted') return;
        if (r.stop === 'checkpoint' && !answered.has(n)) {
          setStatus('checkpoint');
          emit({ type: 'status', chapter: n, status: 'checkpoint' });
          return;
        }
        if (r.stop === 'checkpoint') {
          index = r.index + 1;
          continue;
        }
        setStatus('done');
        emit({ type: 'status', chapter: n, status: 'done' });
        return;
      }
    },
    [host],
  );

  // Answers are read when a chapter starts, not followed: answering resumes the run itself.
  const answersRef = useRef(answers);
  answersRef.current = answers;

  useEffect(() => {
    controller.current?.abort();
    setCaption(null);
    setHighlight(null);
    if (chapter === null) {
      setStatus('idle');
      return;
    }
    // A link may name a chapter past the last one: open the last.
    if (clampChapter(chapter) !== chapter) {
      useApp.getState().set({ chapter: clampChapter(chapter) });
      return;
    }
    const ch = CHAPTERS[chapter - 1]!;
    const c = new AbortController();
    controller.current = c;
    useApp.getState().set({ ...CHAPTER_BASE, scenario: scenarioOf(ch), timelineZoom: null });
    emit({ type: 'chapter', chapter, id: ch.id, title: ch.title[langRef.current] });
    void play(chapter, 0, c.signal, answersRef.current);
    return () => c.abort();
  }, [chapter, play]);

  const answer = useCallback(
    (value: Answer) => {
      const n = useApp.getState().chapter;
      if (n === null) return;
      const ch = CHAPTERS[n - 1]!;
      const next = new Map(answersRef.current).set(n, value);
      setAnswers(next);
      answersRef.current = next;
      const c = controller.current;
      if (c && !c.signal.aborted && status === 'checkpoint') void play(n, checkpointIndex(ch.steps) + 1, c.signal, next);
    },
    [play, status],
  );

  return { chapter, status, caption, highlight, answers, answer, skip, setSkip };
}
