/**
 * The room's state machine: where the presenter is, which question is open, which are revealed, and
 * every acknowledged answer (one per attendee and question; the last one counts, a resend with the
 * same answer id is a no-op). Pure and deterministic: the server applies events to it, and replaying
 * the data file's events rebuilds it exactly after a restart.
 *
 * A question goes through three phases, in this order only: waiting (never opened, or closed
 * again), open (it takes answers), revealed (final: its split is public, it takes no answer and
 * cannot be opened again). A quiz (`pre`, `post`) opens and reveals its three items at once.
 *
 * The state is updated in place: an answer costs a few map operations whatever the number of
 * answers before it (a copy per answer made a talk's answers quadratic).
 *
 * The data file is bounded per attendee and question: an attendee's new answer to a question replaces
 * the one before (the last one counts), and the room writes at most `MAX_ANSWERS_PER_QUESTION` answer
 * lines per attendee and question (`answerLines`, rebuilt by the replay); the server refuses the next
 * one (`limit`) before it is written, so a socket flooding answers adds a few kilobytes at most.
 */
import { MAX_OPTIONS, QUIZ_SIZE, type RefusedReason } from './protocol';

export interface Answer {
  answerId: string;
  attendee: string;
  question: string;
  choice: number;
}

/** One line of the data file: every change that must survive a restart. */
export type RoomEvent =
  | { kind: 'goto'; chapter: number; beat: number }
  | { kind: 'open'; question: string | null }
  | { kind: 'reveal'; question: string }
  | ({ kind: 'answer' } & Answer);

/**
 * The most answer lines the room writes for one attendee and one question: a person who changes their
 * mind a few times stays far under it; a flood stops here (each line is under 200 bytes, so an
 * attendee's lines for a question stay under 2 KB).
 */
export const MAX_ANSWERS_PER_QUESTION = 10;

/** The questions a room asks: each question's key (`ch:N`, `pre:i`, `post:i`) and its number of options. */
export type RoomQuestions = ReadonlyMap<string, number>;

export interface RoomState {
  chapter: number;
  beat: number;
  open: string | null;
  /** The revealed questions, item by item (a revealed quiz puts its three items here). */
  revealed: Set<string>;
  /** question -> attendee -> answer */
  answers: Map<string, Map<string, Answer>>;
  /** Answer ids already applied: a resend after reconnect is acknowledged but not counted twice. */
  seen: Set<string>;
  /** How many answer lines each attendee has for each question (`answerKey`): what `MAX_ANSWERS_PER_QUESTION` bounds. */
  answerLines: Map<string, number>;
  /** The questions this room asks; absent: any well-formed key with up to MAX_OPTIONS options (the page's own states). */
  questions?: RoomQuestions;
}

export const emptyRoom = (questions?: RoomQuestions): RoomState => ({
  chapter: 0,
  beat: 0,
  open: null,
  revealed: new Set(),
  answers: new Map(),
  seen: new Set(),
  answerLines: new Map(),
  ...(questions ? { questions } : {}),
});

/** How many options `question` has in this room (0: the room does not ask it). */
export const optionCount = (state: RoomState, question: string): number =>
  state.questions ? (state.questions.get(question) ?? 0) : MAX_OPTIONS;

/** The questions a key names: a quiz (`pre`, `post`) names its items, a question itself; none if the room does not ask it. */
export function itemsOf(state: RoomState, key: string): string[] {
  const items = key === 'pre' || key === 'post' ? Array.from({ length: QUIZ_SIZE }, (_, i) => `${key}:${i}`) : [key];
  return items.filter((q) => optionCount(state, q) > 0);
}

/** The key of an attendee's answers to a question in `RoomState.answerLines`. */
export const answerKey = (question: string, attendee: string): string => `${question} ${attendee}`;

/** Whether answers to `question` are taken now: it is open itself, or its quiz is, and it is not revealed. */
export const isOpen = (state: RoomState, question: string): boolean =>
  state.open !== null && (state.open === question || question.startsWith(`${state.open}:`)) && !state.revealed.has(question);

/** Whether opening `key` would open something: the room asks it and at least one of its questions is not revealed yet. */
export const canOpen = (state: RoomState, key: string): boolean => itemsOf(state, key).some((q) => !state.revealed.has(q));

/** Why an answer would not be taken now, or null when it would. */
export function refusal(state: RoomState, question: string, choice: number): RefusedReason | null {
  if (!isOpen(state, question)) return 'closed';
  if (!Number.isInteger(choice) || choice < 0 || choice >= optionCount(state, question)) return 'choice';
  return null;
}

/**
 * Applies one event in place and returns the state. An event that cannot apply (a duplicate answer, a
 * choice the question does not have, opening what is all revealed, a question the room does not ask)
 * changes nothing: the server never writes one, and a replay skips one that a hand-edited file holds.
 */
export function applyEvent(state: RoomState, event: RoomEvent): RoomState {
  switch (event.kind) {
    case 'goto':
      state.chapter = event.chapter;
      state.beat = event.beat;
      return state;
    case 'open':
      if (event.question === null || canOpen(state, event.question)) state.open = event.question;
      return state;
    case 'reveal': {
      for (const q of itemsOf(state, event.question)) state.revealed.add(q);
      // The open question (or quiz) closes once nothing in it can still be answered.
      if (state.open !== null && !canOpen(state, state.open)) state.open = null;
      return state;
    }
    case 'answer': {
      if (state.seen.has(event.answerId)) return state;
      if (event.choice < 0 || event.choice >= optionCount(state, event.question)) return state;
      state.seen.add(event.answerId);
      const key = answerKey(event.question, event.attendee);
      state.answerLines.set(key, (state.answerLines.get(key) ?? 0) + 1);
      let byAttendee = state.answers.get(event.question);
      if (!byAttendee) state.answers.set(event.question, (byAttendee = new Map()));
      byAttendee.set(event.attendee, { answerId: event.answerId, attendee: event.attendee, question: event.question, choice: event.choice });
      return state;
    }
  }
}

/** How many attendees chose each option (options 0..size-1). */
export function distribution(state: RoomState, question: string, size: number): number[] {
  const counts = new Array<number>(size).fill(0);
  for (const a of state.answers.get(question)?.values() ?? []) {
    if (a.choice < size) counts[a.choice] = (counts[a.choice] ?? 0) + 1;
  }
  return counts;
}

/**
 * Answer counts of every question, and the split of every revealed one (answered or not): what the
 * room sees. Its cost is the number of questions plus the revealed questions' answers, never the
 * room's whole history.
 */
export function publicView(state: RoomState, options = MAX_OPTIONS): { counts: Record<string, number>; revealed: Record<string, number[]> } {
  const counts: Record<string, number> = {};
  const revealed: Record<string, number[]> = {};
  for (const [question, byAttendee] of state.answers) counts[question] = byAttendee.size;
  for (const question of state.revealed) revealed[question] = distribution(state, question, state.questions?.get(question) ?? options);
  return { counts, revealed };
}

export const answerCount = (state: RoomState, question: string): number => state.answers.get(question)?.size ?? 0;

/** Serialises one event as a data-file line. */
export const eventLine = (event: RoomEvent): string => `${JSON.stringify(event)}\n`;

/**
 * A data-file line's event, or why it is not one. The file is the server's own, but a hand edit must
 * not put a wrong shape in the state. Checked by hand, not with a schema: a restart reads every line,
 * and a schema's checks cost more than the JSON parse (a 100,000-line file must replay within a second).
 */
export function readEvent(raw: unknown): RoomEvent | string {
  if (typeof raw !== 'object' || raw === null) return 'not an object';
  const e = raw as Record<string, unknown>;
  const text = (x: unknown) => typeof x === 'string' && x.length <= 64;
  const whole = (x: unknown) => typeof x === 'number' && Number.isInteger(x) && x >= 0;
  switch (e.kind) {
    case 'goto':
      return whole(e.chapter) && whole(e.beat) ? { kind: 'goto', chapter: e.chapter as number, beat: e.beat as number } : 'a goto without a whole chapter and beat';
    case 'open':
      return e.question === null || text(e.question) ? { kind: 'open', question: e.question as string | null } : 'an open without a question';
    case 'reveal':
      return text(e.question) ? { kind: 'reveal', question: e.question as string } : 'a reveal without a question';
    case 'answer':
      return text(e.answerId) && text(e.attendee) && text(e.question) && whole(e.choice)
        ? { kind: 'answer', answerId: e.answerId as string, attendee: e.attendee as string, question: e.question as string, choice: e.choice as number }
        : 'an answer without its id, attendee, question and whole choice';
    default:
      return 'no known kind';
  }
}

/** A line of the data file that replay left out: its number (1-based) and why. */
export interface SkippedLine {
  line: number;
  why: string;
}

/**
 * Rebuilds the room from the data file's text. A torn last line (the server killed mid-write, before
 * its fsync and ack) is skipped: only acknowledged answers were promised to survive. Any other line
 * that is not an event is skipped too and reported through `onSkip`, with its line number.
 */
export function replay(text: string, options: { questions?: RoomQuestions; onSkip?: (skipped: SkippedLine) => void } = {}): RoomState {
  const state = emptyRoom(options.questions);
  const lines = text.split('\n');
  // The last piece is torn unless the file ends with a newline (then it is empty).
  const last = lines.length - 1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    const raw = parseLine(line);
    if (raw === undefined) {
      if (i !== last && line.trim() !== '') options.onSkip?.({ line: i + 1, why: 'not JSON' });
      continue;
    }
    const event = readEvent(raw);
    if (typeof event === 'string') {
      options.onSkip?.({ line: i + 1, why: `not a room event: ${event}` });
      continue;
    }
    applyEvent(state, event);
  }
  return state;
}

/** A line's JSON, or undefined (kept apart from the loop, so its try does not keep the loop from being optimised). */
function parseLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}
