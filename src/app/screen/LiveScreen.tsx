/**
 * `?screen`: the stage layout (Screen) live, for a room. The walkthrough's runner plays each chapter
 * against the store, as in the panel, and the person moves through the talk with a clicker:
 * → / PageDown / Space next, ← / PageUp back, B blank, Escape back to the page. The talk is the
 * video's sequence of scenes (`talkOf` in walkthrough/timeline.ts: the title card, then for each
 * chapter its card and its body, then the end card), stepped through by the clicker. A chapter's
 * steps run only while its body is up (the card is not played over).
 *
 * What is shown is a function of the store, the runner's state and frame-clock time, with the
 * video's lengths (the one schedule): the caption is the beat the runner has reached, a card rises
 * over the video's card length, the predict beat counts down as long as the video's would after a
 * question read at the video's reading speed, and the answer (the reveal, as the video shows it)
 * shows when the person asks for it.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { pick, useT } from '../i18n/i18n.ts';
import { useApp, useAppStore, type AppStore, type ScreenFrame } from '../state/store.ts';
import { startUrlSync, type IgnoredNotice } from '../state/urlSync.ts';
import { applySituation, noticeLinkProblems, useChapterRunner, type Answer } from '../walkthrough/runner.ts';
import { CHAPTERS } from '../walkthrough/chapters/index.ts';
import { presenterKeyOf, type PresenterKey } from '../walkthrough/keys.ts';
import { CARD_MIN_MS, FPS, framesOf, predictMs, readingMs, sample, talkOf, type TalkScene } from '../walkthrough/timeline.ts';
import { Screen } from '../picture/Screen.tsx';
import { useSinceChange } from './useLiveClock.ts';
import type { HighlightId } from '../views/shared/highlight.ts';
import { roomClientOf } from '../run/roomClient.ts';
import { ScreenQuiz } from '../picture/ScreenQuiz.tsx';
import { pressQuiz, quizPress } from '../walkthrough/quizKeys.ts';

/** The talk's scenes, every chapter (the video's order). */
const TALK = talkOf(CHAPTERS.map((_, i) => i + 1));

/** The predict beat's countdown for a chapter's question: the video's rule, the question read rather than said. */
export function livePredictMs(n: number, lang: 'en' | 'fr'): number {
  const q = CHAPTERS[n - 1]?.checkpoint?.question;
  return predictMs(q ? readingMs(pick(lang, q.en, q.fr)) : 0);
}

/**
 * Where the presenter left the screen layout for the page (Escape), per store: "Screen layout" comes
 * back to it, the title (where the room's quiz is) included, rather than to the chapter's card.
 */
const leftAt = new WeakMap<AppStore, { chapter: number | null; scene: number }>();

/** The scene of the talk a chapter (or none) and a link open on: the title, the chapter's body at a linked beat, else its card (or the scene left for the page at that chapter). */
function openingScene(chapter: number | null, beat: number | null, store?: AppStore): number {
  const left = store ? leftAt.get(store) : undefined;
  if (left && beat === null && left.chapter === chapter) return left.scene;
  if (chapter === null) return 0;
  return Math.max(0, TALK.findIndex((x) => x.kind === (beat !== null ? 'body' : 'card') && x.chapter === chapter));
}

/**
 * Back to the page (the URL sync makes it a history entry of its own), with nothing half closed: the
 * walkthrough stays open at the scene's chapter (chapter 1 from the title, the last from the end card).
 */
export function leaveScreen(store: AppStore, scene?: number): void {
  const s = TALK[scene ?? -1];
  const chapter = s === undefined ? store.getState().chapter : s.kind === 'title' ? 1 : s.kind === 'end' ? CHAPTERS.length : s.chapter;
  if (scene !== undefined) leftAt.set(store, { chapter, scene });
  store.getState().set({ screen: 'off', chapter });
}

/** What a key asks for on the screen: the presenter's keys (walkthrough/keys.ts). */
export type LiveKey = PresenterKey;

/** What the body of a chapter does with a key; false hands it back to the scene sequence. */
interface BodyKeys {
  key: (k: LiveKey) => boolean;
}

/** A card as the video draws it at the same time into its scene (held at its last frame once up, or at once with reduced motion). */
function cardFrame(scene: Exclude<TalkScene, { kind: 'body' }>, elapsedMs: number, reduced: boolean): ScreenFrame {
  const sceneFrames = framesOf(CARD_MIN_MS);
  const sceneFrame = reduced ? sceneFrames : Math.min(sceneFrames, Math.round((elapsedMs / 1000) * FPS));
  return { frame: sceneFrame, fps: FPS, scene: scene.kind, sceneFrame, sceneFrames, chapter: scene.kind === 'card' ? scene.chapter : null, cue: null, beat: null, highlight: null };
}

/** One chapter's body: the runner plays it while this is mounted. */
function LiveBody({ keys, onLeaveForward }: { keys: React.MutableRefObject<BodyKeys | null>; onLeaveForward: () => void }) {
  /** Presses made while the chapter prepares or plays towards its question: kept (never lost), never passing the question. */
  const pending = useRef(0);
  const lang = useApp((s) => s.lang);
  const t = useT();
  const { chapter, status, beat: runnerBeat, caption, highlight, timeline, answers, answer, resume } = useChapterRunner();
  const store = useAppStore();
  const ch = chapter === null ? null : CHAPTERS[chapter - 1];
  const waiting = ch?.checkpoint && chapter !== null && status === 'checkpoint' && !answers.has(chapter) ? `${chapter}` : null;
  // The answer on screen (the option chosen, or none when the room answered aloud): the runner
  // resumes on the next key, so the answer stays up as long as the room needs.
  const [shown, setShown] = useState<{ chapter: number; value: Answer } | null>(null);
  useEffect(() => {
    setShown(null);
    setRevealHighlight(null);
  }, [chapter]);
  const showAnswer = shown !== null && shown.chapter === chapter && waiting !== null;
  const beatMs = chapter === null ? 0 : livePredictMs(chapter, lang);
  const beat = useSinceChange(waiting, beatMs);
  // As in the video, the reveal plays the instant steps after the checkpoint (a switch set, a
  // highlight), so the answer is said over what it describes; the runner plays them again, to the
  // same effect, when it resumes on the next key.
  const [revealHighlight, setRevealHighlight] = useState<{ id: HighlightId | null } | null>(null);
  const reveal = (value: Answer) => {
    if (chapter === null || !ch) return;
    setShown({ chapter, value });
    // In a room, the reveal reaches every phone (and the room's split shows beside the answer).
    roomClientOf(store)?.reveal(`ch:${chapter}`);
    if (!timeline) return;
    // The one schedule (walkthrough/timeline.ts): the checkpoint's beat, revealed, as the video shows it.
    const after = sample(timeline, timeline.beats.findIndex((b) => b.kind === 'checkpoint'), 0, true);
    applySituation(store, after.situation);
    setRevealHighlight({ id: after.highlight });
  };

  const questionAhead = ch?.checkpoint !== undefined && chapter !== null && !answers.has(chapter);
  const waitsNow = status === 'idle' || (status === 'running' && (timeline === null || questionAhead));
  // The presses kept, taken once the chapter can: its question, once up, takes a press of its own.
  useEffect(() => {
    if (pending.current === 0 || waitsNow) return;
    if (waiting) {
      pending.current = 0;
      return;
    }
    pending.current--;
    keys.current?.key('next');
  });

  keys.current = {
    key: (k) => {
      if (chapter === null || !ch) return false;
      if (k === 'next' && waitsNow && !waiting) {
        pending.current++;
        return true;
      }
      // Opened at a beat by a link: the next key plays on from it.
      if (status === 'held' && k === 'next') {
        resume();
        return true;
      }
      if (waiting && ch.checkpoint) {
        if (showAnswer && k === 'next') {
          answer(shown.value);
          setShown(null);
          setRevealHighlight(null);
          return true;
        }
        if (!showAnswer && k === 'next') {
          reveal(null);
          return true;
        }
        if (!showAnswer && typeof k === 'object') {
          const option = ch.checkpoint.options[k.option - 1];
          if (!option) return false;
          reveal(option.id);
          return true;
        }
        if (k !== 'prev') return true;
      }
      if (k === 'next') {
        onLeaveForward();
        return true;
      }
      return false;
    },
  };

  if (chapter === null || !ch) return null;
  const text = showAnswer && ch.checkpoint ? `${t('screenAnswer')} ${pick(lang, ch.checkpoint.explain.en, ch.checkpoint.explain.fr)}` : caption ? pick(lang, caption.en, caption.fr) : null;
  const frame: ScreenFrame = {
    frame: 0,
    fps: FPS,
    scene: 'body',
    sceneFrame: 0,
    sceneFrames: 0,
    chapter,
    cue: text ? { key: `${chapter}:${showAnswer ? 'answer' : (caption?.en ?? '')}`, kind: showAnswer ? 'answer' : 'caption', text, spoken: 0, elapsed: 0 } : null,
    beat: waiting ? { secondsLeft: Math.ceil((beatMs - beat.elapsedMs) / 1000), elapsed: beat.elapsedMs / beatMs, revealed: showAnswer } : null,
    highlight: showAnswer && revealHighlight ? revealHighlight.id : highlight,
  };
  // The runner's state, declared as the walkthrough's panel declares it: a chapter whose runs are still
  // computed, or that plays, is not at rest (state/settled.ts), and a test can wait for the beat shown.
  return (
    <div className="screen-live-body" data-testid="screen-body" data-status={status} data-beat={runnerBeat ?? ''} style={{ display: 'contents' }}>
      <Screen frame={frame} />
    </div>
  );
}

export function LiveScreen({ notice }: { notice: IgnoredNotice }) {
  const t = useT();
  const store = useAppStore();
  const set = useApp((s) => s.set);
  const chapter = useApp((s) => s.chapter);
  const [at, setAt] = useState(() => openingScene(store.getState().chapter, store.getState().beat, store));
  const scene = TALK[at]!;
  const [blank, setBlank] = useState(false);
  const keys = useRef<BodyKeys | null>(null);
  // The room's quiz on the title and the end card: the forward key opens it, then reveals it, then goes on.
  const roomView = useApp((s) => s.roomView);
  const quiz = quizPress(roomView, scene.kind === 'title' ? 'pre' : scene.kind === 'end' ? 'post' : null);
  const reduced = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;

  useEffect(() => {
    document.documentElement.classList.add('screen-mode');
    const stop = startUrlSync(store, notice);
    // The URL's chapter (or none) picks the first scene once the store has read it.
    // A link to a chapter or beat there is not: the page's notice, and the title.
    noticeLinkProblems(store);
    const { chapter: n, beat } = store.getState();
    // A link to a beat opens on the chapter's body at that beat.
    setAt(openingScene(n, beat, store));
    return () => {
      stop();
      document.documentElement.classList.remove('screen-mode');
    };
  }, [notice, store]);

  // The clicker steps through the talk's scenes; the chapter on the page is the scene's.
  const go = useCallback((i: number) => {
    const next = TALK[Math.max(0, Math.min(TALK.length - 1, i))]!;
    const n = next.kind === 'card' || next.kind === 'body' ? next.chapter : next.kind === 'end' ? CHAPTERS.length : null;
    if (n !== chapter) set({ chapter: n });
    setAt(TALK.indexOf(next));
  }, [set, chapter]);
  // The chapter changed from outside (the browser's back button through the URL): its card.
  const sceneChapter = scene.kind === 'card' || scene.kind === 'body' ? scene.chapter : null;
  useEffect(() => {
    if (chapter !== null && sceneChapter !== null && chapter !== sceneChapter) setAt(openingScene(chapter, null));
  }, [chapter, sceneChapter]);
  const forward = useCallback(() => go(at + 1), [go, at]);
  const back = useCallback(() => go(at - 1), [go, at]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return;
      const k = presenterKeyOf(e);
      if (k === null || k === 'fullscreen' || k === 'notes') return;
      e.preventDefault();
      if (blank) {
        if (k === 'blank' || k === 'leave') setBlank(false);
        return;
      }
      if (k === 'blank') setBlank(true);
      else if (k === 'leave') leaveScreen(store, at);
      else if (scene.kind === 'body' && keys.current?.key(k)) return;
      else if (k === 'next' && quiz) pressQuiz(store, quiz);
      else if (k === 'next') forward();
      else if (k === 'prev') back();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [blank, scene, forward, back, set, store, at, quiz]);

  const cardKey = scene.kind === 'body' ? null : `${at}`;
  const card = useSinceChange(cardKey, CARD_MIN_MS);
  const help = t('screenLiveKeys');
  return (
    <main className="screen-live" data-testid="screen-live" data-scene={scene.kind} data-chapter={chapter ?? ''} data-blank={blank ? 'true' : 'false'} aria-label={t('title')}>
      <p className="sr-only" aria-live="polite">{help}</p>
      {blank ? <div className="screen-blank" data-testid="screen-blank" /> : null}
      {scene.kind === 'body' ? <LiveBody keys={keys} onLeaveForward={forward} /> : <Screen frame={cardFrame(scene, card.elapsedMs, reduced)} />}
      {scene.kind === 'title' ? <ScreenQuiz phase="pre" /> : scene.kind === 'end' ? <ScreenQuiz phase="post" /> : null}
    </main>
  );
}
