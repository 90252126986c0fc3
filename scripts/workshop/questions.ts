/**
 * The questions the room asks, with their option counts, from the walkthrough itself: each chapter's
 * predict question (`ch:N`, its checkpoint) and the quiz asked before chapter 1 and after the last
 * (`pre:i`, `post:i`). The server checks every answer's choice against them and opens only these.
 */
import { CHAPTERS } from '../../src/app/walkthrough/chapters/index.ts';
import { QUIZ } from '../../src/app/walkthrough/chapters/quiz.ts';
import type { RoomQuestions } from '../../src/room/state.ts';

export function roomQuestions(): RoomQuestions {
  const questions = new Map<string, number>();
  CHAPTERS.forEach((chapter, i) => {
    if (chapter.checkpoint) questions.set(`ch:${i + 1}`, chapter.checkpoint.options.length);
  });
  QUIZ.forEach((q, i) => {
    questions.set(`pre:${i}`, q.options.length);
    questions.set(`post:${i}`, q.options.length);
  });
  return questions;
}
