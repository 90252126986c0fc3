/**
 * The room's wire protocol: every message a phone or the presenter may send, and every message the
 * server sends back, as valibot schemas. The server parses each incoming frame with `parseClientMessage`
 * and drops (and counts) anything that does not match, so no handler ever sees an unchecked shape.
 * Pure TS: shared by the Node server and the page.
 */
import * as v from 'valibot';

/** Largest frame the server accepts (the ws maxPayload): a message here is a few hundred bytes. */
export const MAX_MESSAGE_BYTES = 2048;

/** How many questions each quiz has (`pre:0…2`, `post:0…2`): the same three before and after the talk. */
export const QUIZ_SIZE = 3;
/** The most options a question may have (a choice is an option's index). */
export const MAX_OPTIONS = 8;

/**
 * An attendee's random id (kept in localStorage), an answer id, a token or the presenter key: short,
 * url-safe, no personal data. The page reads the key from its URL's fragment with the same rule, so a
 * key the server is started with must match it or no page could ever prove it.
 */
export const ID_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;
const Id = v.pipe(v.string(), v.regex(ID_PATTERN));
const Chapter = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(99));
const Beat = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(999));
/** A question's key: a chapter's predict question (`ch:N`) or a pre/post quiz item (`pre:i`, `post:i`). */
export const QuestionKey = v.pipe(v.string(), v.regex(/^(ch:\d{1,2}|pre:[0-2]|post:[0-2])$/));
/** What the presenter opens or reveals: one question, or a whole quiz (`pre`, `post`: its three items at once). */
const OpenKey = v.pipe(v.string(), v.regex(/^(ch:\d{1,2}|pre|post|pre:[0-2]|post:[0-2])$/));
const Choice = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(MAX_OPTIONS - 1));

export const ClientMessage = v.variant('type', [
  /**
   * An attendee says who it is; the server answers with a token bound to this socket. `attendee` is a
   * secret the phone alone holds (random, kept in its localStorage): the server keys the attendee by a
   * hash of it, so the secret is never written to the data file nor sent to anyone, and whoever reads
   * the file cannot speak as that phone. One socket at a time may hold an attendee: a second `hello`
   * with it while the first socket is connected is refused (`ROOM_CLOSE.attendeeConnected`).
   */
  v.object({ type: v.literal('hello'), attendee: Id }),
  /** An answer; `answerId` makes a resend after reconnect idempotent. */
  v.object({ type: v.literal('answer'), token: Id, answerId: Id, question: QuestionKey, choice: Choice }),
  /** Presenter-only messages carry the presenter key; the server checks it before acting. */
  v.object({ type: v.literal('presenter'), key: Id }),
  v.object({ type: v.literal('goto'), key: Id, chapter: Chapter, beat: Beat }),
  v.object({ type: v.literal('open'), key: Id, question: OpenKey }),
  v.object({ type: v.literal('close'), key: Id }),
  v.object({ type: v.literal('reveal'), key: Id, question: OpenKey }),
]);
export type ClientMessage = v.InferOutput<typeof ClientMessage>;

/** Parses one raw frame; `undefined` for anything oversized, not JSON, or not a known message. */
export function parseClientMessage(raw: string): ClientMessage | undefined {
  if (raw.length > MAX_MESSAGE_BYTES) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return undefined;
  }
  const result = v.safeParse(ClientMessage, data);
  return result.success ? result.output : undefined;
}

/**
 * Why the room did not take an answer: its question is not open now (never opened, closed, or
 * already revealed: `closed`); the choice is not one of the question's options (`choice`); the
 * token is not this socket's (`token`); this attendee already changed their answer to this question
 * as many times as the room writes (`limit`: `MAX_ANSWERS_PER_QUESTION` in state.ts; the answer they
 * gave last still counts).
 */
export type RefusedReason = 'closed' | 'choice' | 'token' | 'limit';

/**
 * Close codes (WebSocket's range for applications) with which the server ends a socket, for the page
 * to say why (`CloseEvent.code`; the reason text is for logs). A page that gets one should not
 * reconnect with the same credentials: the answer would be the same.
 * - `keyRefused`: the presenter key is not this room's (the page was opened with another key, or the
 *   room was started with another `--key`); nothing it sent as presenter was taken.
 * - `addressFull`: sent by servers before the per-address limit counted open sockets (it counted
 *   every attendee an address ever brought). A server now answers an upgrade from an address with
 *   `--max-per-address` sockets open with HTTP 429 (a phone retries on its own and gets in once one
 *   of them closes); the page still says this code if an older server sends it.
 * - `idle`: nothing came from this socket for the server's `--idle-timeout` (not even the pong a
 *   browser sends to the server's ping by itself), or it never said who it is: a phone that sleeps
 *   or lost its network. Not a refusal: a page that is there again reconnects.
 * - `attendeeConnected`: another socket holds this attendee right now (the same phone's other tab,
 *   or its previous connection not closed yet). Not a refusal for good: the server pings the other
 *   socket, and a reconnection once it failed to answer (about two seconds) is taken.
 */
export const ROOM_CLOSE = { keyRefused: 4001, idle: 4008, attendeeConnected: 4009, addressFull: 4029 } as const;

/** What the server sends: the room's public view (never the key, never another attendee's id). */
export type ServerMessage =
  | { type: 'welcome'; token: string }
  | { type: 'ack'; answerId: string }
  /** Sent once to a socket that proved the presenter key. */
  | { type: 'presenter' }
  /** An answer the room did not take; `reason` says why (absent from servers before it was added). */
  | { type: 'refused'; answerId: string; reason?: RefusedReason }
  | {
      type: 'room';
      chapter: number;
      beat: number;
      /** The question now open for answers, if any. */
      open: string | null;
      /** How many attendees answered each question so far. */
      counts: Record<string, number>;
      /**
       * Every revealed question (each item of a revealed quiz), answered or not: how many chose each
       * of its options. A question is here exactly when it is revealed.
       */
      revealed: Record<string, number[]>;
    };
