/**
 * The room's three questions by the presenter's forward key (keys.ts), on the page and the screen
 * layout alike: before chapter 1 (on the title) and after the last chapter (on the end card), a press
 * opens the questions, the next reveals them, and only then does the talk go on.
 */
import { roomClientOf } from '../run/roomClient.ts';
import type { RoomView } from '../state/room.ts';
import type { AppStore } from '../state/store.ts';
import type { QuizPhase } from './chapters/quiz.ts';

export type QuizPress = { kind: 'open' | 'reveal'; phase: QuizPhase };

/** What the forward key does for the quiz of `phase` now, or null: no room's presenter linked, or the quiz already revealed. */
export function quizPress(view: RoomView | null, phase: QuizPhase | null): QuizPress | null {
  if (phase === null || !view || view.role !== 'presenter' || !view.presenterConfirmed) return null;
  if (view.revealed[`${phase}:0`] !== undefined || view.moving[phase] === 'reveal') return null;
  // Opened by a press whose echo is still on its way: this press reveals.
  return { kind: view.open === phase || view.moving[phase] === 'open' ? 'reveal' : 'open', phase };
}

/** Sends the press to the room. */
export function pressQuiz(store: AppStore, press: QuizPress): void {
  const client = roomClientOf(store);
  if (press.kind === 'open') client?.open(press.phase);
  else client?.reveal(press.phase);
}
