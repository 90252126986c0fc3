/**
 * The page's side of a workshop room (`?room=NAME`; the server is scripts/workshop/room-server.ts):
 * one WebSocket to the page's own origin (`/room`, so the CSP's `connect-src 'self'` covers it). It
 * says hello with this browser's random attendee id (localStorage; no name, no account), or proves
 * the presenter key the page was opened with (`#key=…`, never sent anywhere else). It reconnects on its
 * own, waiting longer each try (state/room.ts `backoffMs`), and sends an answer the room had not
 * acknowledged again once on the next connection (the server counts an answer id once).
 *
 * `startRoom` binds a client to a store: the room's view goes into the store's room slice, and an
 * attendee who follows the presenter has the walkthrough's chapter and beat set from the room. Every
 * change of the page's place is put to the one rule of following (state/room.ts `stillFollowing`):
 * what the room writes (here, and the walkthrough's runner showing the room's beat, through
 * `asRoom`) keeps the attendee following; a move of their own stops it, until the "back to the
 * presenter" button. Without `?room` the page never calls it: no socket, no request.
 */
import type { ClientMessage, ServerMessage } from '../../room/protocol.ts';
import type { AppStore } from '../state/store.ts';
import { backoffMs, initialRoomView, keyFromHash, Outbox, reduceRoom, refusalOf, stillFollowing, type RoomView } from '../state/room.ts';

/** The part of the WebSocket API the client uses (the browser's, or `ws` in Node tests). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}
export type SocketFactory = (url: string) => SocketLike;

export interface RoomClientOptions {
  url: string;
  room: string;
  /** The presenter key, or null for an attendee. */
  key: string | null;
  attendee: string;
  socket: SocketFactory;
  onView: (view: RoomView) => void;
  random?: () => number;
  newId?: () => string;
}

const OPEN = 1;

/** A random url-safe id (the server accepts 8 to 64 of [A-Za-z0-9_-]). */
export function randomId(): string {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'[b & 63]).join('');
}

export class RoomClient {
  private ws: SocketLike | null = null;
  private token: string | null = null;
  private attempt = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private readonly outbox = new Outbox();
  /** The presenter's last move: sent when the socket is up, kept while it is not. */
  private lastGoto: { chapter: number; beat: number } | null = null;
  private view: RoomView;

  constructor(private readonly o: RoomClientOptions) {
    this.view = initialRoomView(o.room, o.key ? 'presenter' : 'attendee');
    this.connect();
  }

  get current(): RoomView {
    return this.view;
  }

  private update(view: RoomView): void {
    if (view === this.view) return;
    this.view = view;
    this.o.onView(view);
  }

  private raw(msg: ClientMessage): boolean {
    const ws = this.ws;
    if (!ws || ws.readyState !== OPEN) return false;
    ws.send(JSON.stringify(msg));
    return true;
  }

  private connect(): void {
    if (this.stopped) return;
    const ws = this.o.socket(this.o.url);
    this.ws = ws;
    ws.onopen = () => {
      if (this.o.key) this.raw({ type: 'presenter', key: this.o.key });
      else this.raw({ type: 'hello', attendee: this.o.attendee });
    };
    ws.onmessage = (ev) => {
      let msg: ServerMessage;
      try {
        msg = JSON.parse(String(ev.data)) as ServerMessage;
      } catch {
        return;
      }
      this.receive(msg);
    };
    ws.onerror = () => undefined;
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.token = null;
      if (this.stopped) return;
      // Refused for good (a key that is not the room's, an address that brought too many): said, not retried.
      const refused = refusalOf((ev as { code?: number } | null)?.code);
      if (refused) {
        this.stopped = true;
        this.update({ ...this.view, link: 'refused', refused, presenterConfirmed: false });
        return;
      }
      // Moves on their way died with the socket: the room's next message says what it holds.
      this.update({ ...this.view, link: this.view.link === 'connecting' ? 'connecting' : 'reconnecting', presenterConfirmed: false, moving: {} });
      const wait = backoffMs(this.attempt++, (this.o.random ?? Math.random)());
      this.timer = setTimeout(() => this.connect(), wait);
    };
  }

  private receive(msg: ServerMessage): void {
    if (msg.type === 'welcome') {
      this.token = msg.token;
      this.attempt = 0;
      this.update(reduceRoom(this.view, msg));
      const { send, lost } = this.outbox.onConnected();
      if (lost.length > 0) {
        const mine = { ...this.view.mine };
        for (const l of lost) if (mine[l.question]?.answerId === l.answerId) mine[l.question] = { ...mine[l.question]!, state: 'lost' };
        this.update({ ...this.view, mine });
      }
      for (const o of send) this.sendAnswer(o.answerId, o.question, o.choice);
      return;
    }
    if (msg.type === 'presenter') {
      this.attempt = 0;
      this.update(reduceRoom(this.view, msg));
      if (this.lastGoto) this.goto(this.lastGoto.chapter, this.lastGoto.beat);
      return;
    }
    if (msg.type === 'ack' || msg.type === 'refused') this.outbox.settle(msg.answerId);
    this.update(reduceRoom(this.view, msg));
  }

  private sendAnswer(answerId: string, question: string, choice: number): void {
    if (this.token === null) return;
    if (this.raw({ type: 'answer', token: this.token, answerId, question, choice })) this.outbox.sent(answerId);
  }

  /** This attendee's answer to `question` (option index): sent now if connected, else on the next connection. */
  answer(question: string, choice: number): void {
    if (this.view.role !== 'attendee') return;
    const answerId = (this.o.newId ?? randomId)();
    this.outbox.add({ answerId, question, choice });
    const taken = this.view.mine[question]?.taken;
    this.update({ ...this.view, mine: { ...this.view.mine, [question]: { answerId, choice, state: 'sending', ...(taken === undefined ? {} : { taken }) } } });
    this.sendAnswer(answerId, question, choice);
  }

  /** The presenter's moves (ignored on an attendee's page; the server checks the key anyway). */
  goto(chapter: number, beat: number): void {
    if (!this.o.key) return;
    this.lastGoto = { chapter, beat };
    if (this.view.presenterConfirmed) this.raw({ type: 'goto', key: this.o.key, chapter, beat });
  }
  open(question: string): void {
    if (this.o.key && this.view.presenterConfirmed && this.raw({ type: 'open', key: this.o.key, question })) this.moved(question, 'open');
  }
  close(): void {
    if (this.o.key && this.view.presenterConfirmed) this.raw({ type: 'close', key: this.o.key });
  }
  reveal(question: string): void {
    if (this.o.key && this.view.presenterConfirmed && this.raw({ type: 'reveal', key: this.o.key, question })) this.moved(question, 'reveal');
  }

  /** A move on its way to the room, until a room message shows it (or the connection drops). */
  private moved(question: string, move: 'open' | 'reveal'): void {
    this.update({ ...this.view, moving: { ...this.view.moving, [question]: move } });
  }

  /** Follow the presenter again (or stop following, when an attendee looks around). */
  setFollowing(following: boolean): void {
    if (this.view.following !== following) this.update({ ...this.view, following });
  }

  /** Answers still waiting for their acknowledgement (for tests and the status line). */
  get unacknowledged(): number {
    return this.outbox.pending.length;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.ws?.close();
    this.ws = null;
  }
}

const clients = new WeakMap<AppStore, RoomClient>();
/** Per store in a room: how deep the room's own writes to it are nested now (0: none in progress). */
const roomWrites = new WeakMap<AppStore, { depth: number }>();

/** The room client bound to a store, if the page is in a room. */
export const roomClientOf = (store: AppStore): RoomClient | undefined => clients.get(store);

/**
 * Runs `write` as the room's own change to the page (the presenter's beat applied, its picture
 * played): whatever it moves, an attendee following the presenter still follows.
 */
export function asRoom(store: AppStore, write: () => void): void {
  const writes = roomWrites.get(store);
  if (!writes) return write();
  writes.depth++;
  try {
    write();
  } finally {
    writes.depth--;
  }
}

const ATTENDEE_KEY = 'stale-pages-room-attendee';

/** This browser's random attendee id, kept in localStorage (a fresh one per load where storage is refused). */
function attendeeId(): string {
  try {
    const kept = window.localStorage.getItem(ATTENDEE_KEY);
    if (kept && /^[A-Za-z0-9_-]{8,64}$/.test(kept)) return kept;
    const id = randomId();
    window.localStorage.setItem(ATTENDEE_KEY, id);
    return id;
  } catch {
    return randomId();
  }
}

/**
 * Where the room's view sends a following attendee's walkthrough: the presenter's chapter and beat,
 * whichever of the two differs from the page's (a beat within the chapter as much as another
 * chapter); null where the page is there already, or does not follow (the presenter's own page, an
 * attendee looking around, a view the room has not sent yet).
 */
export function attendeeTarget(view: RoomView, at: { chapter: number | null; beat: number | null }): { chapter: number; beat: number } | null {
  if (!view.synced || view.chapter < 1 || view.role === 'presenter' || !view.following) return null;
  return at.chapter !== view.chapter || at.beat !== view.beat ? { chapter: view.chapter, beat: view.beat } : null;
}

/**
 * Joins `room` on the page's own origin and keeps the store's room slice up to date; an attendee who
 * follows has the walkthrough moved to the presenter's chapter and beat. Returns the function that leaves.
 */
export function startRoom(store: AppStore, room: string, hash: string): () => void {
  const key = keyFromHash(hash);
  const url = `${window.location.protocol === 'https:' ? 'wss' : 'ws'}://${window.location.host}/room`;
  const writes = { depth: 0 };
  roomWrites.set(store, writes);
  /**
   * Puts the walkthrough where the presenter is, when this attendee follows. A presenter's page opened
   * with no chapter of its own on a room already under way (a reload, a restart, another laptop)
   * takes up the room's chapter and beat once, so that it never sends the room back to chapter 1.
   */
  let presenterResumed = false;
  // Whether this attendee's page has shown the presenter's place once. Until then the page's own
  // loading (the first screen's opening instant, a run's clamp of the clock) is not the attendee
  // looking around: under load a run can arrive after the room's welcome and before its beat is shown.
  let joined = false;
  const follow = (view: RoomView) => {
    if (!view.synced || view.chapter < 1) return;
    const s = store.getState();
    if (view.role === 'presenter') {
      if (presenterResumed || !view.presenterConfirmed) return;
      presenterResumed = true;
      if (s.chapter === null) s.set({ chapter: view.chapter, beat: view.beat });
      return;
    }
    if (!view.following) return;
    const to = attendeeTarget(view, s);
    if (to) asRoom(store, () => s.set(to));
    joined = true;
  };
  const client = new RoomClient({
    url,
    room,
    key,
    attendee: attendeeId(),
    socket: (u) => new WebSocket(u) as unknown as SocketLike,
    onView: (view) => {
      store.getState().setRoomView(view);
      follow(view);
    },
  });
  clients.set(store, client);
  store.getState().setRoomView(client.current);
  // Every change to the page is put to the rule of following: an attendee who moves it themselves looks around.
  const unsubscribe = store.subscribe((s, prev) => {
    const view = client.current;
    if (view.following && !stillFollowing(view, prev, s, writes.depth > 0 || !joined)) client.setFollowing(false);
  });
  return () => {
    unsubscribe();
    client.stop();
    clients.delete(store);
    roomWrites.delete(store);
    store.getState().setRoomView(null);
  };
}

/** The "back to the presenter" button: follow again, landing on the presenter's chapter and beat now (the runner shows that beat again). */
export function backToPresenter(store: AppStore): void {
  roomClientOf(store)?.setFollowing(true);
}
