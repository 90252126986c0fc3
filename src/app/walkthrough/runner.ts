/**
 * Plays the chapter on screen against the real views: on every chapter change the previous
 * chapter's playing stops, the store is put in the new chapter's starting state, the chapter is
 * compiled into its timeline of beats (timeline.ts: every instant resolved against the run on
 * screen, from react-query's cache, awaited, never polled), and the beats are sampled from the one
 * frame clock up to the checkpoint (or the end). A link to a beat (`?ch=N&beat=K`) opens the chapter
 * at that beat and holds there; Next then steps beat by beat to the chapter's stop. Answers are kept for the tab's
 * session (answers.ts), so coming back to a chapter already answered, or reloading it, plays it through.
 * From a chapter's start until its question is revealed the store's `questionOpen` is set: the views
 * hold back what would answer it (the story's numbers, whose KV the stage's pages hold).
 *
 * In a workshop room (run/roomClient.ts) the presenter's runner sends every beat it reaches to the
 * room, opens the chapter's question when it reaches it and reveals it with the answer; an attendee's
 * runner holds at each beat the presenter names (the room client sets it in the store) and never
 * plays on by itself: an answer there goes to the room, and the reveal is the presenter's. What it
 * shows for the room (while the attendee follows: state/room.ts `stillFollowing`) is the room's
 * write (`asRoom`), and stops once they look around; "back to the presenter" shows the room's beat again.
 */
import { linkNotice } from '../i18n/linkNotice.ts';
import type { IgnoredParam } from '../state/url.ts';
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ensureRun } from '../run/hooks.ts';
import { asRoom, roomClientOf } from '../run/roomClient.ts';
import { nextFrame } from '../state/clock.ts';
import { useApp, useAppStore, type AppStore } from '../state/store.ts';
import type { HighlightId } from '../views/shared/highlight.ts';
import { CHAPTERS } from './chapters/index.ts';
import type { Caption } from './chapters/steps.ts';
import { loadAnswers, saveAnswers, type Answer } from './answers.ts';
import { shownTitle } from './chapters/spoilers.ts';
import { applySituation, baseOf, beatsOf, compileChapter, playedPosition, roomBeatShown, sample, sampleAt, stopBeat, type ChapterTimeline, type Shown, type Situation } from './timeline.ts';

export { applySituation };

export { handoffIn, instantIn, scenarioOf } from './resolve.ts';

/** `held`: opened at a beat by a link, waiting for the presenter to go on. */
export type RunnerStatus = 'idle' | 'running' | 'held' | 'checkpoint' | 'done';
export type { Answer };

/** The walkthrough tells listeners (the recorder) what it shows, in the page's language. */
export type WalkthroughEvent =
  | { type: 'chapter'; chapter: number; id: string; title: string }
  | { type: 'caption'; chapter: number; text: string }
  | { type: 'status'; chapter: number; status: RunnerStatus };

function emit(detail: WalkthroughEvent): void {
  window.dispatchEvent(new CustomEvent<WalkthroughEvent>('walkthrough', { detail }));
}

const prefersReducedMotion = () => window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;

/** What a link names that no chapter has (`ch` past the last, `beat` past the chapter's beats), as the link notice lists it. */
export function linkProblems(chapter: number | null, beat: number | null): IgnoredParam[] {
  if (chapter === null) return [];
  if (chapter < 1 || chapter > CHAPTERS.length) return [{ kind: 'malformed', name: 'ch', value: String(chapter) }];
  if (beat !== null && beat >= beatsOf(CHAPTERS[chapter - 1]!.steps).length) return [{ kind: 'malformed', name: 'beat', value: String(beat) }];
  return [];
}

/** Puts a link's problems in the page's notice, and the link's chapter (or beat) back to the default. */
export function noticeLinkProblems(store: AppStore): boolean {
  const s = store.getState();
  const problems = linkProblems(s.chapter, s.beat);
  if (problems.length === 0) return false;
  s.notify(linkNotice(s.lang, problems));
  if (problems[0]!.kind === 'malformed' && problems[0]!.name === 'ch') s.set({ chapter: null });
  else s.set({ beat: null });
  return true;
}

/** The chapter's timeline, compiled against the runs it plays on (the page's react-query cache). */
export function compileLive(client: QueryClient, store: AppStore, n: number, signal?: AbortSignal): Promise<ChapterTimeline> {
  const ch = CHAPTERS[n - 1]!;
  return compileChapter(ch.steps, baseOf(ch, store.getState()), { run: (s) => ensureRun(client, s), signal });
}

/** What chapter n says and points at on beat `beat` (its first without one), read from its steps alone. */
export function openingWords(n: number, beat: number | null): Pick<Shown, 'caption' | 'highlight'> {
  const ch = CHAPTERS[n - 1];
  if (!ch) return { caption: null, highlight: null };
  const { caption, highlight } = sample({ steps: ch.steps, base: {} as Situation, resolved: [], beats: beatsOf(ch.steps), unplaced: [] }, beat ?? 0);
  return { caption, highlight };
}

/** Every question the first screen tells revealed in the room (`revealed`: the room's, by its keys `ch:N`). */
export function roomRevealedAll(revealed: Readonly<Record<string, unknown>> | undefined): boolean {
  return CHAPTERS.every((c, i) => !c.checkpoint?.firstScreenTells || revealed?.[`ch:${i + 1}`] !== undefined);
}

/** Chapter n asks a question not yet revealed. */
export function questionWaits(n: number, answers: ReadonlyMap<number, Answer>): boolean {
  return CHAPTERS[n - 1]?.checkpoint !== undefined && !answers.has(n);
}

/** A question at chapter n or after it, one the first screen's outcome answers, waits (the store's `questionAhead`: the first screen holds its outcome back). */
export function questionsAhead(n: number, answers: ReadonlyMap<number, Answer>): boolean {
  for (let m = n; m <= CHAPTERS.length; m++) if (CHAPTERS[m - 1]!.checkpoint?.firstScreenTells && !answers.has(m)) return true;
  return false;
}

export function useChapterRunner() {
  const queryClient = useQueryClient();
  const store = useAppStore();
  const chapter = useApp((s) => s.chapter);
  const lang = useApp((s) => s.lang);
  /** The runner's status with the chapter it is of: in the render where the chapter changes, the chapter before's is not this one's. */
  const [statusOf, setStatusState] = useState<{ n: number | null; status: RunnerStatus }>({ n: null, status: 'idle' });
  const setStatus = useCallback((st: RunnerStatus, n: number | null = null) => setStatusState({ n, status: st }), []);
  const status: RunnerStatus = statusOf.n === chapter ? statusOf.status : chapter === null ? 'idle' : 'running';
  const [timelineOf, setTimelineOf] = useState<{ n: number; tl: ChapterTimeline } | null>(null);
  const timeline = timelineOf !== null && timelineOf.n === chapter ? timelineOf.tl : null;
  const setTimeline = useCallback((n: number | null, tl: ChapterTimeline | null) => setTimelineOf(n === null || tl === null ? null : { n, tl }), []);
  /**
   * The beat on screen, with the chapter it belongs to (the store's `beat` is only the one a link
   * named). Kept as a pair so that, in the render where the chapter changes, the previous chapter's
   * beat is never taken for the new chapter's (the presenter would tell the room "chapter 4, beat 2").
   */
  const [at, setAt] = useState<{ n: number; beat: number } | null>(null);
  const beat = at !== null && at.n === chapter ? at.beat : null;
  const setBeat = useCallback((n: number, b: number) => setAt({ n, beat: b }), []);
  // Kept for a reload, except in a workshop room, whose reveals are the room's (it tells them again on
  // reconnecting), and in the video's frame-by-frame layout.
  const keeps = useCallback(() => {
    const s = store.getState();
    return s.room === null && s.screen !== 'render';
  }, [store]);
  const [answers, setAnswersNow] = useState<ReadonlyMap<number, Answer>>(() => (keeps() ? loadAnswers() : new Map()));
  const setAnswers = useCallback(
    (next: ReadonlyMap<number, Answer>) => {
      setAnswersNow(next);
      if (keeps()) saveAnswers(next);
    },
    [keeps],
  );
  /**
   * The caption and the part pointed at, with the chapter they were said in. Until the chapter's runner
   * says its own (the first render of a chapter, its runs computing), the beat's caption as the chapter
   * writes it (`openingWords`: it needs no run), so the "Now:" box is never empty or another chapter's.
   */
  const [told, setTold] = useState<{ n: number; caption: Caption | null; highlight: HighlightId | null } | null>(null);
  const linkBeat = useApp((s) => s.beat);
  const attendee = useApp((s) => s.roomView?.role === 'attendee');
  // An attendee's page never says past a question the room has not revealed (roomBeatShown).
  const opening = useMemo(() => {
    if (chapter === null) return null;
    const ch = CHAPTERS[chapter - 1];
    return openingWords(chapter, attendee && ch && linkBeat !== null ? roomBeatShown(beatsOf(ch.steps), linkBeat, answers.has(chapter)) : linkBeat);
  }, [chapter, linkBeat, attendee, answers]);
  const caption = told && told.n === chapter ? told.caption : (opening?.caption ?? null);
  // The part pointed at waits for the chapter's situation: pointed at in the views before they show
  // the chapter, the page would scroll to where it is in the chapter before.
  const highlight = told && told.n === chapter ? told.highlight : null;
  const [skip, setSkip] = useState(prefersReducedMotion);
  const skipRef = useRef(skip);
  skipRef.current = skip;
  const langRef = useRef(lang);
  langRef.current = lang;
  const controller = useRef<AbortController | null>(null);
  /** In a room: the presenter drives it, an attendee's runner follows the beat the store names. */
  const roomRole = useApp((s) => s.roomView?.role ?? null);
  const followsRoom = roomRole === 'attendee';
  const followsRef = useRef(followsRoom);
  followsRef.current = followsRoom;
  /** The attendee follows the presenter (the store's room slice, written by the one rule in state/room.ts). */
  const following = useApp((s) => s.roomView?.role === 'attendee' && s.roomView.following);
  const followingNow = useCallback(() => {
    const v = store.getState().roomView;
    return v?.role === 'attendee' && v.following;
  }, [store]);
  const storeBeat = useApp((s) => s.beat);
  /** Where the chapter is: its timeline and beat. */
  const position = useRef<{ n: number; tl: ChapterTimeline; beat: number } | null>(null);

  /** Says a beat's caption and points at its part (the caption told to listeners once). */
  const tell = useCallback((n: number, shown: Pick<Shown, 'caption' | 'highlight'>) => {
    setTold((prev) => {
      if (shown.caption && (prev?.n !== n || shown.caption !== prev.caption)) emit({ type: 'caption', chapter: n, text: shown.caption[langRef.current] });
      return { n, caption: shown.caption, highlight: shown.highlight };
    });
  }, []);

  /**
   * Puts a beat on screen. One shown for the room (`forRoom`: the presenter's beat, on an attendee's
   * page that follows) is the room's write, and is not shown once the attendee has looked around.
   */
  const show = useCallback((n: number, shown: Shown, forRoom = false) => {
    if (forRoom && !followingNow()) return;
    if (forRoom) asRoom(store, () => applySituation(store, shown.situation));
    else applySituation(store, shown.situation);
    tell(n, shown);
  }, [store, followingNow, tell]);

  const setStatusOf = useCallback((n: number, st: RunnerStatus) => {
    setStatus(st, n);
    emit({ type: 'status', chapter: n, status: st });
  }, [setStatus]);

  /**
   * Plays the chapter from `beat`, on the frame clock, until the checkpoint (unanswered) or the end:
   * the chapter's time since it started playing, sampled where the one schedule puts it
   * (`livePosition`: the same beats and beat times the video lays out in frames). Every beat
   * reached is shown from its start (its caption said, its beat told to the room), even several in
   * one frame. Played for the room, it holds where it is once the attendee looks around.
   */
  const play = useCallback(
    async (n: number, tl: ChapterTimeline, beat: number, signal: AbortSignal, answered: ReadonlyMap<number, Answer>, forRoom = false) => {
      setStatusOf(n, 'running');
      const left = () => forRoom && !followingNow();
      // The stop ahead: the first checkpoint from here while unanswered, else the end.
      let stop = tl.beats.length - 1;
      for (let b = beat; b < tl.beats.length; b++) {
        if (tl.beats[b]!.kind === 'checkpoint' && !answered.has(n)) {
          stop = b;
          break;
        }
      }
      let reached = beat - 1;
      const showUpTo = (to: number) => {
        for (let b = reached + 1; b <= to; b++) {
          position.current = { n, tl, beat: b };
          show(n, sample(tl, b, 0), forRoom);
          setBeat(n, b);
        }
        reached = Math.max(reached, to);
      };
      let t0: number | null = null;
      for (;;) {
        if (signal.aborted) return;
        if (left()) return setStatusOf(n, 'held');
        const elapsed = skipRef.current ? Infinity : t0 === null ? 0 : (await nextFrame()) - t0;
        if (signal.aborted) return;
        if (left()) return setStatusOf(n, 'held');
        const pos = playedPosition(tl.beats, beat, stop, elapsed);
        showUpTo(pos.beat);
        if (pos.beat === stop) {
          const bt = tl.beats[stop]!;
          return setStatusOf(n, bt.kind === 'checkpoint' && !answered.has(n) ? 'checkpoint' : 'done');
        }
        if (pos.ms > 0) show(n, sampleAt(tl, pos), forRoom);
        t0 ??= await nextFrame();
      }
    },
    [show, setStatusOf, setBeat, followingNow],
  );

  // Answers are read when a chapter starts, not followed: answering resumes the run itself.
  const answersRef = useRef(answers);
  answersRef.current = answers;

  useEffect(() => {
    controller.current?.abort();
    setTold(null);
    setTimeline(null, null);
    setAt(null);
    position.current = null;
    if (chapter === null) {
      setStatus('idle');
      return;
    }
    // Opened by the room (an attendee following the presenter there): what it shows is the room's.
    const forRoom = followingNow();
    // A link to a chapter there is not: the page's notice, and no chapter; to a beat there is not: the
    // chapter from its start (set by the room, that correction is the room's too, not the attendee moving).
    let badLink = false;
    const checkLink = () => {
      badLink = noticeLinkProblems(store);
    };
    if (forRoom) asRoom(store, checkLink);
    else checkLink();
    if (badLink && store.getState().chapter === null) return;
    const ch = CHAPTERS[chapter - 1]!;
    const c = new AbortController();
    controller.current = c;
    let linked = store.getState().beat;
    const base = baseOf(ch, store.getState());
    // Held from the chapter's first frame, in the same write as its starting situation.
    const held = () => store.getState().set({ questionOpen: questionWaits(chapter, answersRef.current), questionAhead: questionsAhead(chapter, answersRef.current) });
    if (forRoom)
      asRoom(store, () => {
        applySituation(store, base);
        held();
      });
    else {
      applySituation(store, base);
      held();
    }
    emit({ type: 'chapter', chapter, id: ch.id, title: shownTitle(chapter, (k) => answersRef.current.has(k))[langRef.current] });
    setStatusOf(chapter, 'running');
    // The caption needs no run: said at once, while the chapter's runs are computed (seconds on the
    // incident's window), so the "Now:" box is never empty in a chapter.
    if (!forRoom) tell(chapter, { caption: openingWords(chapter, linked).caption, highlight: null });
    void (async () => {
      let tl: ChapterTimeline;
      try {
        tl = await compileLive(queryClient, store, chapter, c.signal);
      } catch {
        return;
      }
      if (c.signal.aborted) return;
      setTimeline(chapter, tl);
      // A link past the chapter's question lands where Next gets only once the question is answered or
      // revealed: it counts as revealed without an answer, so nothing on screen waits for one (and the
      // presenter's room is told of that reveal). An attendee's page never reveals by itself: the room's
      // beat past a question it has not revealed yet shows the question (roomBeatShown).
      const question = tl.beats.findIndex((b) => b.kind === 'checkpoint');
      if (linked !== null && followsRef.current) linked = roomBeatShown(tl.beats, linked, answersRef.current.has(chapter));
      else if (linked !== null && question >= 0 && linked > question && !answersRef.current.has(chapter)) {
        answersRef.current = new Map(answersRef.current).set(chapter, null);
        setAnswers(answersRef.current);
        if (CHAPTERS[chapter - 1]?.checkpoint) roomClientOf(store)?.reveal(`ch:${chapter}`);
      }
      const answered = answersRef.current;
      // A link to a beat shows it and holds; the chapter's stop (its question, its end) plays as by Next.
      if (linked !== null && linked !== stopBeat(tl.beats, answered.has(chapter)) && tl.beats[linked]!.kind !== 'end') {
        position.current = { n: chapter, tl, beat: linked };
        show(chapter, sample(tl, linked, 0), forRoom);
        setBeat(chapter, linked);
        setStatusOf(chapter, 'held');
        return;
      }
      void play(chapter, tl, linked ?? 0, c.signal, answered, forRoom);
    })();
    return () => c.abort();
  }, [chapter, play, queryClient, store, show, tell, setStatusOf, followingNow]);

  /**
   * Held at a linked beat: Next holds at the beat after it, as a clicker steps slides, until the
   * chapter's stop (its question, its end), which plays as when reached by Next.
   */
  const resume = useCallback(() => {
    const p = position.current;
    const c = controller.current;
    if (!p || !c || c.signal.aborted || status !== 'held') return;
    const next = p.beat + 1;
    const answered = answersRef.current;
    // The stop ahead: the question, or (past it, or once answered) the end.
    const question = stopBeat(p.tl.beats, answered.has(p.n));
    const stop = p.beat < question ? question : p.tl.beats.length - 1;
    if (next >= stop) {
      store.getState().set({ beat: null });
      void play(p.n, p.tl, Math.min(next, p.tl.beats.length - 1), c.signal, answered);
      return;
    }
    position.current = { ...p, beat: next };
    show(p.n, sample(p.tl, next, 0));
    setBeat(p.n, next);
    store.getState().set({ beat: next });
  }, [play, show, status, store]);

  const answer = useCallback(
    (value: Answer) => {
      const n = store.getState().chapter;
      if (n === null) return;
      const next = new Map(answersRef.current).set(n, value);
      setAnswers(next);
      answersRef.current = next;
      // An attendee's answer is the room's reveal arriving: the presenter moves on, not this page.
      if (followsRef.current) return;
      if (CHAPTERS[n - 1]?.checkpoint) roomClientOf(store)?.reveal(`ch:${n}`);
      const c = controller.current;
      const p = position.current;
      if (c && !c.signal.aborted && p && p.n === n && status === 'checkpoint') void play(n, p.tl, p.beat + 1, c.signal, next);
    },
    [play, status, store],
  );

  // An attendee following the room: the presenter's next beat in this chapter is held at, as a link's;
  // back to the presenter after looking around, the presenter's beat is shown again.
  const followed = useRef(following);
  useEffect(() => {
    const back = following && !followed.current;
    followed.current = following;
    const p = position.current;
    if (!following || storeBeat === null || !timeline || !p || p.n !== chapter) return;
    const answered = answersRef.current;
    const b = roomBeatShown(p.tl.beats, storeBeat, answered.has(p.n));
    if (b === p.beat && !back) return;
    controller.current?.abort();
    const c = new AbortController();
    controller.current = c;
    if (b === stopBeat(p.tl.beats, answered.has(p.n)) || p.tl.beats[b]!.kind === 'end') {
      void play(p.n, p.tl, b, c.signal, answered, true);
      return;
    }
    position.current = { ...p, beat: b };
    show(p.n, sample(p.tl, b, 0), true);
    setBeat(p.n, b);
    setStatusOf(p.n, 'held');
  }, [following, storeBeat, timeline, chapter, answers, play, show, setStatusOf, setBeat]);

  // While the chapter's question waits the views hold back its answer; the reveal lets them show it.
  useEffect(() => {
    if (chapter !== null) store.getState().set({ questionOpen: questionWaits(chapter, answers), questionAhead: questionsAhead(chapter, answers) });
  }, [chapter, answers, store]);
  // Out of the walkthrough nothing is held, except in a room, where the talk's questions may still come
  // (the room's presenter has not revealed them all): a phone that scrolls up sees no answer ahead.
  const roomAhead = useApp((s) => s.room !== null && !roomRevealedAll(s.roomView?.revealed));
  useEffect(() => () => store.getState().set({ questionOpen: false, questionAhead: store.getState().room !== null }), [store]);
  useEffect(() => {
    if (chapter === null) store.getState().set({ questionOpen: false, questionAhead: roomAhead });
  }, [chapter, store, roomAhead]);

  // The presenter's page tells the room every beat it reaches, and opens the chapter's question there.
  useEffect(() => {
    if (roomRole !== 'presenter' || chapter === null || beat === null) return;
    roomClientOf(store)?.goto(chapter, beat);
  }, [roomRole, chapter, beat, store]);
  const presenterLinked = useApp((s) => roomRole === 'presenter' && s.roomView?.presenterConfirmed === true);
  useEffect(() => {
    if (!presenterLinked || chapter === null || status !== 'checkpoint' || answers.has(chapter) || !CHAPTERS[chapter - 1]?.checkpoint) return;
    const client = roomClientOf(store);
    if (client && client.current.open !== `ch:${chapter}` && !client.current.revealed[`ch:${chapter}`]) client.open(`ch:${chapter}`);
  }, [presenterLinked, chapter, status, answers, store]);

  return { chapter, status, beat, caption, highlight, timeline, answers, answer, resume, skip, setSkip };
}
