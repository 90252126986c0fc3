/**
 * The room's state machine: where the presenter is, which question is open, and every acknowledged
 * answer (one per attendee and question; the last one counts, a resend with the same answer id is a no-op).
 * Pure and deterministic: the server applies events to it, and replaying the data file's events
 * rebuilds it exactly after a restart.
 */

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

export interface RoomState {
  chapter: number;
  beat: number;
  open: string | null;
  revealed: ReadonlySet<string>;
  /** question -> attendee -> answer */
  answers: ReadonlyMap<string, ReadonlyMap<string, Answer>>;
  /** Answer ids already applied: a resend after reconnect is acknowledged but not counted twice. */
  seen: ReadonlySet<string>;
}

export const emptyRoom = (): RoomState => ({
  chapter: 0,
  beat: 0,
  open: null,
  revealed: new Set(),
  answers: new Map(),
  seen: new Set(),
});

/** Applies one event; returns the same object when the event changes nothing (a duplicate answer). */
export function applyEvent(state: RoomState, event: RoomEvent): RoomState {
  switch (event.kind) {
    case 'goto':
      return { ...state, chapter: event.chapter, beat: event.beat };
    case 'open':
      return { ...state, open: event.question };
    case 'reveal': {
      const revealed = new Set(state.revealed);
      revealed.add(event.question);
      return { ...state, revealed, open: state.open === event.question ? null : state.open };
    }
    case 'answer': {
      if (state.seen.has(event.answerId)) return state;
      const seen = new Set(state.seen);
      seen.add(event.answerId);
      const answers = new Map(state.answers);
      const byAttendee = new Map(answers.get(event.question) ?? []);
      const { kind: _kind, ...answer } = event;
      byAttendee.set(event.attendee, answer);
      answers.set(event.question, byAttendee);
      return { ...state, answers, seen };
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

/** Whether answers to `question` are taken now: it is open itself, or its quiz (`pre`, `post`) is. */
export const isOpen = (state: RoomState, question: string): boolean =>
  state.open !== null && (state.open === question || question.startsWith(`${state.open}:`));

/** Answer counts of every question, and the distributions of the revealed ones: what the room sees. */
export function publicView(state: RoomState, options = 8): { counts: Record<string, number>; revealed: Record<string, number[]> } {
  const counts: Record<string, number> = {};
  const revealed: Record<string, number[]> = {};
  for (const [question, byAttendee] of state.answers) counts[question] = byAttendee.size;
  for (const group of state.revealed) {
    for (const question of state.answers.keys()) {
      if (question === group || question.startsWith(`${group}:`)) revealed[question] = distribution(state, question, options);
    }
  }
  return { counts, revealed };
}

export const answerCount = (state: RoomState, question: string): number => state.answers.get(question)?.size ?? 0;

/** Serialises one event as a data-file line. */
export const eventLine = (event: RoomEvent): string => `${JSON.stringify(event)}\n`;

/**
 * Rebuilds the room from the data file's text. A torn last line (the server killed mid-write, before
 * its fsync and ack) is skipped: only acknowledged answers were promised to survive.
 */
export function replay(text: string): RoomState {
  let state = emptyRoom();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let event: RoomEvent;
    try {
      event = JSON.parse(line) as RoomEvent;
    } catch {
      continue;
    }
    state = applyEvent(state, event);
  }
  return state;
}
