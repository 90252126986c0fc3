/**
 * A workshop room as the page sees it: the pure side of its client (run/roomClient.ts). What the
 * server said (the presenter's chapter and beat, the question open, the counts, the revealed
 * distributions), this attendee's own answers and whether the room acknowledged them, and the rules
 * the client keeps: an answer not acknowledged when the socket drops is sent again once on the next
 * connection (the server counts an answer id once), never more; reconnecting waits longer each try.
 * No socket, no timer, no DOM: the tests drive it message by message.
 */
import { ROOM_CLOSE, type RefusedReason, type ServerMessage } from '../../room/protocol.ts';
import { emptyRoom, type Answer, type RoomState } from '../../room/state.ts';
import type { UrlState } from './store.ts';

export type RoomRole = 'attendee' | 'presenter';
/**
 * `connecting`: never connected yet; `open`: welcomed (or confirmed as presenter); `reconnecting`: lost,
 * trying again; `refused`: the room closed this page's socket for good (`RoomView.refused` says why),
 * and the page does not try again with the same credentials.
 */
export type RoomLink = 'connecting' | 'open' | 'reconnecting' | 'refused';
/** Why the room would not take this page: its presenter key is not the room's; its address brought as many attendees as the room takes. */
export type RoomRefusal = 'key' | 'address';

/** One answer of this attendee: sending (not acknowledged yet), acked, refused (its question closed), lost (sent twice, never acknowledged). */
export type MyAnswerState = 'sending' | 'acked' | 'refused' | 'lost';

export interface MyAnswer {
  answerId: string;
  choice: number;
  state: MyAnswerState;
  /** The choice the room last acknowledged for this question (it still counts if a later one is refused). */
  taken?: number;
  /** Why the room refused this one (`state` is `refused`). */
  refusedFor?: RefusedReason;
}

export interface RoomView {
  name: string;
  /** What this page asked to be: the presenter when it was opened with the key. */
  role: RoomRole;
  link: RoomLink;
  /** The server took the key. */
  presenterConfirmed: boolean;
  /** A room message has arrived: chapter and beat are the room's, not defaults. */
  synced: boolean;
  /** The presenter's chapter (1-based; 0 before the first) and beat. */
  chapter: number;
  beat: number;
  open: string | null;
  counts: Readonly<Record<string, number>>;
  revealed: Readonly<Record<string, readonly number[]>>;
  /** This attendee's answers, by question. */
  mine: Readonly<Record<string, MyAnswer>>;
  /** The attendee follows the presenter (off once they look around: `stillFollowing`; the "back to the presenter" button sets it again). */
  following: boolean;
  /** Set when the room closed the socket for good (`link` is `refused` then). */
  refused: RoomRefusal | null;
  /**
   * The presenter's moves sent and not yet seen in a room message, by question or quiz (`ch:2`, `pre`):
   * a second press that arrives before the room's echo of the first is read as following it (open,
   * then reveal), so no press is lost to the round trip.
   */
  moving: Readonly<Record<string, 'open' | 'reveal'>>;
}

export function initialRoomView(name: string, role: RoomRole): RoomView {
  return { name, role, link: 'connecting', presenterConfirmed: false, synced: false, chapter: 0, beat: 0, open: null, counts: {}, revealed: {}, mine: {}, following: role === 'attendee', refused: null, moving: {} };
}

function withAnswerState(view: RoomView, answerId: string, state: MyAnswerState, reason?: RefusedReason): RoomView {
  const entry = Object.entries(view.mine).find(([, a]) => a.answerId === answerId);
  if (!entry || entry[1].state === state) return view;
  const answer: MyAnswer = { ...entry[1], state };
  if (state === 'acked') answer.taken = answer.choice;
  if (state === 'refused' && reason) answer.refusedFor = reason;
  return { ...view, mine: { ...view.mine, [entry[0]]: answer } };
}

/**
 * Where the page is: its chapter and beat, and what a beat puts on screen that a person moves to look
 * around (the scenario and its switches, the comparison, the view, the incident's instant, the
 * request and page picked). The stage's handoff clock is not in it: it plays on by itself.
 */
export const PLACE = ['chapter', 'beat', 'scenario', 'switches', 'compare', 'view', 'time', 'selectedRequest', 'selectedPage'] as const satisfies readonly (keyof UrlState)[];
export type Place = Pick<UrlState, (typeof PLACE)[number]>;

const samePart = (a: unknown, b: unknown) => Object.is(a, b) || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));

/** The page is where it was (objects compared by value: a switch set back to what it was is no move). */
export const samePlace = (a: Place, b: Place): boolean => PLACE.every((k) => samePart(a[k], b[k]));

/**
 * The one rule of following. An attendee follows the presenter from the moment they join, and stops
 * when they move the page themselves once there is a talk to follow (the presenter has opened a
 * chapter): a scrub of the incident's timeline, another view, chapter or beat, scenario or switch,
 * request or page. What the room itself does to the page (`byRoom`: the presenter's beat applied,
 * its picture played) is never the attendee leaving. Once off, only the "back to the presenter"
 * button follows again. A presenter never follows.
 */
export function stillFollowing(view: RoomView, before: Place, after: Place, byRoom: boolean): boolean {
  if (view.role !== 'attendee' || !view.following) return false;
  return byRoom || !presenterStarted(view) || samePlace(before, after);
}

/** The presenter has opened a chapter: there is a beat to follow. */
export const presenterStarted = (view: Pick<RoomView, 'synced' | 'chapter'>): boolean => view.synced && view.chapter >= 1;

/** An attendee who looked around while the talk goes on: the "back to the presenter" button shows. */
export const awayFromPresenter = (view: RoomView): boolean => view.role === 'attendee' && !view.following && presenterStarted(view);

/** A server message applied to what the page knows. */
export function reduceRoom(view: RoomView, msg: ServerMessage): RoomView {
  switch (msg.type) {
    case 'welcome':
      return { ...view, link: 'open' };
    case 'presenter':
      return { ...view, link: 'open', presenterConfirmed: true };
    case 'ack':
      return withAnswerState(view, msg.answerId, 'acked');
    case 'refused':
      return withAnswerState(view, msg.answerId, 'refused', msg.reason);
    case 'room': {
      // A move the room now shows is no longer on its way.
      const moving = Object.fromEntries(
        Object.entries(view.moving).filter(([q, move]) => (move === 'open' ? msg.open !== q : msg.revealed[q] === undefined && msg.revealed[`${q}:0`] === undefined)),
      );
      return { ...view, synced: true, chapter: msg.chapter, beat: msg.beat, open: msg.open, counts: msg.counts, revealed: msg.revealed, moving };
    }
  }
}

/** Whether the room takes answers to `question` now (it is open, or its quiz is). */
export const roomTakes = (view: Pick<RoomView, 'open'>, question: string): boolean =>
  view.open !== null && (view.open === question || question.startsWith(`${view.open}:`));

/** The revealed distribution of a question over its `size` options, or null while it is not revealed. */
export function revealedCounts(view: Pick<RoomView, 'revealed'>, question: string, size: number): number[] | null {
  const d = view.revealed[question];
  return d ? Array.from({ length: size }, (_, i) => d[i] ?? 0) : null;
}

/** An answer waiting for its acknowledgement: how many times it went out. */
export interface Outgoing {
  answerId: string;
  question: string;
  choice: number;
  sends: number;
}

/** The answers the client holds until the room acknowledges them. */
export class Outbox {
  private items: Outgoing[] = [];

  /** A new answer to `question` replaces one still waiting for the same question (the last one counts). */
  add(item: Omit<Outgoing, 'sends'>): Outgoing {
    const o = { ...item, sends: 0 };
    this.items = [...this.items.filter((i) => i.question !== item.question), o];
    return o;
  }

  /** It went out on the socket. */
  sent(answerId: string): void {
    for (const i of this.items) if (i.answerId === answerId) i.sends++;
  }

  /** The room answered it (ack or refused): nothing more to send. */
  settle(answerId: string): void {
    this.items = this.items.filter((i) => i.answerId !== answerId);
  }

  /**
   * A connection is up: what to send on it. Never sent yet: now; sent once and never acknowledged:
   * once more (the server dedupes by answer id); sent twice: given up, the attendee is told.
   */
  onConnected(): { send: Outgoing[]; lost: Outgoing[] } {
    const lost = this.items.filter((i) => i.sends >= 2);
    this.items = this.items.filter((i) => i.sends < 2);
    return { send: [...this.items], lost };
  }

  get pending(): readonly Outgoing[] {
    return this.items;
  }
}

/**
 * What a socket's close code says (the server's `ROOM_CLOSE`): the room refused this page for good,
 * and why, or null for a connection merely lost (the client reconnects).
 */
export function refusalOf(code: number | undefined): RoomRefusal | null {
  if (code === ROOM_CLOSE.keyRefused) return 'key';
  if (code === ROOM_CLOSE.addressFull) return 'address';
  return null;
}

/** How long to wait before reconnection try `attempt` (0-based): 250 ms doubling to 5 s, with up to a fifth of jitter so phones spread out. */
export function backoffMs(attempt: number, random: number): number {
  const base = Math.min(5000, 250 * 2 ** Math.min(attempt, 10));
  return Math.round(base * (1 - 0.2 * random));
}

/** The presenter key in a URL fragment (`#key=…`), or null. It never goes into the query string. */
export function keyFromHash(hash: string): string | null {
  const key = new URLSearchParams(hash.replace(/^#/, '')).get('key');
  return key !== null && /^[A-Za-z0-9_-]{8,64}$/.test(key) ? key : null;
}

/**
 * A room state with the revealed distributions as anonymous answers: what the gain and its CSV
 * (room/gain.ts) need, counts per option, without anyone's id.
 */
export function stateFromRevealed(revealed: Readonly<Record<string, readonly number[]>>): RoomState {
  const answers = new Map<string, Map<string, Answer>>();
  for (const [question, counts] of Object.entries(revealed)) {
    const byAttendee = new Map<string, Answer>();
    counts.forEach((n, choice) => {
      for (let k = 0; k < n; k++) {
        const id = `${question}#${byAttendee.size}`;
        byAttendee.set(id, { answerId: id, attendee: id, question, choice });
      }
    });
    answers.set(question, byAttendee);
  }
  return { ...emptyRoom(), answers };
}
