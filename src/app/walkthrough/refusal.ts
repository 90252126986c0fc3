/**
 * Why a press in the walkthrough does not act now, in words: a press that is kept (Next while the
 * chapter prepares or plays on to its question) or that cannot act (a number key where no question
 * waits). Pure: the panel shows the sentence in a status line beside Next, so a person who pressed
 * and saw nothing move knows whether to wait, press again or do something else.
 */
import type { MessageKey } from '../i18n/messages.ts';
import type { RunnerStatus } from './runner.ts';

export interface PressRefusal {
  key: MessageKey;
  vars?: Record<string, string>;
}

export interface WalkState {
  status: RunnerStatus;
  /** The chapter's runs are computed and its beats laid out (false while it prepares). */
  ready: boolean;
  /** The chapter asks a question that is not revealed yet (and this page reveals it: not a room's attendee). */
  questionAhead: boolean;
  /** The room's last questions wait for the chapter's end (a room's presenter, last chapter). */
  quizAfter: boolean;
}

/** Why Next is kept instead of acting, or null when it acts now (next chapter, the question pointed at or revealed). */
export function whyNextWaits(s: WalkState): PressRefusal | null {
  if (s.status !== 'running') return null;
  if (!s.ready) return { key: 'walkWaitPreparing' };
  if (s.questionAhead) return { key: 'walkWaitQuestion' };
  if (s.quizAfter) return { key: 'walkWaitEnd' };
  return null;
}

export interface QuestionState {
  status: RunnerStatus;
  /** How many options the chapter's question has; 0: the chapter asks none. */
  options: number;
  /** The question is already answered (revealed). */
  answered: boolean;
}

/** Why number key `n` answers nothing, or null when it chooses option n of the question on screen. */
export function whyOptionRefused(n: number, q: QuestionState): PressRefusal | null {
  if (q.options === 0) return { key: 'walkKeysNoQuestion' };
  if (q.answered) return { key: 'walkKeysAnswered' };
  if (q.status !== 'checkpoint') return { key: 'walkKeysNotYet', vars: { n: String(q.options) } };
  if (n > q.options) return { key: 'walkKeysRange', vars: { n: String(q.options) } };
  return null;
}
