/**
 * The workshop room on the page (`?room`, run/roomClient.ts): the room's bar (its name, the link's
 * state, "back to the presenter" for an attendee who looked around), an attendee's answer buttons
 * (a chapter's question, the three quiz questions), and the presenter's quiz controls with the room's
 * normalised gain and its CSV. Views read the room through the store's selectors; what they send
 * goes through the room's client.
 */
import { download } from '../views/cluster/exportView.ts';
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import { generate } from 'lean-qr';
import { gainCsv, averageCorrect, hakeGain } from '../../room/gain.ts';
import { pick, useT } from '../i18n/i18n.ts';
import { formatFixed, formatNumber } from '../i18n/format.ts';
import { RoomTally } from '../picture/RoomTally.tsx';
import { backToPresenter, roomClientOf } from '../run/roomClient.ts';
import type { RefusedReason } from '../../room/protocol.ts';
import { awayFromPresenter, presenterStarted, roomTakes, stateFromRevealed } from '../state/room.ts';
import { useApp, useAppStore, type Language } from '../state/store.ts';
import { CHAPTERS } from './chapters/index.ts';
import { QUIZ, QUIZ_ANSWERS, type QuizPhase } from './chapters/quiz.ts';

const L = (x: { en: string; fr: string }, lang: Language) => pick(lang, x.en, x.fr);

/**
 * Why the room did not take an answer, in words: the question not open (or already revealed), this
 * attendee's changes of mind at the room's bound (the answer it took last still counts), or an answer
 * it could not read.
 */
function useRefusal(): (reason: RefusedReason | undefined, taken: string | null) => string {
  const t = useT();
  return (reason, taken) =>
    reason === 'limit' ? (taken === null ? t('roomRefusedLimit') : t('roomRefusedLimitKept', { option: taken })) : reason === 'choice' || reason === 'token' ? t('roomRefusedUnread') : t('roomRefused');
}

/** One question an attendee answers on their phone: large buttons, the choice pressed, the room's acknowledgement said. */
export function RoomQuestion({ question, prompt, options, badge, scrollOnOpen = true }: { question: string; prompt: string; options: readonly string[]; badge?: string; scrollOnOpen?: boolean }) {
  const t = useT();
  const refusal = useRefusal();
  const store = useAppStore();
  const mine = useApp((s) => s.roomView?.mine[question]);
  const takes = useApp((s) => (s.roomView ? roomTakes(s.roomView, question) : false));
  const revealed = useApp((s) => s.roomView?.revealed[question] !== undefined);
  const id = useId();
  // Opened for answers: brought into view (on a phone, in the walkthrough's sheet). Of a quiz's three
  // questions, opened at once, only the first is: scrolling to each would leave the phone on the last.
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (takes && scrollOnOpen) box.current?.scrollIntoView?.({ block: 'nearest' });
  }, [takes, scrollOnOpen]);
  const status =
    mine?.state === 'sending'
      ? t('roomSending')
      : mine?.state === 'acked'
        ? t('roomAcked')
        : mine?.state === 'refused'
          ? refusal(mine.refusedFor, mine.taken === undefined ? null : (options[mine.taken] ?? null))
          : mine?.state === 'lost'
            ? t('roomLost')
            : takes
              ? t('roomChoose')
              : t('roomWaitOpen');
  return (
    <div ref={box} className="room-question" data-testid="room-question" data-question={question} data-state={mine?.state ?? ''} data-open={takes ? 'true' : 'false'}>
      <p className="room-prompt" id={id}>
        {badge ? <span className="badge checkpoint-badge">{badge}</span> : null} {prompt}
      </p>
      <div className="room-options" role="group" aria-labelledby={id}>
        {options.map((label, i) => (
          <button
            key={i}
            type="button"
            className="room-option"
            aria-pressed={(mine?.state === 'refused' ? mine.taken : mine?.choice) === i}
            disabled={!takes || revealed}
            onClick={() => roomClientOf(store)?.answer(question, i)}
            data-testid="room-option"
          >
            <span className="option-key" aria-hidden="true">
              {i + 1}
            </span>{' '}
            {label}
          </button>
        ))}
      </div>
      {revealed ? null : (
        <p className="room-status" role="status" data-testid="room-answer-status">
          {status}
        </p>
      )}
    </div>
  );
}

/** The quiz shown now, if any: the one open, or the one just revealed while the room is still at its end of the talk. */
function quizPhaseNow(open: string | null, chapter: number, revealed: Readonly<Record<string, readonly number[]>>): QuizPhase | null {
  if (open === 'pre' || open?.startsWith('pre:')) return 'pre';
  if (open === 'post' || open?.startsWith('post:')) return 'post';
  if (chapter <= 1 && revealed['pre:0']) return 'pre';
  if (chapter >= CHAPTERS.length && revealed['post:0']) return 'post';
  return null;
}

/** An attendee's three questions, one after another on a phone, then the room's answers once revealed. */
function AttendeeQuiz({ phase, onHide }: { phase: QuizPhase; onHide: () => void }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const revealed = useApp((s) => s.roomView?.revealed[`${phase}:0`] !== undefined);
  return (
    <section className="room-quiz panel" aria-labelledby="room-quiz-h" data-testid="room-quiz" data-phase={phase}>
      <h2 id="room-quiz-h">{phase === 'pre' ? t('roomQuizPre') : t('roomQuizPost')}</h2>
      {QUIZ.map((q, i) => {
        const key = `${phase}:${i}`;
        const labels = q.options.map((o) => L(o, lang));
        return (
          <div key={key} className="room-quiz-item">
            <RoomQuestion question={key} prompt={L(q.question, lang)} options={labels} badge={t('roomQuestionN', { n: String(i + 1) })} scrollOnOpen={i === 0} />
            {revealed ? <RoomTally question={key} options={labels} correct={q.answer} hideCount /> : null}
            <p className="hint room-facts">{q.facts.map((f) => `${t('fact')} ${f}`).join(' · ')}</p>
          </div>
        );
      })}
      {revealed ? (
        <button type="button" onClick={onHide} data-testid="room-quiz-hide">
          {t('roomDismiss')}
        </button>
      ) : null}
    </section>
  );
}

/** The attendees' address as a QR code, drawn here (one SVG path of its modules, in the theme's colours; no service). */
function RoomQr({ text, label }: { text: string; label: string }) {
  const code = generate(text);
  const pad = 2;
  const n = code.size + pad * 2;
  let d = '';
  for (let y = 0; y < code.size; y++) for (let x = 0; x < code.size; x++) if (code.get(x, y)) d += `M${x + pad} ${y + pad}h1v1h-1z`;
  return (
    <svg className="room-qr" viewBox={`0 0 ${n} ${n}`} role="img" aria-label={label} shapeRendering="crispEdges">
      <rect width={n} height={n} className="room-qr-bg" />
      <path d={d} className="room-qr-fg" />
    </svg>
  );
}

/** The presenter's way to let phones in: the attendees' address, written and as a QR code. */
function RoomAddress({ name }: { name: string }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const address = `${window.location.origin}/?room=${encodeURIComponent(name)}`;
  return (
    <>
      <button type="button" aria-expanded={open} onClick={() => setOpen(!open)} data-testid="room-address-toggle">
        {t('roomAddress')}
      </button>
      {open ? (
        <div className="room-address" data-testid="room-address">
          <RoomQr text={address} label={t('roomQrLabel', { address })} />
          <p>
            <code>{address}</code>
          </p>
        </div>
      ) : null}
    </>
  );
}

/** The room's bar: its name and link, and for an attendee who looked around, the way back. */
export function RoomBar() {
  const t = useT();
  const store = useAppStore();
  const view = useApp((s) => s.roomView);
  const [hidden, setHidden] = useState<string | null>(null);
  const phase = view && view.role === 'attendee' ? quizPhaseNow(view.open, view.chapter, view.revealed) : null;
  const phaseKey = phase && view ? `${phase}:${view.open ?? 'revealed'}` : null;
  useEffect(() => {
    if (phaseKey === null) setHidden(null);
  }, [phaseKey]);
  if (!view) return null;
  const link =
    view.link === 'open'
      ? t('roomLinkOpen')
      : view.link === 'reconnecting'
        ? t('roomLinkReconnecting')
        : view.link === 'refused'
          ? view.refused === 'key'
            ? t('roomKeyRefused')
            : t('roomAddressFull')
          : t('roomLinkConnecting');
  const away = awayFromPresenter(view);
  return (
    <>
      <div className="room-bar" data-testid="room-bar" data-link={view.link} data-role={view.role} data-following={view.following ? 'true' : 'false'} data-room-chapter={view.chapter} data-room-beat={view.beat}>
        <span className="room-name">
          {t('roomName', { name: view.name })}
          {view.role === 'presenter' ? ` · ${t('roomPresenter')}` : ''}
        </span>
        <span className="room-link" role="status" data-testid="room-link">
          {link}
        </span>
        {view.role === 'presenter' ? <RoomAddress name={view.name} /> : null}
        {away ? (
          <button type="button" className="room-back" onClick={() => backToPresenter(store)} data-testid="room-back">
            {t('roomBack')}
          </button>
        ) : view.role === 'attendee' && presenterStarted(view) ? (
          <span className="hint">{t('roomFollowing')}</span>
        ) : null}
      </div>
      {phase && phaseKey !== hidden ? <AttendeeQuiz phase={phase} onHide={() => setHidden(phaseKey)} /> : null}
    </>
  );
}

function downloadCsv(text: string, name: string): void {
  download(name, new Blob([text], { type: 'text/csv;charset=utf-8' }));
}

/** The room's normalised gain, from the revealed quizzes (room/gain.ts). */
function useGain() {
  const revealed = useApp((s) => s.roomView?.revealed);
  if (!revealed) return null;
  const state = stateFromRevealed(revealed);
  const pre = averageCorrect(state, 'pre', QUIZ_ANSWERS);
  const post = averageCorrect(state, 'post', QUIZ_ANSWERS);
  return { state, pre, post, gain: hakeGain(pre, post) };
}

/** The presenter's quiz: open it, see each question's count, reveal it; after the post quiz, the gain and its CSV. */
export function PresenterQuiz({ phase }: { phase: QuizPhase }) {
  const t = useT();
  const store = useAppStore();
  const lang = useApp((s) => s.lang);
  const linked = useApp((s) => s.roomView?.presenterConfirmed === true);
  const open = useApp((s) => s.roomView?.open === phase);
  const revealed = useApp((s) => s.roomView?.revealed[`${phase}:0`] !== undefined);
  const gain = useGain();
  // The room's gain, once the questions after are revealed, is brought into view (the panel's, the window's).
  const gainLine = useRef<HTMLParagraphElement>(null);
  // Each question's bars appear as its reveal arrives, pushing the gain down: bring it in after each.
  const revealedPost = useApp((s) => (phase === 'post' ? QUIZ.filter((_, i) => s.roomView?.revealed[`post:${i}`] !== undefined).length : 0));
  useLayoutEffect(() => {
    if (revealedPost === 0) return;
    const bring = () => gainLine.current?.scrollIntoView?.({ block: 'nearest' });
    bring();
    // A window that changes size (the projector plugged in, the screen layout's zoom) keeps it there.
    window.addEventListener('resize', bring);
    return () => window.removeEventListener('resize', bring);
  }, [revealedPost]);
  const pct = (x: number | undefined) => (x === undefined ? '–' : `${formatNumber(Math.round(x * 100), lang)}${lang === 'fr' ? '\u202f%' : '%'}`);
  return (
    <section className="room-presenter-quiz" aria-labelledby={`room-${phase}-h`} data-testid="room-presenter-quiz" data-phase={phase}>
      <h3 id={`room-${phase}-h`}>{phase === 'pre' ? t('roomQuizPre') : t('roomQuizPost')}</h3>
      <p className="room-actions">
        <button type="button" disabled={!linked || open || revealed} onClick={() => roomClientOf(store)?.open(phase)} data-testid="room-quiz-open">
          {t('roomOpenQuiz')}
        </button>{' '}
        <button type="button" disabled={!linked || revealed} onClick={() => roomClientOf(store)?.reveal(phase)} data-testid="room-quiz-reveal">
          {t('roomReveal')}
        </button>
      </p>
      <ol className="room-quiz-list">
        {QUIZ.map((q, i) => (
          <li key={i}>
            {L(q.question, lang)} <span className="hint">({q.facts.map((f) => `${t('fact')} ${f}`).join(', ')})</span>
            <RoomTally question={`${phase}:${i}`} options={q.options.map((o) => L(o, lang))} correct={q.answer} bringIntoView={phase === 'pre' && i === 0} />
          </li>
        ))}
      </ol>
      {phase === 'post' && gain ? (
        <>
          <p ref={gainLine} className="room-gain" data-testid="room-gain" role="status">
            {gain.gain === undefined ? t('roomGainMissing') : t('roomGain', { g: formatFixed(gain.gain, lang, 2), pre: pct(gain.pre), post: pct(gain.post) })}
          </p>
          <button type="button" disabled={gain.pre === undefined && gain.post === undefined} onClick={() => downloadCsv(gainCsv(gain.state, QUIZ_ANSWERS), 'room-gain.csv')} data-testid="room-export">
            {t('roomExport')}
          </button>
        </>
      ) : null}
    </section>
  );
}
