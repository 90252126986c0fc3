/**
 * The workshop room's three questions on the screen layout (`?screen`, the presenter's page): before
 * chapter 1 on the title, after the last on the end card, while they are open or once revealed. Each
 * question's count, then the room's split; after the post questions, the room's normalised gain.
 * Read-only: the presenter opens and reveals them from the walkthrough's panel.
 */
import { averageCorrect, hakeGain } from '../../room/gain.ts';
import { formatFixed } from '../i18n/format.ts';
import { pick, useT } from '../i18n/i18n.ts';
import { stateFromRevealed } from '../state/room.ts';
import { useApp } from '../state/store.ts';
import { QUIZ, QUIZ_ANSWERS, type QuizPhase } from '../walkthrough/chapters/quiz.ts';
import { RoomTally } from './RoomTally.tsx';

export function ScreenQuiz({ phase }: { phase: QuizPhase }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const shown = useApp((s) => s.roomView?.role === 'presenter' && (s.roomView.open === phase || s.roomView.revealed[`${phase}:0`] !== undefined));
  const revealed = useApp((s) => s.roomView?.revealed);
  if (!shown) return null;
  let gain: number | undefined;
  if (phase === 'post' && revealed) {
    const state = stateFromRevealed(revealed);
    gain = hakeGain(averageCorrect(state, 'pre', QUIZ_ANSWERS), averageCorrect(state, 'post', QUIZ_ANSWERS));
  }
  return (
    <aside className="screen-quiz" aria-label={phase === 'pre' ? t('roomQuizPre') : t('roomQuizPost')} data-testid="screen-quiz" data-phase={phase}>
      <h2>{phase === 'pre' ? t('roomQuizPre') : t('roomQuizPost')}</h2>
      <ol>
        {QUIZ.map((q, i) => (
          <li key={i}>
            <p className="screen-quiz-q">{pick(lang, q.question.en, q.question.fr)}</p>
            <RoomTally question={`${phase}:${i}`} options={q.options.map((o) => pick(lang, o.en, o.fr))} correct={q.answer} />
          </li>
        ))}
      </ol>
      {gain !== undefined ? (
        <p className="screen-quiz-gain" data-testid="screen-gain">
          {t('roomGainShort', { g: formatFixed(gain, lang, 2) })}
        </p>
      ) : null}
    </aside>
  );
}
