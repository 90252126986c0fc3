/**
 * Plays the chapter in the store against the real views: on every chapter change the previous
 * chapter's steps are aborted, the store is put in the new chapter's starting state, and its steps
 * run up to its checkpoint (or its end). Answers are kept for the session, so coming back to a
 * chapter already answered plays it through.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { knownRun } from '../hooks.ts';
import { runKeyOf, type ScenarioName } from '../protocol.ts';
import { overridesOf, useApp } from '../state/store.ts';
import { CHAPTERS, type Chapter } from './chapters.ts';
import { CHAPTER_BASE, checkpointIndex, runSteps, type Localised, type StepHost } from './steps.ts';

/**
 * Scenarios the views can show; a chapter that needs another one falls back (with a note). The
 * incident replay has its own worker (src/app/replay) but is not yet a scenario of the views: when it
 * is, adding 'incident' here moves chapters 7 and 8 onto it.
 */
export const AVAILABLE_SCENARIOS: readonly string[] = ['incident', 'demo', 'matrix'] satisfies ScenarioName[];

export function scenarioOf(chapter: Chapter): { scenario: ScenarioName; fellBack: boolean } {
  if (!chapter.needs) return { scenario: 'demo', fellBack: false };
  if (AVAILABLE_SCENARIOS.includes(chapter.needs.scenario)) return { scenario: chapter.needs.scenario as ScenarioName, fellBack: false };
  return { scenario: chapter.needs.fallback, fellBack: true };
}

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

export function useChapterRunner() {
  const chapter = useApp((s) => s.chapter);
  const lang = useApp((s) => s.lang);
  const [status, setStatus] = useState<RunnerStatus>('idle');
  const [caption, setCaption] = useState<Localised | null>(null);
  const [highlight, setHighlight] = useState<string | null>(null);
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
        if (!signal.aborted) useApp.getState().set(patch);
      },
      caption: (text) => {
        setCaption(text);
        if (text) emit({ type: 'caption', chapter: n, text: text[langRef.current] });
      },
      highlight: setHighlight,
      time: () => useApp.getState().time,
      animating: () => !skipRef.current,
      frame: () => new Promise((resolve) => requestAnimationFrame(resolve)),
      sleep: (ms, sig) =>
        new Promise<void>((resolve) => {
          const until = performance.now() + ms;
          const tick = () => (sig.aborted || skipRef.current || performance.now() >= until ? resolve() : window.setTimeout(tick, 50));
          tick();
        }),
      timeOfUtc: async (iso, sig) => {
        const target = Date.parse(iso);
        // The incident window is replayed in the browser first (seconds, more on a busy machine).
        const deadline = performance.now() + 120_000;
        for (;;) {
          if (sig.aborted) throw new Error('aborted');
          const s = useApp.getState();
          const run = knownRun(runKeyOf({ scenario: s.scenario, overrides: overridesOf(s) }));
          if (run) {
            const t = target - run.startEpochMs;
            if (t < 0 || t > run.endMs) throw new Error(`${iso} is outside this run`);
            return t;
          }
          if (performance.now() > deadline) throw new Error('the run did not load');
          await new Promise((r) => setTimeout(r, 50));
        }
      },
    }),
    [],
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
    const ch = CHAPTERS[chapter - 1];
    if (!ch) return;
    const c = new AbortController();
    controller.current = c;
    useApp.getState().set({ ...CHAPTER_BASE, scenario: scenarioOf(ch).scenario });
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
