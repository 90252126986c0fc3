/**
 * The room's learning gain: three questions before chapter 1 and the same three after the last.
 * Class-average normalised gain (Hake 1998): g = (post - pre) / (1 - pre), with pre and post the
 * room's average fraction correct.
 */
import type { RoomState } from './state';

/** The room's average fraction correct over the quiz (prefix 'pre' or 'post'); undefined with no answers. */
export function averageCorrect(state: RoomState, prefix: 'pre' | 'post', correct: readonly number[]): number | undefined {
  let right = 0;
  let total = 0;
  for (let i = 0; i < correct.length; i++) {
    for (const a of state.answers.get(`${prefix}:${i}`)?.values() ?? []) {
      total++;
      if (a.choice === correct[i]) right++;
    }
  }
  return total === 0 ? undefined : right / total;
}

/** Hake's class-average gain; undefined when either side is missing or pre is already perfect. */
export function hakeGain(pre: number | undefined, post: number | undefined): number | undefined {
  if (pre === undefined || post === undefined || pre >= 1) return undefined;
  return (post - pre) / (1 - pre);
}

/** The export: one row per quiz question (pre and post), then the gain. Attendees stay anonymous. */
export function gainCsv(state: RoomState, correct: readonly number[]): string {
  const rows = ['phase,question,answers,correct,fraction_correct'];
  for (const prefix of ['pre', 'post'] as const) {
    for (let i = 0; i < correct.length; i++) {
      const answers = [...(state.answers.get(`${prefix}:${i}`)?.values() ?? [])];
      const right = answers.filter((a) => a.choice === correct[i]).length;
      rows.push(`${prefix},${i + 1},${answers.length},${right},${answers.length ? (right / answers.length).toFixed(4) : ''}`);
    }
  }
  const pre = averageCorrect(state, 'pre', correct);
  const post = averageCorrect(state, 'post', correct);
  const g = hakeGain(pre, post);
  rows.push(`gain,,,,${g === undefined ? '' : g.toFixed(4)}`);
  return `${rows.join('\n')}\n`;
}
