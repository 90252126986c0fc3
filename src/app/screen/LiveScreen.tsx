/**
 * `?screen`: the stage layout (Screen) live, for a room. The walkthrough's runner plays each chapter
 * against the store, as in the panel, and the person moves through the talk with a clicker:
 * → / PageDown / Space next, ← / PageUp back, B blank, Escape back to the page. The talk is a
 * sequence of scenes: the title card, then for each chapter its card and its body, then the end
 * card. A chapter's steps run only while its body is up (the card is not played over).
 *
 * What is shown is a function of the store, the runner's state and frame-clock time: the caption
 * is the step the runner has reached, the predict beat counts down from the frame on which the
 * checkpoint was reached, and the answer shows when the person asks for it.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { pick, useT } from '../i18n/i18n.ts';
import { useApp, useAppStore, type AppStore, type ScreenFrame } from '../state/store.ts';
import { startUrlSync, type IgnoredNotice } from '../state/urlSync.ts';
import { applySituation, noticeLinkProblems, useChapterRunner, type Answer } from '../walkthrough/runner.ts';
import { CHAPTERS, clampChapter } from '../walkthrough/chapters/index.ts';
import { presenterKeyOf, type PresenterKey } from '../walkthrough/keys.ts';
import { shownAt } from '../walkthrough/timeline.ts';
import { Screen } from '../picture/Screen.tsx';
import { useSinceChange } from './useLiveClock.ts';
import { revealSteps } from '../walkthrough/reveal.ts';
import { checkpointIndex } from '../walkthrough/chapters/steps.ts';
import type { HighlightId } from '../views/shared/highlight.ts';
import { roomClientOf } from '../run/roomClient.ts';
import { ScreenQuiz } from '../picture/ScreenQuiz.tsx';

/** The predict beat's countdown (the video's are 6–8 s). */
export const LIVE_BEAT_MS = 8000;
/** How long a card takes to rise into place. */
const CARD_RISE_MS = 1000;
const FPS = 30;

type Scene = 'title' | 'card' | 'body' | 'end';

/** Back to the page (the URL sync makes it a history entry of its own). */
export function leaveScreen(store: AppStore): void {
  store.getState().set({ screen: 'off' });
}

/** What a key asks for on the screen: the presenter's keys (walkthrough/keys.ts). */
export type LiveKey = PresenterKey;

/** What the body of a chapter does with a key; false hands it back to the scene sequence. */
interface BodyKeys {
  key: (k: LiveKey) => boolean;
}

function cardFrame(scene: Scene, chapter: number | null, elapsedMs: number, reduced: boolean): ScreenFrame {
  const sceneFrames = Math.round((CARD_RISE_MS / 1000) * FPS);
  const sceneFrame = reduced ? sceneFrames : Math.round((elapsedMs / 1000) * FPS);
  return { frame: sceneFrame, fps: FPS, scene, sceneFrame, sceneFrames, chapter, cue: null, beat: null, highlight: null };
}

/** One chapter's body: the runner plays it while this is mounted. */
function LiveBody({ keys, onLeaveForward }: { keys: React.MutableRefObject<BodyKeys | null>; onLeaveForward: () => void }) {
  const lang = useApp((s) => s.lang);
  const t = useT();
  const { chapter, status, caption, highlight, timeline, answers, answer, resume } = useChapterRunner();
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
  const beat = useSinceChange(waiting, LIVE_BEAT_MS);
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
    // The one interpreter (walkthrough/timeline.ts): the picture with the reveal's steps played.
    const after = shownAt(timeline, revealSteps(ch.steps, checkpointIndex(ch.steps) + 1).next);
    applySituation(store, after.situation);
    setRevealHighlight({ id: after.highlight });
  };

  keys.current = {
    key: (k) => {
      if (chapter === null || !ch) return false;
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
    beat: waiting ? { secondsLeft: Math.ceil((LIVE_BEAT_MS - beat.elapsedMs) / 1000), elapsed: beat.elapsedMs / LIVE_BEAT_MS, revealed: showAnswer } : null,
    highlight: showAnswer && revealHighlight ? revealHighlight.id : highlight,
  };
  return <Screen frame={frame} />;
}

export function LiveScreen({ notice }: { notice: IgnoredNotice }) {
  const t = useT();
  const store = useAppStore();
  const set = useApp((s) => s.set);
  const chapter = useApp((s) => s.chapter);
  const [scene, setScene] = useState<Scene>(() => (store.getState().chapter === null ? 'title' : 'card'));
  const [blank, setBlank] = useState(false);
  const keys = useRef<BodyKeys | null>(null);
  const reduced = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;

  useEffect(() => {
    document.documentElement.classList.add('screen-mode');
    const stop = startUrlSync(store, notice);
    // The URL's chapter (or none) picks the first scene once the store has read it.
    // A link to a chapter or beat there is not: the page's notice, and the title.
    noticeLinkProblems(store);
    const { chapter: n, beat } = store.getState();
    // A link to a beat opens on the chapter's body at that beat.
    setScene(n === null ? 'title' : beat !== null ? 'body' : 'card');
    return () => {
      stop();
      document.documentElement.classList.remove('screen-mode');
    };
  }, [notice, store]);

  const count = CHAPTERS.length;
  const goCard = useCallback((n: number) => {
    set({ chapter: clampChapter(n) });
    setScene('card');
  }, [set]);
  const forward = useCallback(() => {
    if (scene === 'title') goCard(1);
    else if (scene === 'card') setScene('body');
    else if (scene === 'body') {
      if (chapter !== null && chapter < count) goCard(chapter + 1);
      else setScene('end');
    }
  }, [scene, chapter, count, goCard]);
  const back = useCallback(() => {
    if (scene === 'end') {
      set({ chapter: count });
      setScene('body');
    } else if (scene === 'body') setScene('card');
    else if (scene === 'card') {
      if (chapter !== null && chapter > 1) {
        set({ chapter: chapter - 1 });
        setScene('body');
      } else {
        set({ chapter: null });
        setScene('title');
      }
    }
  }, [scene, chapter, count, set]);

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
      else if (k === 'leave') leaveScreen(store);
      else if (scene === 'body' && keys.current?.key(k)) return;
      else if (k === 'next') forward();
      else if (k === 'prev') back();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [blank, scene, forward, back, set, store]);

  const cardKey = scene === 'body' ? null : `${scene}:${chapter ?? 0}`;
  const card = useSinceChange(cardKey, CARD_RISE_MS);
  const help = t('screenLiveKeys');
  return (
    <main className="screen-live" data-testid="screen-live" data-scene={scene} data-chapter={chapter ?? ''} data-blank={blank ? 'true' : 'false'} aria-label={t('title')}>
      <p className="sr-only" aria-live="polite">{help}</p>
      {blank ? <div className="screen-blank" data-testid="screen-blank" /> : null}
      {scene === 'body' ? (
        <LiveBody keys={keys} onLeaveForward={forward} />
      ) : (
        <Screen frame={cardFrame(scene, scene === 'title' ? null : chapter, card.elapsedMs, reduced)} />
      )}
      {scene === 'title' ? <ScreenQuiz phase="pre" /> : scene === 'end' ? <ScreenQuiz phase="post" /> : null}
    </main>
  );
}
