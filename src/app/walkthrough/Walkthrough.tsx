/**
 * The walkthrough panel: the chapter's text with its evidence, the checkpoint, the step captions,
 * chapter navigation, and presenter mode (large type, clicker keys, blank screen, speaker notes in a
 * panel or a second window, full screen). The chapters themselves are data (chapters.ts); this only
 * shows them and plays their steps through useChapterRunner.
 */
import { useCallback, useEffect, useId, useLayoutEffect, useRef, useState, type FormEvent } from 'react';
import { createPortal } from 'react-dom';
import { pick, useT } from '../i18n/i18n.ts';
import { onNextFrame } from '../state/clock.ts';
import { Icon } from '../ui/icons.tsx';
import { themeColor } from '../ui/theme.ts';
import { useApp, useAppStore, type Language } from '../state/store.ts';
import { highlightSelector, setPageRules } from '../views/shared/highlight.ts';
import { BackgroundWords, FactWords, SourceRef } from '../views/shared/Evidence.tsx';
import { EVIDENCE_ID, focusEvidence } from '../views/shared/EvidencePanel.tsx';
import type { Chapter, Paragraph } from './chapters/chapter.ts';
import { CHAPTERS } from './chapters/index.ts';
import { useEvidence, type EvidenceIndex } from './evidenceSource.ts';
import { walkthroughKeyOf } from './keys.ts';
import { useChapterRunner, type Answer } from './runner.ts';
import { shownTitle } from './chapters/spoilers.ts';
import { ScreenLayoutLink } from './ScreenLayoutLink.tsx';
import { PresenterQuiz, RoomQuestion } from './RoomPanel.tsx';
import { pressQuiz, quizPress } from './quizKeys.ts';
import { whyNextWaits, whyOptionRefused, type PressRefusal } from './refusal.ts';
import { SceneLine } from '../picture/SceneLine.tsx';
import { RoomTally } from '../picture/RoomTally.tsx';
import './walkthrough.css';

const CHAPTER_COUNT = CHAPTERS.length;

/** A chapter's text in the page's language (French typeset). */
const L = (x: { en: string; fr: string }, lang: Language) => pick(lang, x.en, x.fr);

function Badges({ p, lang }: { p: Paragraph; lang: Language }) {
  const t = useT();
  const e = p.evidence;
  if ('model' in e) return <span className="badge model">{t('model')}</span>;
  const ids = 'facts' in e ? e.facts : e.background;
  return (
    <>
      {ids.map((id) => (
        <span key={id} className={`badge ${'facts' in e ? 'fact' : 'background'}`} lang={lang}>
          {'facts' in e ? t('fact') : t('walkBackground')} {id}
        </span>
      ))}
    </>
  );
}

/**
 * Every fact and source the chapter rests on. A fact shows in the page's language; in English its
 * French original, the report's sentence as written, follows on the next line. A public source
 * shows what it says and its address.
 */
function Sources({ paragraphs, index, lang }: { paragraphs: readonly Paragraph[]; index: EvidenceIndex | null; lang: Language }) {
  const t = useT();
  const facts = [...new Set(paragraphs.flatMap((p) => ('facts' in p.evidence ? p.evidence.facts : [])))];
  const background = [...new Set(paragraphs.flatMap((p) => ('background' in p.evidence ? p.evidence.background : [])))];
  if (facts.length + background.length === 0) return null;
  return (
    <section className="walk-sources" aria-label={t('walkSources')}>
      <h3>{t('walkSources')}</h3>
      <ul>
        {facts.map((id) => {
          const f = index?.fact(id);
          return (
            <li key={id} data-fact={id}>
              <b>{id}</b>{' '}
              {f ? (
                <FactWords en={f.en} quote={f.quote} lang={lang} />
              ) : (
                <span className="hint">({t('walkQuoteMissing')})</span>
              )}
            </li>
          );
        })}
        {background.map((id) => {
          const b = index?.background(id);
          return (
            <li key={id}>
              {b ? (
                <>
                  <BackgroundWords b={b} lang={lang} /> <SourceRef id={id} />
                </>
              ) : (
                <>
                  <b>{id}</b> <span className="hint">({t('walkQuoteMissing')})</span>
                </>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/**
 * The chapter's question. The option chosen by a click (or 1–4) is the walkthrough's (`choice`), so
 * that the presenter's Next reveals with it; the legend takes focus when Next points at the question,
 * never an option, which a clicker's Space would then choose.
 */
function CheckpointForm({ chapter, asked, answered, onAnswer, nudged, questionRef, choice, onChoose }: { chapter: Chapter; asked: boolean; answered: Answer | undefined; onAnswer: (a: Answer) => void; nudged: boolean; questionRef: React.RefObject<HTMLLegendElement | null>; choice: string | null; onChoose: (id: string) => void }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const cp = chapter.checkpoint!;
  const [complaint, setComplaint] = useState(false);
  const name = useId();
  useEffect(() => {
    setComplaint(false);
  }, [chapter]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (choice === null) setComplaint(true);
    else onAnswer(choice);
  };
  const done = answered !== undefined;
  const form = useRef<HTMLFormElement>(null);
  // The question (then its answer) is what the room should be looking at: bring it into the panel's view.
  // Once the chapter has reached it (its caption is up then), so the panel's scroll depends on the
  // chapter alone, not on what the chapter before left in the panel.
  // Within the panel only, where it scrolls: scrolling the page too would take away what the chapter
  // points at (a link past the question shows its answer and a highlighted view at once).
  useEffect(() => {
    const el = form.current;
    if (!el || !(asked || done)) return;
    const box = el.closest<HTMLElement>('.walkthrough');
    if (!box || box.scrollHeight <= box.clientHeight) {
      el.scrollIntoView?.({ block: 'nearest' });
      return;
    }
    const r = el.getBoundingClientRect();
    const b = box.getBoundingClientRect();
    if (r.bottom > b.bottom) box.scrollTop += Math.min(r.bottom - b.bottom, r.top - b.top);
    else if (r.top < b.top) box.scrollTop -= b.top - r.top;
  }, [done, chapter, asked]);
  const correct = L(cp.options.find((o) => o.id === cp.answer)!.label, lang);
  return (
    <form ref={form} className="checkpoint" onSubmit={submit} data-testid="checkpoint" data-answered={done ? 'true' : 'false'}>
      <fieldset disabled={done}>
        <legend ref={questionRef} tabIndex={-1}>
          <span className="badge checkpoint-badge">{t('walkPredict')}</span> {L(cp.question, lang)}
        </legend>
        <div role="radiogroup" aria-label={L(cp.question, lang)}>
          {cp.options.map((o, i) => (
            <label key={o.id} className="option">
              <input
                type="radio"
                name={name}
                value={o.id}
                checked={(done ? answered : choice) === o.id}
                onChange={() => {
                  onChoose(o.id);
                  setComplaint(false);
                }}
              />{' '}
              <span className="option-key" aria-hidden="true">
                {i + 1}
              </span>{' '}
              {L(o.label, lang)}
            </label>
          ))}
        </div>
        {!done ? (
          <p className="checkpoint-actions">
            <button type="submit" data-testid="checkpoint-submit">
              {t('walkSubmit')}
            </button>{' '}
            <span className="hint" role="status">
              {complaint ? t('walkChooseFirst') : nudged ? t('walkRevealHint') : t('walkWaiting')}
            </span>
          </p>
        ) : null}
      </fieldset>
      {done ? (
        <p className="checkpoint-result" role="status" data-testid="checkpoint-result" data-correct={answered === cp.answer ? 'true' : 'false'}>
          <b>{answered === null ? t('walkNoAnswer', { answer: correct }) : answered === cp.answer ? t('walkRight') : t('walkWrong', { answer: correct })}</b> {L(cp.explain, lang)}
        </p>
      ) : null}
    </form>
  );
}

/** The notes window is a document of its own: its colours are the theme's tokens, read when it opens. */
const notesWindowCss = (c: (name: `--${string}`) => string = themeColor) => `body{font:22px/1.45 system-ui,sans-serif;margin:1.2rem;background:${c('--notes-bg')};color:${c('--notes-fg')}}
h1{font-size:1rem;color:${c('--notes-muted')};margin:0 0 .3rem}h2{font-size:1.4rem;margin:.2rem 0 .8rem}
.next{color:${c('--notes-muted')};font-size:.9rem;border-top:1px solid ${c('--notes-rule')};margin-top:1rem;padding-top:.5rem}`;

function NotesContent({ chapter, lang }: { chapter: number; lang: Language }) {
  const t = useT();
  const ch = CHAPTERS[chapter - 1]!;
  const next = CHAPTERS[chapter];
  return (
    <>
      <h1>
        {t('walkNotes')} · {t('walkChapterOf', { n: String(chapter), count: String(CHAPTER_COUNT) })}
      </h1>
      <h2>{L(ch.title, lang)}</h2>
      <p data-testid="speaker-notes">{L(ch.notes, lang)}</p>
      {ch.checkpoint ? (
        <p>
          <b>{t('walkPredict')}{lang === 'fr' ? '\u00a0:' : ':'}</b> {L(ch.checkpoint.question, lang)} → {L(ch.checkpoint.options.find((o) => o.id === ch.checkpoint!.answer)!.label, lang)}
        </p>
      ) : null}
      <p className="next">{next ? `${t('walkNext')}${lang === 'fr' ? '\u00a0:' : ':'} ${L(next.title, lang)}` : t('walkEnd')}</p>
    </>
  );
}

export function Walkthrough() {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const presenter = useApp((s) => s.presenter);
  const set = useApp((s) => s.set);
  const { chapter, status, beat, caption, highlight, timeline, answers, answer, resume, skip, setSkip } = useChapterRunner();
  const store = useAppStore();
  const { index } = useEvidence();
  const [notesOpen, setNotesOpen] = useState(false);
  const [blank, setBlank] = useState(false);
  const [nudged, setNudged] = useState(false);
  const [notesWindow, setNotesWindow] = useState<Window | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const questionRef = useRef<HTMLLegendElement>(null);
  /** The option the presenter chose at the question (a click), before revealing: Next reveals with it. */
  const [choice, setChoice] = useState<string | null>(null);
  const ch = chapter === null ? null : CHAPTERS[chapter - 1]!;
  const roomRole = useApp((s) => s.roomView?.role ?? null);
  const roomKey = chapter === null ? '' : `ch:${chapter}`;
  const roomRevealed = useApp((s) => s.roomView?.revealed[roomKey] !== undefined);
  const myRoomChoice = useApp((s) => s.roomView?.mine[roomKey]?.choice);
  // An attendee's question is answered when the room's presenter reveals it: with their own answer, if any.
  useEffect(() => {
    if (roomRole !== 'attendee' || chapter === null || !ch?.checkpoint || !roomRevealed || answers.has(chapter)) return;
    answer(myRoomChoice === undefined ? null : (ch.checkpoint.options[myRoomChoice]?.id ?? null));
  }, [roomRole, roomRevealed, chapter, ch, answers, answer, myRoomChoice]);

  useEffect(() => {
    setNudged(false);
    setChoice(null);
  }, [chapter]);
  /** Why the last press did not act (refusal.ts), shown beside Next until the chapter moves on. */
  const [refusal, setRefusal] = useState<PressRefusal | null>(null);
  useEffect(() => setRefusal(null), [chapter, status]);
  // Each chapter opens at the panel's top, however far the one before was scrolled (a chapter by
  // link and by Next are the same picture); its question then scrolls into view (CheckpointForm).
  const panelRef = useRef<HTMLElement>(null);
  useLayoutEffect(() => {
    if (panelRef.current) panelRef.current.scrollTop = 0;
  }, [chapter]);

  // Page-wide classes: the panel takes the left side while open; presenter mode enlarges the type.
  useEffect(() => {
    const root = document.documentElement;
    root.classList.toggle('walking', chapter !== null);
    root.classList.toggle('presenter', chapter !== null && presenter);
    return () => root.classList.remove('walking', 'presenter');
  }, [chapter, presenter]);

  // The outline follows the views through re-renders because it is a style rule, not a class on a node.
  useEffect(() => {
    const selector = highlight ? highlightSelector(highlight) : null;
    setPageRules('walk-highlight', selector ? `${selector} { outline: 4px dashed var(--focus) !important; outline-offset: 3px; }` : '');
    document.body.dataset.walkHighlight = highlight ?? '';
    // What the chapter points at is brought into view once the views have drawn it, and again while
    // the page settles (a run that lands, a view that grows, a chapter's end) so that it stays there.
    // Every beat does so afresh: a later beat pointing at the same part can still move the page (a
    // beat that changes the situation replaces the stage while its run is computed, and its caption
    // can lose a line), long after the chapter's first beat settled.
    if (!selector) return;
    const bring = () => {
      const reduced = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;
      // The sticky scrub bar lies over the window's foot: what the chapter points at is scrolled
      // clear of it as it is (its height changes with the width and the language).
      const bar = document.querySelector<HTMLElement>('.scrub-bar');
      const barHeight = bar && getComputedStyle(bar).position === 'sticky' ? Math.ceil(bar.getBoundingClientRect().height) : 0;
      document.documentElement.style.scrollPaddingBottom = barHeight > 0 ? `${barHeight + 8}px` : '';
      // Kept in view while the page settles: until 3 s pass with the part there and nothing resized
      // (a run a switch asked for can take seconds to land and redraw the views). While the part is
      // not on the page (its view replaced while a run is computed), the page has not settled.
      window.clearTimeout(stop);
      const el = document.querySelector(selector);
      if (!el) return;
      stop = window.setTimeout(() => ro?.disconnect(), 3000);
      // A part taller than the window's free height (less the bar, and the sheet on a phone) shows
      // from its top: 'nearest' leaves one that already fills the window where it is, top cut.
      const sheet = document.querySelector<HTMLElement>('.walkthrough')?.getBoundingClientRect();
      const free = window.innerHeight - barHeight - (sheet && sheet.top > 1 ? window.innerHeight - sheet.top : 0) - 16;
      const tall = el.getBoundingClientRect().height > free;
      el.scrollIntoView?.({ block: tall ? 'start' : 'nearest', inline: 'nearest', behavior: reduced ? 'auto' : 'smooth' });
    };
    let stop = 0;
    const ro = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => onNextFrame('walk-highlight', bring));
    onNextFrame('walk-highlight', bring);
    if (!ro) return;
    ro.observe(document.body);
    const views = document.querySelector('.views');
    if (views) ro.observe(views);
    // Never longer than 30 s, whatever happens.
    const cap = window.setTimeout(() => ro.disconnect(), 30_000);
    return () => {
      window.clearTimeout(stop);
      window.clearTimeout(cap);
      ro.disconnect();
    };
  }, [highlight, status === 'done', beat]);

  // Focus stays where the person put it (the Next button, say) unless that element went away.
  useEffect(() => {
    if (chapter === null) return;
    const active = document.activeElement;
    if (!active || active === document.body || !active.isConnected) heading.current?.focus();
  }, [chapter]);


  const go = useCallback((n: number) => set({ chapter: Math.max(1, Math.min(CHAPTER_COUNT, n)) }), [set]);
  /** The chapter's question is still to be revealed here (an attendee's is the room's). */
  const questionAhead = chapter !== null && ch?.checkpoint !== undefined && !answers.has(chapter) && roomRole !== 'attendee';
  /**
   * Presses kept until the page can take them (presses are queued, never lost, never skip): one made
   * while the chapter prepares (its runs computed) or plays towards a question not yet revealed waits;
   * at the question, presses made before it showed point at it, and only a press made with it on screen
   * reveals it. So two presses at a chapter's end never pass the next chapter's question, and the room
   * is never sent a chapter whose question was skipped.
   */
  const pending = useRef(0);
  // The room's quiz before chapter 1 and after the last (once the last has been told): the forward key's first.
  const roomView = useApp((s) => s.roomView);
  const quiz = quizPress(roomView, chapter === 1 ? 'pre' : chapter === CHAPTER_COUNT && status === 'done' ? 'post' : null);
  const quizAfter = quizPress(roomView, chapter === CHAPTER_COUNT ? 'post' : null) !== null;
  const next = useCallback(() => {
    if (chapter === null) return;
    // A press while the chapter before is still on screen (its change not yet drawn) is kept for this one.
    if (store.getState().chapter !== chapter) {
      pending.current++;
      return;
    }
    // In a room, the presenter's quiz before chapter 1 and after the last: open, then reveal, by the same key.
    if (quiz) return pressQuiz(store, quiz);
    // Opened at a beat by a link: go on from it.
    if (status === 'held' && roomRole !== 'attendee') return resume();
    if (status === 'checkpoint' && questionAhead) {
      // First press: point at the question. Second press: the room answered aloud, reveal.
      if (!nudged) {
        setNudged(true);
        questionRef.current?.focus();
      } else answer(choice);
      return;
    }
    const waits = roomRole === 'attendee' ? null : whyNextWaits({ status, ready: timeline !== null, questionAhead, quizAfter });
    if (waits) {
      pending.current++;
      setRefusal(waits);
      return;
    }
    if (chapter < CHAPTER_COUNT) go(chapter + 1);
  }, [chapter, status, timeline, questionAhead, quizAfter, nudged, choice, answer, go, resume, roomRole, store, quiz]);
  // The presses kept, taken once the page can: at the question they point at it, never reveal it.
  useEffect(() => {
    if (pending.current === 0 || chapter === null || store.getState().chapter !== chapter) return;
    if (whyNextWaits({ status, ready: timeline !== null, questionAhead, quizAfter })) return;
    if (status === 'checkpoint' && questionAhead) {
      pending.current = 0;
      if (!nudged) {
        setNudged(true);
        questionRef.current?.focus();
      }
      return;
    }
    pending.current--;
    next();
  });
  const prev = useCallback(() => {
    pending.current = 0;
    if (chapter !== null && chapter > 1) go(chapter - 1);
  }, [chapter, go]);
  const toggleFullscreen = useCallback(() => {
    if (document.fullscreenElement) void document.exitFullscreen().catch(() => undefined);
    else void document.documentElement.requestFullscreen?.().catch(() => undefined);
  }, []);

  /** Escape closes what is open in the panel (the notes, the chapter list), one at a time; nothing is left half closed. */
  const closeOne = useCallback((): boolean => {
    if (notesOpen) {
      setNotesOpen(false);
      return true;
    }
    const toc = panelRef.current?.querySelector<HTMLDetailsElement>('details[open]');
    if (toc) {
      toc.open = false;
      return true;
    }
    return false;
  }, [notesOpen]);

  const onKey = useCallback(
    (e: KeyboardEvent) => {
      if (chapter === null || e.defaultPrevented) return;
      const key = walkthroughKeyOf(e, status === 'checkpoint' && !answers.has(chapter) && roomRole !== 'attendee', presenter || roomRole === 'presenter');
      if (key === null) return;
      let handled = true;
      if (blank && (key === 'blank' || key === 'leave')) setBlank(false);
      else if (blank) handled = false;
      else if (key === 'next') next();
      else if (key === 'prev') prev();
      else if (key === 'blank') setBlank(true);
      else if (key === 'fullscreen') toggleFullscreen();
      else if (key === 'notes') setNotesOpen((o) => !o);
      else if (key === 'leave') handled = closeOne();
      else if (typeof key === 'object' && roomRole !== 'attendee') {
        // A number key answers the question on screen; anywhere else it says why it answers nothing.
        const options = ch?.checkpoint?.options ?? [];
        const why = whyOptionRefused(key.option, { status, options: options.length, answered: answers.has(chapter) });
        if (why) setRefusal(why);
        else answer(options[key.option - 1]!.id);
      } else handled = false;
      // Taken before the element with focus sees it (the timeline's slider moves back on Page Down).
      if (handled) {
        e.preventDefault();
        e.stopPropagation();
      }
    },
    [chapter, blank, next, prev, toggleFullscreen, status, ch, answers, answer, roomRole, presenter, closeOne],
  );

  useEffect(() => {
    window.addEventListener('keydown', onKey, { capture: true });
    return () => window.removeEventListener('keydown', onKey, { capture: true });
  }, [onKey]);

  // The notes window is a same-origin popup the panel renders into, so it needs no second app.
  useEffect(() => {
    if (!notesWindow) return;
    const w = notesWindow;
    w.addEventListener('keydown', onKey);
    const closed = window.setInterval(() => w.closed && setNotesWindow(null), 500);
    return () => {
      w.removeEventListener('keydown', onKey);
      window.clearInterval(closed);
    };
  }, [notesWindow, onKey]);
  useEffect(() => {
    if (chapter === null && notesWindow) {
      notesWindow.close();
      setNotesWindow(null);
    }
  }, [chapter, notesWindow]);
  useEffect(() => {
    if (notesWindow) notesWindow.document.title = `${t('walkNotes')} — ${t('title')}`;
  }, [notesWindow, t]);
  const openNotesWindow = () => {
    const w = window.open('', 'stale-pages-notes', 'popup,width=720,height=520');
    if (!w) {
      setNotesOpen(true);
      return;
    }
    w.document.body.replaceChildren();
    const style = w.document.createElement('style');
    style.textContent = notesWindowCss();
    w.document.head.appendChild(style);
    w.document.documentElement.lang = lang;
    setNotesWindow(w);
  };

  if (chapter === null || !ch) return null;
  const answered = answers.get(chapter);
  // A title that would answer a question waiting shows the question's shape (chapters/spoilers.ts).
  const titleOf = (m: number) => L(shownTitle(m, (k) => answers.has(k)), lang);
  // A paragraph that says the answer, and the sources it quotes, wait for the room's prediction.
  const held = (p: Paragraph) => p.answers === true && ch.checkpoint !== undefined && answered === undefined;
  return (
    <>
      <section ref={panelRef} className="walkthrough panel" aria-labelledby="walk-h" data-testid="walkthrough" data-chapter={chapter} data-chapter-id={ch.id} data-status={status} data-beat={beat ?? ''}>
        <div className="walk-top">
          <p className="walk-count" aria-live="polite">
            {t('walkTitle')} · {t('walkChapterOf', { n: String(chapter), count: String(CHAPTER_COUNT) })}
          </p>
          <div className="walk-tools" role="group" aria-label={t('walkTitle')}>
            <button type="button" aria-pressed={skip} onClick={() => setSkip(!skip)} data-testid="walk-skip">
              {t('walkSkip')}
            </button>
            <button type="button" aria-pressed={presenter} onClick={() => set({ presenter: !presenter })} data-testid="walk-presenter">
              {t('walkPresenter')}
            </button>
            {presenter ? <ScreenLayoutLink /> : null}
            <button type="button" aria-pressed={notesOpen} aria-keyshortcuts="N" onClick={() => setNotesOpen(!notesOpen)} data-testid="walk-notes">
              {t('walkNotes')}
            </button>
            <button type="button" onClick={openNotesWindow}>
              {t('walkNotesWindow')}
            </button>
            <button type="button" aria-keyshortcuts="F" onClick={toggleFullscreen}>
              {t('walkFullscreen')}
            </button>
            <button type="button" aria-keyshortcuts="B" onClick={() => setBlank(true)}>
              {t('walkBlank')}
            </button>
            <button type="button" onClick={() => set({ lang: lang === 'en' ? 'fr' : 'en' })} lang={lang === 'en' ? 'fr' : 'en'} data-testid="walk-lang">
              {lang === 'en' ? 'Français' : 'English'}
            </button>
            <button type="button" onClick={() => set({ chapter: null })} aria-label={t('walkClose')}>
              ✕
            </button>
          </div>
        </div>
        <nav className="walk-nav" aria-label={t('walkChapters')}>
          <button type="button" onClick={prev} disabled={chapter <= 1} aria-keyshortcuts="ArrowLeft PageUp" data-testid="walk-prev">
            <Icon name="prev" /> <span className="visually-hidden">{t('walkPrev')}: </span>
            {chapter > 1 ? `${chapter - 1} · ${titleOf(chapter - 1)}` : t('walkPrev')}
          </button>
          <button type="button" onClick={next} disabled={chapter >= CHAPTER_COUNT && status !== 'checkpoint'} aria-keyshortcuts="ArrowRight PageDown Space" data-testid="walk-next">
            <span className="visually-hidden">{t('walkNext')}: </span>
            {chapter < CHAPTER_COUNT ? `${chapter + 1} · ${titleOf(chapter + 1)}` : t('walkNext')} <Icon name="next" />
          </button>
          <details className="walk-toc">
            <summary>{t('walkChapters')}</summary>
            <ol>
              {CHAPTERS.map((c, i) => (
                <li key={c.id}>
                  <button type="button" className="linklike" aria-current={i + 1 === chapter ? 'step' : undefined} onClick={() => go(i + 1)}>
                    {titleOf(i + 1)}
                  </button>
                </li>
              ))}
            </ol>
          </details>
        </nav>
        <p className="hint walk-refusal" role="status" data-testid="walk-refusal">
          {refusal ? t(refusal.key, refusal.vars) : null}
        </p>
        <h2 id="walk-h" ref={heading} tabIndex={-1}>
          {titleOf(chapter)}
        </h2>
        <SceneLine chapter={chapter} className="walk-scene" testId="walk-scene" />
        <p className="walk-caption" aria-live="polite" data-testid="walk-caption">
          {caption ? (
            <>
              <b>{t('walkNow')}{lang === 'fr' ? '\u00a0:' : ':'}</b> {pick(lang, caption.en, caption.fr)}
              {caption.model ? (
                <>
                  {' '}
                  <span className="badge model">{t('model')}</span>
                </>
              ) : null}
            </>
          ) : null}
        </p>
        <div className="walk-text">
          {ch.paragraphs.map((p, i) =>
            held(p) ? (
              // The room predicts before it reads the answer; one line says something waits here, once
              // for a run of held paragraphs.
              i > 0 && held(ch.paragraphs[i - 1]!) ? null : (
                <p key={i} className="hint" data-testid="walk-held">
                  {t('walkHeldParagraph')}
                </p>
              )
            ) : (
              <p key={i}>
                {pick(lang, p.text.en, p.text.fr)} <Badges p={p} lang={lang} />
              </p>
            ),
          )}
        </div>
        {roomRole === 'presenter' && chapter === 1 ? <PresenterQuiz phase="pre" /> : null}
        {ch.checkpoint && roomRole === 'attendee' && answered === undefined ? (
          <RoomQuestion question={roomKey} prompt={L(ch.checkpoint.question, lang)} options={ch.checkpoint.options.map((o) => L(o.label, lang))} badge={t('walkPredict')} />
        ) : ch.checkpoint ? (
          <CheckpointForm chapter={ch} asked={status === 'checkpoint'} answered={answered} onAnswer={answer} nudged={nudged} questionRef={questionRef} choice={choice} onChoose={setChoice} />
        ) : null}
        {ch.checkpoint && roomRole !== null && (roomRole === 'presenter' || roomRevealed) ? (
          <RoomTally question={roomKey} options={ch.checkpoint.options.map((o) => L(o.label, lang))} correct={ch.checkpoint.options.findIndex((o) => o.id === ch.checkpoint!.answer)} bringIntoView={roomRole === 'presenter'} />
        ) : null}
        {roomRole === 'presenter' && chapter === CHAPTER_COUNT ? <PresenterQuiz phase="post" /> : null}
        <Sources paragraphs={ch.paragraphs.filter((p) => !held(p))} index={index} lang={lang} />
        {chapter === CHAPTER_COUNT ? (
          <p className="walk-evidence">
            <a
              href={`#${EVIDENCE_ID}`}
              data-testid="walk-evidence"
              onClick={(e) => {
                e.preventDefault();
                focusEvidence();
              }}
            >
              {t('walkEvidenceLink')}
            </a>
          </p>
        ) : null}
        {notesOpen ? (
          <aside className="walk-notes" aria-label={t('walkNotes')}>
            <NotesContent chapter={chapter} lang={lang} />
          </aside>
        ) : null}
        <p className="hint walk-keys">{t('walkKeys')}</p>
      </section>
      {blank ? (
        <div className="walk-blank" onClick={() => setBlank(false)} data-testid="walk-blank">
          <p className="visually-hidden" role="status">
            {t('walkBlanked')}
          </p>
        </div>
      ) : null}
      {notesWindow ? createPortal(<NotesContent chapter={chapter} lang={lang} />, notesWindow.document.body) : null}
    </>
  );
}
