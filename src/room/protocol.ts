/**
 * The room's wire protocol: every message a phone or the presenter may send, and every message the
 * server sends back, as valibot schemas. The server parses each incoming frame with `parseClientMessage`
 * and drops (and counts) anything that does not match, so no handler ever sees an unchecked shape.
 * Pure TS: shared by the Node server and the page.
 */
import * as v from 'valibot';

/** Largest frame the server accepts (the ws maxPayload): a message here is a few hundred bytes. */
export const MAX_MESSAGE_BYTES = 2048;

/** An attendee's random id (kept in localStorage) or an answer id: short, url-safe, no personal data. */
const Id = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{8,64}$/));
const Chapter = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(99));
const Beat = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(999));
/** A question's key: a chapter's predict question (`ch:N`) or a pre/post quiz item (`pre:i`, `post:i`). */
export const QuestionKey = v.pipe(v.string(), v.regex(/^(ch:\d{1,2}|pre:[0-2]|post:[0-2])$/));
/** What the presenter opens or reveals: one question, or a whole quiz (`pre`, `post`: its three items at once). */
const OpenKey = v.pipe(v.string(), v.regex(/^(ch:\d{1,2}|pre|post|pre:[0-2]|post:[0-2])$/));
const Choice = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(7));

export const ClientMessage = v.variant('type', [
  /** An attendee says who it is; the server answers with a token bound to this socket. */
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

/** What the server sends: the room's public view (never the key, never another attendee's id). */
export type ServerMessage =
  | { type: 'welcome'; token: string }
  | { type: 'ack'; answerId: string }
  /** Sent once to a socket that proved the presenter key. */
  | { type: 'presenter' }
  /** An answer the room did not take (its question is not open, or the token is not this socket's). */
  | { type: 'refused'; answerId: string }
  | {
      type: 'room';
      chapter: number;
      beat: number;
      /** The question now open for answers, if any. */
      open: string | null;
      /** How many attendees answered each question so far. */
      counts: Record<string, number>;
      /** For revealed questions only: how many chose each option. */
      revealed: Record<string, number[]>;
    };
