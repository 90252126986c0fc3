/**
 * The workshop's room server: serves the built site (dist/) and one room over WebSocket (`/room`).
 * The room's rules live in src/room (pure); this file is the Node side: sockets, the data file, limits.
 *
 * - Only a socket that sent the presenter key moves the room (goto/open/close/reveal).
 * - An attendee's id is bound to its socket on hello: the server hands back a token, and an answer
 *   is taken only with the token of the socket it arrives on, so no one answers for another.
 * - Every frame is bounded (maxPayload), parsed with the protocol's schema and rate-limited per
 *   socket (token bucket); anything else is dropped and counted.
 * - Answers are appended to the data file and fsynced before their ack (group commit per tick);
 *   a restart replays the file, so every acknowledged answer and the current beat survive.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { MAX_MESSAGE_BYTES, parseClientMessage, type ServerMessage } from '../../src/room/protocol';
import { applyEvent, eventLine, isOpen, publicView, replay, type RoomEvent, type RoomState } from '../../src/room/state';
import { TokenBucket } from '../../src/room/bucket';

export interface RoomServerOptions {
  port: number;
  host: string;
  /** The data file (JSON lines); created if missing, replayed if present. */
  data: string;
  /** The built site to serve; omitted: sockets only (the bench). */
  dist?: string;
  /** The presenter key; omitted: a fresh random one. */
  key?: string;
  /** Per-socket rate: burst and refill per second. */
  burst?: number;
  perSecond?: number;
}

export interface RoomStats {
  /** Frames dropped: oversized, not JSON, not a known message, or over the rate. */
  dropped: number;
  /** Presenter-only messages without the right key. */
  unauthorised: number;
  answers: number;
  sockets: number;
}

export interface RoomServer {
  port: number;
  key: string;
  stats: RoomStats;
  state: () => RoomState;
  close: () => Promise<void>;
}

const newId = (prefix: string): string => `${prefix}_${randomBytes(12).toString('base64url')}`;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.webmanifest': 'application/manifest+json',
  '.txt': 'text/plain; charset=utf-8',
  '.csv': 'text/csv; charset=utf-8',
};

/** Serves a file of dist/ (never outside it); unknown paths get index.html, like vite preview. */
function serveStatic(dist: string, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://room');
  const root = resolve(dist);
  let path = normalize(join(root, decodeURIComponent(url.pathname)));
  if (path !== root && !path.startsWith(root + sep)) {
    res.writeHead(403).end();
    return;
  }
  if (!existsSync(path) || statSync(path).isDirectory()) path = join(root, 'index.html');
  res.writeHead(200, { 'content-type': CONTENT_TYPES[extname(path)] ?? 'application/octet-stream' });
  res.end(readFileSync(path));
}

export async function startRoomServer(options: RoomServerOptions): Promise<RoomServer> {
  const key = options.key ?? newId('key');
  mkdirSync(dirname(resolve(options.data)), { recursive: true });
  const previous = existsSync(options.data) ? readFileSync(options.data, 'utf8') : '';
  let state = replay(previous);
  const fd = openSync(options.data, 'a');
  // A line torn by a kill mid-write is skipped on replay; start the next one on a line of its own.
  if (previous !== '' && !previous.endsWith('\n')) writeSync(fd, '\n');
  const stats: RoomStats = { dropped: 0, unauthorised: 0, answers: 0, sockets: 0 };

  const presenters = new Set<WebSocket>();
  const sockets = new Set<WebSocket>();
  const send = (ws: WebSocket, msg: ServerMessage): void => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(msg));
  };
  const roomMessage = (): string => {
    const view = publicView(state);
    const msg: ServerMessage = { type: 'room', chapter: state.chapter, beat: state.beat, open: state.open, ...view };
    return JSON.stringify(msg);
  };
  const broadcast = (to: Iterable<WebSocket>): void => {
    const text = roomMessage();
    for (const ws of to) if (ws.readyState === ws.OPEN) ws.send(text);
  };
  /** Writes and fsyncs events, then applies them: nothing is applied (or acked) before it is on disk. */
  const commit = (events: RoomEvent[]): void => {
    writeSync(fd, events.map(eventLine).join(''));
    fsyncSync(fd);
    for (const e of events) state = applyEvent(state, e);
  };

  // Answers wait one tick so a burst shares one write and one fsync (group commit).
  let pending: { event: RoomEvent & { kind: 'answer' }; waiters: WebSocket[] }[] = [];
  let flushScheduled = false;
  let presenterUpdate: ReturnType<typeof setTimeout> | undefined;
  const flush = (): void => {
    flushScheduled = false;
    const batch = pending;
    pending = [];
    if (batch.length === 0) return;
    commit(batch.map((p) => p.event));
    stats.answers += batch.length;
    for (const p of batch) for (const ws of p.waiters) send(ws, { type: 'ack', answerId: p.event.answerId });
    // The presenter's count: at most every 50 ms, not once per answer.
    presenterUpdate ??= setTimeout(() => {
      presenterUpdate = undefined;
      broadcast(presenters);
    }, 50);
  };

  const http: Server = createServer((req, res) => {
    if (options.dist) serveStatic(options.dist, req, res);
    else res.writeHead(404).end();
  });
  const wss = new WebSocketServer({ server: http, path: '/room', maxPayload: MAX_MESSAGE_BYTES });

  wss.on('connection', (ws) => {
    sockets.add(ws);
    stats.sockets = sockets.size;
    const bucket = new TokenBucket(options.burst ?? 20, options.perSecond ?? 10, Date.now());
    let attendee: string | undefined;
    const token = newId('tok');
    ws.on('error', () => {
      // An oversized frame closes the socket (ws's maxPayload); count it with the other drops.
      stats.dropped++;
    });
    ws.on('close', () => {
      sockets.delete(ws);
      presenters.delete(ws);
      stats.sockets = sockets.size;
    });
    ws.on('message', (data, isBinary) => {
      if (isBinary || !bucket.take(Date.now())) {
        stats.dropped++;
        return;
      }
      const msg = parseClientMessage(data.toString());
      if (!msg) {
        stats.dropped++;
        return;
      }
      if (msg.type === 'hello') {
        attendee = msg.attendee;
        send(ws, { type: 'welcome', token });
        ws.send(roomMessage());
        return;
      }
      if (msg.type === 'answer') {
        if (attendee === undefined || msg.token !== token || !isOpen(state, msg.question)) {
          send(ws, { type: 'refused', answerId: msg.answerId });
          return;
        }
        if (state.seen.has(msg.answerId)) {
          send(ws, { type: 'ack', answerId: msg.answerId });
          return;
        }
        const waiting = pending.find((p) => p.event.answerId === msg.answerId);
        if (waiting) {
          waiting.waiters.push(ws);
          return;
        }
        pending.push({ event: { kind: 'answer', answerId: msg.answerId, attendee, question: msg.question, choice: msg.choice }, waiters: [ws] });
        if (!flushScheduled) {
          flushScheduled = true;
          setImmediate(flush);
        }
        return;
      }
      if (msg.key !== key) {
        stats.unauthorised++;
        return;
      }
      if (msg.type === 'presenter') {
        presenters.add(ws);
        send(ws, { type: 'presenter' });
        ws.send(roomMessage());
        return;
      }
      flush();
      if (msg.type === 'goto') commit([{ kind: 'goto', chapter: msg.chapter, beat: msg.beat }]);
      else if (msg.type === 'open') commit([{ kind: 'open', question: msg.question }]);
      else if (msg.type === 'close') commit([{ kind: 'open', question: null }]);
      else commit([{ kind: 'reveal', question: msg.question }]);
      broadcast(sockets);
    });
  });

  await new Promise<void>((done) => http.listen(options.port, options.host, done));
  const address = http.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  return {
    port,
    key,
    stats,
    state: () => state,
    close: async () => {
      flush();
      if (presenterUpdate) clearTimeout(presenterUpdate);
      for (const ws of sockets) ws.terminate();
      await new Promise<void>((done) => wss.close(() => done()));
      await new Promise<void>((done) => http.close(() => done()));
      closeSync(fd);
    },
  };
}
