/**
 * The workshop's room server: serves the built site (dist/) and one room over WebSocket (`/room`).
 * The room's rules live in src/room (pure); this file is the Node side: sockets, the data file, limits.
 *
 * - No request ends the process: every HTTP request, upgrade and frame is checked before use, and
 *   anything malformed gets a 4xx (or is dropped and counted); a handler that throws all the same
 *   answers 500 or closes that one socket, never the server.
 * - Only a socket that sent the presenter key moves the room (goto/open/close/reveal); a wrong key
 *   gets its socket closed with `ROOM_CLOSE.keyRefused`, which the page can say. The key is kept
 *   beside the data file (`<data>.key`), so a restart on the same file keeps it and the presenter's
 *   open page carries on.
 * - One attendee per socket: the secret of its first `hello` (another later is ignored), kept as its
 *   hash (`attendeeKey`: the data file never holds the secret); the server hands back a token, and an
 *   answer is taken only with the token of the socket it arrives on, for an open question and one of
 *   its options. A second socket saying `hello` with an attendee connected right now is closed with
 *   `ROOM_CLOSE.attendeeConnected`; the first is pinged, and once it failed to answer for
 *   `PROBE_GRACE_MS` (a phone that changed networks), the next `hello` takes the attendee over.
 * - One address holds at most `maxPerAddress` open sockets (phones behind one router share an
 *   address, so the default is generous); an upgrade over it gets HTTP 429 with the flag to raise it,
 *   the command is told once per time the address fills (`onAddressFull`), and the phone retries
 *   until a socket of that address closes.
 * - Idle connections are closed: nothing received for `idleTimeoutMs` (no request, no frame, no pong
 *   to the ping the server sends a socket quiet for half of it; a browser answers pings by itself), or
 *   a socket that never said who it is within it, is closed (`ROOM_CLOSE.idle` on a WebSocket, 408 on
 *   HTTP). A response still being sent is not idle, until it has not moved for as long (a peer that
 *   stopped reading).
 * - The data file is bounded per attendee and question (`MAX_ANSWERS_PER_QUESTION` lines; the next is
 *   refused with `limit` before it is written).
 * - The upgrade to `/room` needs an Origin, the page's own (or one allowed by name): a page of
 *   another site cannot join the room from a visitor's browser, and a client with no Origin is not a
 *   browser on the room's page.
 * - Every frame is bounded (maxPayload), parsed with the protocol's schema and rate-limited per
 *   socket (token bucket; a presenter's is larger, its moves are never the ones dropped).
 * - Answers are appended to the data file and fsynced before their ack (group commit, the fsync off
 *   the event loop); a restart replays the file, so every acknowledged answer and the current beat survive. The port
 *   is taken before the replay, so a port in use is said at once.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, createReadStream, existsSync, fsync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { dirname, extname, join, posix, relative, resolve, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { ID_PATTERN, MAX_MESSAGE_BYTES, parseClientMessage, ROOM_CLOSE, type RefusedReason, type ServerMessage } from '../../src/room/protocol';
import { answerKey, applyEvent, canOpen, eventLine, itemsOf, MAX_ANSWERS_PER_QUESTION, publicView, refusal, replay, type RoomEvent, type RoomQuestions, type RoomState, type SkippedLine } from '../../src/room/state';
import { TokenBucket } from '../../src/room/bucket';
import { roomQuestions } from './questions';

export interface RoomServerOptions {
  port: number;
  host: string;
  /** The data file (JSON lines); created if missing, replayed if present. */
  data: string;
  /** The built site to serve; omitted: sockets only (the bench). */
  dist?: string;
  /** The presenter key (kept in the key file for the next start); omitted: the key file's, or a fresh one written there. */
  key?: string;
  /** An attendee socket's rate: burst and refill per second (the room's: 20 and 10/s). */
  burst?: number;
  perSecond?: number;
  /** Sockets one network address may hold open at once (default 256); a socket closed frees its place. */
  maxPerAddress?: number;
  /** Told when an address first reaches `maxPerAddress` open sockets (again once it was under it), for the command to say. */
  onAddressFull?: (address: string, open: number) => void;
  /** A connection from which nothing arrived for this long is closed (default `DEFAULT_IDLE_TIMEOUT_MS`). */
  idleTimeoutMs?: number;
  /** Answer lines written per attendee and question at most (default `MAX_ANSWERS_PER_QUESTION`; the bench lifts it with the rate limit). */
  maxAnswersPerQuestion?: number;
  /** The time and the idle sweep's timer (default: the system's); a test passes its own to drive the idle timeout. */
  clock?: RoomClock;
  /** Origins (`http://host:port`) allowed to open the room's socket besides the page's own. */
  allowOrigins?: readonly string[];
  /** The questions the room asks and their option counts; default: the walkthrough's (questions.ts). */
  questions?: RoomQuestions;
  /** Told of each data-file line the replay left out (not the torn last line of a kill). */
  onSkip?: (skipped: SkippedLine) => void;
}

/** The server's clock: the time in milliseconds, and a repeating timer (its `stop` ends it). */
export interface RoomClock {
  now: () => number;
  every: (ms: number, run: () => void) => { stop: () => void };
}

export const systemClock: RoomClock = {
  now: () => Date.now(),
  every: (ms, run) => {
    const timer = setInterval(run, ms);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  },
};

export interface RoomStats {
  /** Frames dropped: oversized, binary, not JSON, not a known message, or over the rate. */
  dropped: number;
  /** Presenter-only messages without the right key. */
  unauthorised: number;
  /** Messages turned down: a second identity on a socket (ignored), a socket closed for a wrong key or an attendee connected on another socket. */
  denied: number;
  /** Upgrades answered 429: their address had `maxPerAddress` sockets open. */
  addressFull: number;
  /** Connections closed for being idle (HTTP or WebSocket). */
  idleClosed: number;
  /** TCP connections open now (HTTP and WebSocket). */
  connections: number;
  /** Answers refused (`refused` sent): not open, not an option, not this socket's token, over the attendee's lines for the question. */
  refused: number;
  /** HTTP requests and upgrades answered 4xx. */
  badRequests: number;
  /** Handlers that threw (a bug): the request got a 500 or its socket was closed; the room went on. */
  errors: number;
  answers: number;
  sockets: number;
}

export interface RoomServer {
  port: number;
  key: string;
  /** Where the key is kept: beside the data file. */
  keyFile: string;
  stats: RoomStats;
  state: () => RoomState;
  /** Commits what is pending (fsynced), closes every socket and the data file. */
  close: () => Promise<void>;
}

/** Why the room could not start, for the command line to say in one line (and exit 2). */
export class RoomStartError extends Error {
  constructor(
    readonly reason: 'port' | 'key' | 'data' | 'dist',
    message: string,
  ) {
    super(message);
    this.name = 'RoomStartError';
  }
}

/** Default of `maxPerAddress`: a room's phones usually have an address each, but a router or a proxy can put hundreds behind one. */
export const DEFAULT_MAX_PER_ADDRESS = 256;
/**
 * Default of `idleTimeoutMs` (`--idle-timeout 60`): a phone that is there answers the ping sent after
 * half of it within a second; one asleep or gone for a minute is let go, and reconnects when it wakes.
 */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** How long the socket holding an attendee has to answer the ping a second `hello` for it sends, before the next `hello` takes the attendee. */
export const PROBE_GRACE_MS = 2000;
/** The presenter's socket: it sends a beat per Next, and a held key sends many; its moves must not be dropped. */
const PRESENTER_BURST = 200;
const PRESENTER_PER_SECOND = 100;
/** A socket that has this much unsent (a phone that stopped reading) is closed rather than kept growing. */
const MAX_BUFFERED_BYTES = 1 << 20;

const newId = (prefix: string): string => `${prefix}_${randomBytes(12).toString('base64url')}`;

/** What the room keeps of an attendee's secret: its hash (SHA-256, 128 bits of it), never the secret itself. */
export const attendeeKey = (secret: string): string => `h_${createHash('sha256').update(secret).digest('base64url').slice(0, 22)}`;

/** The key file of a data file: beside it, the same name with `.key` added. */
export const keyFileOf = (data: string): string => `${resolve(data)}.key`;

/** Why a presenter key could never be accepted, or null if it can. */
export function keyProblem(key: string): string | null {
  return ID_PATTERN.test(key)
    ? null
    : `8 to 64 characters of A-Z, a-z, 0-9, '-' and '_' (the page reads the key from its address with that rule), got ${JSON.stringify(key.length > 80 ? `${key.slice(0, 80)}…` : key)}`;
}

/**
 * The presenter key: the one given (written to the key file, so the next start without `--key`
 * keeps it), else the key file's, else a fresh random one written there (mode 600).
 */
function presenterKey(keyFile: string, given: string | undefined): string {
  if (given !== undefined) {
    const problem = keyProblem(given);
    if (problem) throw new RoomStartError('key', `--key: ${problem}`);
    if (!existsSync(keyFile) || readFileSync(keyFile, 'utf8').trim() !== given) writeFileSync(keyFile, `${given}\n`, { mode: 0o600 });
    return given;
  }
  if (existsSync(keyFile)) {
    const kept = readFileSync(keyFile, 'utf8').trim();
    const problem = keyProblem(kept);
    if (problem) throw new RoomStartError('key', `the key file ${keyFile} holds no usable key: ${problem}; delete it for a new key, or give --key`);
    return kept;
  }
  const key = newId('key');
  writeFileSync(keyFile, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

/** Compares a key in constant time (its length aside), so a guesser learns nothing from how long a refusal takes. */
function sameKey(given: string, key: Buffer): boolean {
  const b = Buffer.from(given);
  return b.length === key.length && timingSafeEqual(b, key);
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.webmanifest': 'application/manifest+json',
  '.txt': 'text/plain; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
  '.vtt': 'text/vtt; charset=utf-8',
};

interface StaticFile {
  path: string;
  size: number;
  etag: string;
  type: string;
  /** Vite's hashed build outputs never change under their name: phones may keep them. */
  immutable: boolean;
}

/** Every file of dist/, by the URL path that names it: nothing outside this table is ever read. */
function staticTable(dist: string): Map<string, StaticFile> {
  const root = resolve(dist);
  if (!existsSync(join(root, 'index.html'))) throw new RoomStartError('dist', `${root} has no index.html: build the site first (npx vite build)`);
  const table = new Map<string, StaticFile>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const s = statSync(path);
        const url = `/${relative(root, path).split(sep).join('/')}`;
        table.set(url, {
          path,
          size: s.size,
          etag: `W/"${s.size.toString(36)}-${Math.floor(s.mtimeMs).toString(36)}"`,
          type: CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
          immutable: url.startsWith('/assets/'),
        });
      }
    }
  };
  walk(root);
  return table;
}

/** The characters a URL path may hold as sent (RFC 3986 pchar and '/'); a browser escapes any other. */
const PATH_CHARS = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@/%]*$/;

/** The decoded path of a request target, or undefined when it is malformed (never a path outside the site). */
export function requestPath(target: string | undefined): string | undefined {
  if (typeof target !== 'string') return undefined;
  const end = target.search(/[?#]/);
  const raw = end < 0 ? target : target.slice(0, end);
  if (raw.length > 2048 || !PATH_CHARS.test(raw)) return undefined;
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  // A browser sends a path already normalised: dot segments, empty segments or a NUL are someone probing.
  if (decoded.includes('\0') || decoded.includes('\\') || posix.normalize(decoded) !== decoded) return undefined;
  return decoded;
}

/**
 * Serves a file of the table; `/` and any path without an extension get index.html (the app has
 * one page), an unknown file 404. No Range support: a request for a range gets the whole file
 * (RFC 9110 allows it), which leaves out the parsing where static servers have crashed.
 */
function serveStatic(table: Map<string, StaticFile>, path: string, req: IncomingMessage, res: ServerResponse): number {
  const file = table.get(path) ?? (path.endsWith('/') || extname(path) === '' ? table.get('/index.html') : undefined);
  if (!file) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
    return 404;
  }
  const headers = {
    'content-type': file.type,
    etag: file.etag,
    'cache-control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    'x-content-type-options': 'nosniff',
  };
  if (req.headers['if-none-match'] === file.etag) {
    res.writeHead(304, headers).end();
    return 304;
  }
  res.writeHead(200, { ...headers, 'content-length': file.size });
  if (req.method === 'HEAD') {
    res.end();
    return 200;
  }
  const stream = createReadStream(file.path);
  stream.on('error', () => res.destroy());
  stream.pipe(res);
  return 200;
}

/**
 * Whether a browser page at `origin` may open the room's socket: the page's own origin, or one allowed
 * by name. No Origin is refused: a browser always sends one on a WebSocket upgrade, so a client
 * without one is not a page of the room (a script can send any header, but then it has to say one).
 */
function originAllowed(req: IncomingMessage, allowed: ReadonlySet<string>): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return false;
  if (allowed.has(origin)) return true;
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false;
  }
  return host !== '' && host === req.headers.host;
}

/** A TCP connection of the server, HTTP or WebSocket, as the idle sweep sees it. */
interface Connection {
  socket: Socket;
  /** When it was opened. */
  since: number;
  /** When something last arrived from it: a request, a frame (a pong included). */
  last: number;
  /** Its HTTP responses still being sent: a connection busy with one is idle only once the response stops moving. */
  busy: number;
  /** The bytes written to it at the last sweep, and when that count last grew (a response the peer does not read stops growing). */
  written: number;
  writtenAt: number;
  /** Its WebSocket, once upgraded. */
  ws?: WebSocket;
  /** It said `hello` or proved the presenter key. */
  known: boolean;
  /** When it was pinged because another socket said `hello` with its attendee; cleared by anything it sends. */
  probedAt?: number;
  /** When the room closed it: still open at the next sweep, it is cut. */
  closedAt?: number;
}

export async function startRoomServer(options: RoomServerOptions): Promise<RoomServer> {
  const questions = options.questions ?? roomQuestions();
  const maxPerAddress = options.maxPerAddress ?? DEFAULT_MAX_PER_ADDRESS;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  const maxAnswers = options.maxAnswersPerQuestion ?? MAX_ANSWERS_PER_QUESTION;
  const clock = options.clock ?? systemClock;
  const allowOrigins = new Set(options.allowOrigins ?? []);
  if (options.key !== undefined && keyProblem(options.key)) throw new RoomStartError('key', `--key: ${keyProblem(options.key)!}`);
  const table = options.dist ? staticTable(options.dist) : undefined;
  const stats: RoomStats = { dropped: 0, unauthorised: 0, denied: 0, addressFull: 0, idleClosed: 0, connections: 0, refused: 0, badRequests: 0, errors: 0, answers: 0, sockets: 0 };

  // Set once the data file is replayed; a request cannot arrive before (the replay runs in the listen callback's turn).
  let state: RoomState | undefined;
  let fd = -1;

  /** Every TCP connection open, by its socket. */
  const connections = new Map<Socket, Connection>();
  /** Something arrived from it: not idle, and alive if it was probed. */
  const heard = (c: Connection | undefined): void => {
    if (!c) return;
    c.last = clock.now();
    c.probedAt = undefined;
  };

  const reject = (res: ServerResponse, code: number, text: string): void => {
    stats.badRequests++;
    res.writeHead(code, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' }).end(`${text}\n`);
  };
  // A link longer than Node's 16 KB of headers reaches the page, which says it is too long (state/url.ts), instead of a bare 431.
  const http: Server = createServer({ maxHeaderSize: 65_536 }, (req, res) => {
    try {
      const c = connections.get(req.socket);
      if (c) {
        heard(c);
        c.busy++;
        c.writtenAt = c.last;
        res.once('close', () => {
          c.busy--;
          c.last = clock.now();
        });
      }
      if (state === undefined) return reject(res, 503, 'Starting');
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('allow', 'GET, HEAD');
        return reject(res, 405, 'Method not allowed');
      }
      const path = requestPath(req.url);
      if (path === undefined) return reject(res, 400, 'Bad request: malformed path');
      if (path === '/room') return reject(res, 426, 'The room is a WebSocket');
      if (!table) return reject(res, 404, 'Not found');
      if (serveStatic(table, path, req, res) >= 400) stats.badRequests++;
    } catch {
      stats.errors++;
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    }
  });
  http.on('connection', (socket: Socket) => {
    const now = clock.now();
    connections.set(socket, { socket, since: now, last: now, busy: 0, written: 0, writtenAt: now, known: false });
    stats.connections = connections.size;
    socket.once('close', () => {
      connections.delete(socket);
      stats.connections = connections.size;
    });
  });
  // Node's parser answers a malformed request line or header with 400 itself; a socket error is that client's alone.
  http.on('clientError', (_err, socket: Duplex) => {
    stats.badRequests++;
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((done, fail) => {
    const onError = (err: NodeJS.ErrnoException) => {
      const where = `${options.host}:${options.port}`;
      if (err.code === 'EADDRINUSE') fail(new RoomStartError('port', `port ${options.port} on ${options.host} is already in use (another room or server?): stop it or give --port`));
      else if (err.code === 'EACCES') fail(new RoomStartError('port', `not allowed to listen on ${where} (a port under 1024 needs privileges): give --port`));
      else if (err.code === 'EADDRNOTAVAIL') fail(new RoomStartError('port', `${options.host} is not an address of this machine: give --host`));
      else fail(new RoomStartError('port', `cannot listen on ${where}: ${err.message}`));
    };
    http.once('error', onError);
    http.listen(options.port, options.host, () => {
      http.off('error', onError);
      // Once listening, an error of the server (out of file descriptors for a moment) is counted, never the end of the room.
      http.on('error', () => stats.errors++);
      done();
    });
  });
  const closeHttp = () => new Promise<void>((done) => http.close(() => done()));

  const keyFile = keyFileOf(options.data);
  let key: string;
  let previous: string;
  try {
    mkdirSync(dirname(resolve(options.data)), { recursive: true });
    key = presenterKey(keyFile, options.key);
    previous = existsSync(options.data) ? readFileSync(options.data, 'utf8') : '';
    state = replay(previous, { questions, onSkip: options.onSkip });
    fd = openSync(options.data, 'a');
  } catch (err) {
    await closeHttp();
    if (err instanceof RoomStartError) throw err;
    throw new RoomStartError('data', `the data file ${options.data}: ${(err as Error).message}`);
  }
  const room = state;
  const keyBytes = Buffer.from(key);
  // A line torn by a kill mid-write is skipped on replay; start the next one on a line of its own.
  if (previous !== '' && !previous.endsWith('\n')) writeSync(fd, '\n');

  const presenters = new Set<WebSocket>();
  const sockets = new Set<WebSocket>();
  /** Open sockets (upgrades taken) by network address. */
  const perAddress = new Map<string, number>();
  /** Addresses at their limit since the command was last told. */
  const fullAddresses = new Set<string>();
  /** The connection holding each attendee (by `attendeeKey`) now. */
  const holders = new Map<string, Connection>();

  const sendText = (ws: WebSocket, text: string): void => {
    if (ws.readyState !== ws.OPEN) return;
    if (ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      ws.terminate();
      return;
    }
    ws.send(text);
  };
  const send = (ws: WebSocket, msg: ServerMessage): void => sendText(ws, JSON.stringify(msg));
  const roomMessage = (): string => {
    const msg: ServerMessage = { type: 'room', chapter: room.chapter, beat: room.beat, open: room.open, ...publicView(room) };
    return JSON.stringify(msg);
  };
  const broadcast = (to: Iterable<WebSocket>): void => {
    const text = roomMessage();
    for (const ws of to) sendText(ws, text);
  };
  /**
   * Group commit. Answers wait one tick in `pending`, so a burst shares one write; a write goes to the
   * file and the state at once, and its answers are acknowledged when an fsync that began after it
   * ends. The fsync runs off the event loop (one at a time, each covering every write before it),
   * so the room keeps reading frames and moving the presenter's beat while the disk syncs. A kill -9
   * loses nothing written (the kernel has it); an acknowledged answer is on the disk itself.
   */
  type Waiting = { event: RoomEvent & { kind: 'answer' }; waiters: WebSocket[] };
  let pending = new Map<string, Waiting>();
  /** Answer lines waiting in `pending`, by `answerKey`: counted with the room's own against `maxAnswers`. */
  let pendingLines = new Map<string, number>();
  /** Written and applied, waiting for an fsync: by answer id (a resend joins its waiters). */
  const unsynced = new Map<string, Waiting>();
  let syncing = false;
  let flushScheduled = false;
  let presenterUpdate: ReturnType<typeof setTimeout> | undefined;
  const write = (events: RoomEvent[]): void => {
    writeSync(fd, events.map(eventLine).join(''));
    for (const e of events) applyEvent(room, e);
  };
  /**
   * Acknowledges a synced batch. A socket with several acks in it (a phone that answered the three
   * quiz questions at once) gets them in one write: its TCP socket is corked around them (ws's own
   * socket, reached through its private field; without it each ack is a write of its own).
   */
  const ackAll = (batch: Waiting[]): void => {
    const bySocket = new Map<WebSocket, string[]>();
    for (const p of batch) {
      for (const ws of p.waiters) {
        const ids = bySocket.get(ws);
        if (ids) ids.push(p.event.answerId);
        else bySocket.set(ws, [p.event.answerId]);
      }
    }
    for (const [ws, ids] of bySocket) {
      const tcp = ids.length > 1 ? (ws as unknown as { _socket?: { cork?: () => void; uncork?: () => void } })._socket : undefined;
      tcp?.cork?.();
      for (const answerId of ids) send(ws, { type: 'ack', answerId });
      tcp?.uncork?.();
    }
  };
  const sync = (): void => {
    if (syncing || unsynced.size === 0) return;
    syncing = true;
    const batch = [...unsynced.values()];
    unsynced.clear();
    fsync(fd, (err) => {
      syncing = false;
      if (err) {
        // Not on the disk for sure: no ack; the phones send these again, and the room counts an id once.
        stats.errors++;
      } else {
        ackAll(batch);
      }
      sync();
    });
  };
  const flush = (): void => {
    flushScheduled = false;
    if (pending.size === 0) return;
    const batch = [...pending.values()];
    pending = new Map();
    pendingLines = new Map();
    write(batch.map((p) => p.event));
    stats.answers += batch.length;
    for (const p of batch) unsynced.set(p.event.answerId, p);
    sync();
    // The presenter's count: at most every 50 ms, not once per answer.
    presenterUpdate ??= setTimeout(() => {
      presenterUpdate = undefined;
      broadcast(presenters);
    }, 50);
  };

  /** Ends a socket the room will not take, with the close code that says why (protocol.ts `ROOM_CLOSE`). */
  const deny = (ws: WebSocket, code: number, why: string): void => {
    stats.denied++;
    ws.close(code, why);
  };

  /**
   * Closes a connection that went quiet: a WebSocket with `ROOM_CLOSE.idle` and `why`, an HTTP one with
   * 408. A peer that is gone never finishes the closing, so the next sweep cuts what is still open.
   */
  const closeIdle = (c: Connection, why: string): void => {
    stats.idleClosed++;
    c.closedAt = clock.now();
    if (c.ws) {
      c.ws.close(ROOM_CLOSE.idle, why);
      return;
    }
    const body = `Request Timeout: ${why}\n`;
    c.socket.end(`HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  };
  const seconds = `${Math.round(idleTimeoutMs / 100) / 10} s`;
  /**
   * The idle sweep, every quarter of the timeout: a connection from which nothing arrived for the
   * timeout is closed, and so is a WebSocket that did not say who it is within it; a WebSocket quiet
   * for half of it is pinged (its pong is activity: a phone that is there stays).
   */
  const sweep = (): void => {
    const now = clock.now();
    for (const c of connections.values()) {
      try {
        if (c.closedAt !== undefined) {
          c.socket.destroy();
          continue;
        }
        if (c.busy > 0) {
          // A response the peer stopped reading (a download held open) is cut once it has not moved for the timeout.
          if (c.socket.bytesWritten !== c.written) {
            c.written = c.socket.bytesWritten;
            c.writtenAt = now;
          } else if (now - c.writtenAt >= idleTimeoutMs) {
            stats.idleClosed++;
            c.socket.destroy();
          }
          continue;
        }
        const quiet = now - c.last;
        if (c.ws) {
          if (quiet >= idleTimeoutMs) closeIdle(c, `idle: nothing received for ${seconds} (--idle-timeout); reconnect when back`);
          else if (!c.known && now - c.since >= idleTimeoutMs) closeIdle(c, `no hello within ${seconds} (--idle-timeout)`);
          else if (quiet >= idleTimeoutMs / 2 && c.ws.readyState === c.ws.OPEN) c.ws.ping();
        } else if (quiet >= idleTimeoutMs) {
          closeIdle(c, `no request for ${seconds} (--idle-timeout)`);
        }
      } catch {
        stats.errors++;
        c.socket.destroy();
      }
    }
  };
  const sweeper = clock.every(Math.max(1, Math.floor(idleTimeoutMs / 4)), sweep);

  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES, clientTracking: false });
  http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    /** Answers the upgrade with an HTTP status and a line that says why (a browser does not show it; curl and logs do). */
    const refuse = (code: number, text: string, why = text) => {
      stats.badRequests++;
      const body = `${why}\n`;
      if (socket.writable) socket.end(`HTTP/1.1 ${code} ${text}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      else socket.destroy();
    };
    try {
      const c = connections.get(req.socket);
      heard(c);
      if (requestPath(req.url) !== '/room') return refuse(404, 'Not Found');
      if (req.headers.origin === undefined) return refuse(403, 'Forbidden', 'Forbidden: the room takes a WebSocket only with an Origin header, from its own page (or one given with --allow-origin)');
      if (!originAllowed(req, allowOrigins)) return refuse(403, 'Forbidden', `Forbidden: the room does not take a socket from a page of ${JSON.stringify(String(req.headers.origin).slice(0, 100))}; give it with --allow-origin`);
      const address = req.socket.remoteAddress ?? 'unknown';
      const open = perAddress.get(address) ?? 0;
      if (open >= maxPerAddress) {
        stats.addressFull++;
        if (!fullAddresses.has(address)) {
          fullAddresses.add(address);
          options.onAddressFull?.(address, open);
        }
        return refuse(429, 'Too Many Requests', `Too Many Requests: ${open} sockets are open to the room from this network address, its limit; a phone gets in once one of them closes (the room's --max-per-address ${maxPerAddress} raises it)`);
      }
      // Counted from the upgrade (so handshakes in flight count too) until its TCP socket closes.
      perAddress.set(address, open + 1);
      socket.once('close', () => {
        const n = (perAddress.get(address) ?? 1) - 1;
        if (n > 0) perAddress.set(address, n);
        else perAddress.delete(address);
        if (n < maxPerAddress) fullAddresses.delete(address);
      });
      // ws checks the handshake itself (400 for a bad one) and calls back only for a good one.
      wss.handleUpgrade(req, socket, head, (ws) => connected(ws, c ?? { socket: req.socket, since: clock.now(), last: clock.now(), busy: 0, written: 0, writtenAt: clock.now(), known: false }));
    } catch {
      stats.errors++;
      socket.destroy();
    }
  });

  function connected(ws: WebSocket, conn: Connection): void {
    sockets.add(ws);
    stats.sockets = sockets.size;
    conn.ws = ws;
    let bucket = new TokenBucket(options.burst ?? 20, options.perSecond ?? 10, clock.now());
    /** The attendee this socket holds (`attendeeKey` of its secret), and the secret it said. */
    let attendee: string | undefined;
    let secret: string | undefined;
    let presenter = false;
    const token = newId('tok');
    ws.on('error', () => {
      // An oversized frame closes the socket (ws's maxPayload); count it with the other drops.
      stats.dropped++;
    });
    ws.on('close', () => {
      sockets.delete(ws);
      presenters.delete(ws);
      if (attendee !== undefined && holders.get(attendee) === conn) holders.delete(attendee);
      stats.sockets = sockets.size;
    });
    // Any frame is activity: a pong to the sweep's ping, a ping of the client's own, a message (dropped or not).
    ws.on('ping', () => heard(conn));
    ws.on('pong', () => heard(conn));
    ws.on('message', (data, isBinary) => {
      heard(conn);
      try {
        if (isBinary || !bucket.take(clock.now())) {
          stats.dropped++;
          return;
        }
        const msg = parseClientMessage(data.toString());
        if (!msg) {
          stats.dropped++;
          return;
        }
        if (msg.type === 'hello') {
          // A socket is one attendee: another secret later changes nothing (an honest page never sends one).
          if (presenter || (secret !== undefined && secret !== msg.attendee)) {
            stats.denied++;
            return;
          }
          if (attendee === undefined) {
            const key = attendeeKey(msg.attendee);
            const holder = holders.get(key);
            if (holder && holder !== conn && holder.ws !== undefined && holder.ws.readyState === holder.ws.OPEN) {
              const now = clock.now();
              if (holder.probedAt === undefined || now - holder.probedAt < PROBE_GRACE_MS) {
                // Is the other socket still there? Its answer (or silence) decides the next hello.
                if (holder.probedAt === undefined) {
                  holder.probedAt = now;
                  holder.ws.ping();
                }
                return deny(ws, ROOM_CLOSE.attendeeConnected, 'this attendee is connected on another socket now; try again once it has closed');
              }
              // It did not answer the ping: a phone's previous connection, gone (another network, asleep).
              closeIdle(holder, 'did not answer a ping while its attendee connected again');
              holder.ws.terminate();
            }
            holders.set(key, conn);
            attendee = key;
            secret = msg.attendee;
            conn.known = true;
          }
          send(ws, { type: 'welcome', token });
          sendText(ws, roomMessage());
          return;
        }
        if (msg.type === 'answer') {
          const refuse = (reason: RefusedReason) => {
            stats.refused++;
            send(ws, { type: 'refused', answerId: msg.answerId, reason });
          };
          if (attendee === undefined || msg.token !== token) return refuse('token');
          const waiting = pending.get(msg.answerId) ?? unsynced.get(msg.answerId);
          if (waiting) {
            waiting.waiters.push(ws);
            return;
          }
          // Taken before and on the disk (a resend after a lost ack, or after a restart): acknowledged again, counted once.
          if (room.seen.has(msg.answerId)) return send(ws, { type: 'ack', answerId: msg.answerId });
          const why = refusal(room, msg.question, msg.choice);
          if (why) return refuse(why);
          // The data file is bounded per attendee and question: refused before it is written.
          const lineKey = answerKey(msg.question, attendee);
          const lines = (room.answerLines.get(lineKey) ?? 0) + (pendingLines.get(lineKey) ?? 0);
          if (lines >= maxAnswers) return refuse('limit');
          pendingLines.set(lineKey, (pendingLines.get(lineKey) ?? 0) + 1);
          pending.set(msg.answerId, { event: { kind: 'answer', answerId: msg.answerId, attendee, question: msg.question, choice: msg.choice }, waiters: [ws] });
          if (!flushScheduled) {
            flushScheduled = true;
            setImmediate(() => {
              try {
                flush();
              } catch {
                // The write failed (a full disk): nothing of it is acknowledged; the phones send it again.
                stats.errors++;
              }
            });
          }
          return;
        }
        if (!sameKey(msg.key, keyBytes)) {
          stats.unauthorised++;
          return deny(ws, ROOM_CLOSE.keyRefused, 'presenter key refused');
        }
        if (!presenter) {
          presenter = true;
          conn.known = true;
          bucket = new TokenBucket(PRESENTER_BURST, PRESENTER_PER_SECOND, clock.now());
        }
        if (msg.type === 'presenter') {
          presenters.add(ws);
          send(ws, { type: 'presenter' });
          sendText(ws, roomMessage());
          return;
        }
        flush();
        const event = presenterEvent(room, msg);
        if (event) {
          // Shown at once, synced with the next fsync: a move needs no ack (the presenter's page sends its place again on reconnecting).
          write([event]);
          broadcast(sockets);
        } else {
          // Nothing to change (the same beat, a revealed question opened again): the presenter sees the room as it is.
          sendText(ws, roomMessage());
        }
      } catch {
        // A bug or a failed write: this socket goes, the room stays (what was not fsynced was not acked).
        stats.errors++;
        ws.terminate();
      }
    });
  }

  return {
    port: (() => {
      const address = http.address();
      return typeof address === 'object' && address ? address.port : options.port;
    })(),
    key,
    keyFile,
    stats,
    state: () => room,
    close: async () => {
      sweeper.stop();
      flush();
      if (presenterUpdate) clearTimeout(presenterUpdate);
      // What is written is synced now, and its answers acknowledged before the sockets close.
      fsyncSync(fd);
      ackAll([...unsynced.values()]);
      unsynced.clear();
      for (const ws of sockets) ws.close(1001, 'The room is closing');
      // Sockets that do not finish the closing handshake at once are cut.
      const cut = setTimeout(() => {
        for (const ws of sockets) ws.terminate();
      }, 200);
      http.closeAllConnections();
      await new Promise<void>((done) => wss.close(() => done()));
      await closeHttp();
      clearTimeout(cut);
      for (const ws of sockets) ws.terminate();
      // An fsync still running holds the file: let it end before the file is closed.
      while (syncing) await new Promise((r) => setTimeout(r, 1));
      closeSync(fd);
    },
  };
}

/** The event a presenter's move makes, or null when it changes nothing (no line is written for it). */
function presenterEvent(room: RoomState, msg: { type: 'goto'; chapter: number; beat: number } | { type: 'open' | 'reveal'; question: string } | { type: 'close' }): RoomEvent | null {
  switch (msg.type) {
    case 'goto':
      return room.chapter === msg.chapter && room.beat === msg.beat ? null : { kind: 'goto', chapter: msg.chapter, beat: msg.beat };
    case 'open':
      return room.open === msg.question || !canOpen(room, msg.question) ? null : { kind: 'open', question: msg.question };
    case 'close':
      return room.open === null ? null : { kind: 'open', question: null };
    case 'reveal':
      return itemsOf(room, msg.question).every((q) => room.revealed.has(q)) ? null : { kind: 'reveal', question: msg.question };
  }
}
