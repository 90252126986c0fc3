/**
 * The room server on loopback: who may move the room, one attendee per socket, choices and phases,
 * the key kept beside the data file, the port taken before the replay, the Origin, the open sockets
 * per address (300 phones behind one address), idle connections closed (the clock injected), the data
 * file bounded under a flood, an attendee's secret that a second socket cannot claim, and a corpus of malformed requests, headers and frames after which the server still runs, the
 * others see what they saw, and the data file holds only valid answers. The process-level faults
 * (kill -9, signals, a port in use, a dead parent) are in room-process.test.ts.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect as tcp, createServer as tcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket, type ClientOptions } from 'ws';
import { ROOM_CLOSE } from '../../src/room/protocol';
import { distribution, MAX_ANSWERS_PER_QUESTION, replay, type RoomEvent } from '../../src/room/state';
import { roomQuestions } from './questions';
import { attendeeKey, PROBE_GRACE_MS, RoomStartError, startRoomServer, type RoomClock, type RoomServerOptions } from './room-server';

const dir = mkdtempSync(join(tmpdir(), 'room-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const dataFile = () => join(dir, `room-${files++}.jsonl`);
const dist = join(dir, 'dist');
mkdirSync(join(dist, 'assets'), { recursive: true });
writeFileSync(join(dist, 'index.html'), '<!doctype html><title>room</title>\n');
writeFileSync(join(dist, 'assets', 'app-1234.js'), 'console.log(1)\n');
// Larger than what the sockets' buffers hold: a download whose reader stops stays in progress.
writeFileSync(join(dist, 'assets', 'big-1234.bin'), Buffer.alloc(16 << 20));

const start = (o: Partial<RoomServerOptions> = {}) => startRoomServer({ port: 0, host: '127.0.0.1', data: dataFile(), dist, ...o });

/** Waits until `check` holds, looking again after each turn of the event loop (no fixed sleep). */
async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`still not: ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}

/** The room's clock in a test's hands: `advance` moves the time and runs the idle sweep as often as it would have run. */
function testClock(): RoomClock & { advance: (ms: number) => void } {
  let t = 1_000_000;
  const timers: { every: number; next: number; run: () => void; stopped: boolean }[] = [];
  return {
    now: () => t,
    every: (every, run) => {
      const timer = { every, next: t + every, run, stopped: false };
      timers.push(timer);
      return { stop: () => void (timer.stopped = true) };
    },
    advance: (ms) => {
      const end = t + ms;
      for (;;) {
        const due = timers.filter((x) => !x.stopped && x.next <= end).sort((a, b) => a.next - b.next)[0];
        if (!due) break;
        t = due.next;
        due.next += due.every;
        due.run();
      }
      t = end;
    },
  };
}

/** This process's open files (sockets included). */
const openFiles = () => readdirSync('/proc/self/fd').length;

type Msg = Record<string, unknown>;
/**
 * A socket that queues what it receives, so a test can wait for the next message of a type. It sends
 * the room's own page origin unless `headers` says otherwise (`{}`: no Origin at all).
 */
async function client(port: number, headers: Record<string, string> = { origin: `http://127.0.0.1:${port}` }, options: ClientOptions = {}) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/room`, { headers, ...options });
  const inbox: Msg[] = [];
  const waiters: (() => void)[] = [];
  let closed: number | null = null;
  let reason = '';
  let pings = 0;
  ws.on('message', (raw) => {
    inbox.push(JSON.parse(raw.toString()) as Msg);
    waiters.splice(0).forEach((w) => w());
  });
  ws.on('ping', () => {
    pings++;
    waiters.splice(0).forEach((w) => w());
  });
  ws.on('close', (code, why) => {
    closed = code;
    reason = why.toString();
    waiters.splice(0).forEach((w) => w());
  });
  ws.on('error', () => undefined);
  await new Promise((done, fail) =>
    (ws.once('open', done),
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => fail(new Error(`HTTP ${res.statusCode}: ${body.trim()}`)));
    })),
  );
  const next = async (type: string): Promise<Msg> => {
    for (;;) {
      const i = inbox.findIndex((m) => m.type === type);
      if (i >= 0) return inbox.splice(i, 1)[0]!;
      if (closed !== null) throw new Error(`closed (${closed}) while waiting for ${type}`);
      await new Promise<void>((w) => waiters.push(w));
    }
  };
  const closedWith = async (): Promise<number> => {
    while (closed === null) await new Promise<void>((w) => waiters.push(w));
    return closed;
  };
  const pinged = async (n = 1): Promise<void> => {
    while (pings < n) await new Promise<void>((w) => waiters.push(w));
  };
  /** The last room message after everything sent so far was handled (a hello or presenter round trip flushes the queue). */
  const drain = () => inbox.splice(0);
  return { ws, next, closedWith, pinged, reason: () => reason, isClosed: () => closed !== null, drain, send: (m: object) => ws.send(JSON.stringify(m)) };
}
type Client = Awaited<ReturnType<typeof client>>;

async function attendee(port: number, id: string, options: ClientOptions = {}): Promise<Client & { token: string }> {
  const c = await client(port, undefined, options);
  c.send({ type: 'hello', attendee: id });
  const { token } = (await c.next('welcome')) as { token: string };
  await c.next('room');
  return { ...c, token };
}
async function presenterOf(port: number, key: string): Promise<Client> {
  const c = await client(port);
  c.send({ type: 'presenter', key });
  await c.next('presenter');
  await c.next('room');
  return c;
}

/** One raw HTTP exchange on its own connection: the status code the server answered (0: it closed without one). */
function rawHttp(port: number, request: string | Buffer): Promise<number> {
  return new Promise((done) => {
    const socket = tcp(port, '127.0.0.1');
    let text = '';
    const finish = () => {
      socket.destroy();
      done(Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0));
    };
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n')) finish();
    });
    socket.on('error', finish);
    socket.on('close', finish);
    socket.setTimeout(3000, finish);
    socket.write(request);
  });
}

const answerLines = (data: string) =>
  readFileSync(data, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RoomEvent);

describe('room server', () => {
  it('only the presenter moves the room; a wrong key closes the socket with the code the page shows', async () => {
    const server = await start();
    const presenter = await presenterOf(server.port, server.key);
    const alice = await attendee(server.port, 'att_alice123');
    presenter.send({ type: 'goto', key: server.key, chapter: 2, beat: 3 });
    await alice.next('room');
    const mallory = await attendee(server.port, 'att_mallory1');
    mallory.send({ type: 'goto', key: 'guessed_key_123', chapter: 5, beat: 1 });
    expect(await mallory.closedWith()).toBe(ROOM_CLOSE.keyRefused);
    const wrongPresenter = await client(server.port);
    wrongPresenter.send({ type: 'presenter', key: 'not_the_key_1' });
    expect(await wrongPresenter.closedWith()).toBe(ROOM_CLOSE.keyRefused);
    expect(server.state()).toMatchObject({ chapter: 2, beat: 3 });
    expect(server.stats.unauthorised).toBe(2);
    for (const c of [presenter, alice]) c.ws.terminate();
    await server.close();
  });

  it('one attendee per socket: a second hello with another id changes nothing; tokens bind answers to their socket; choices and phases are checked', async () => {
    const data = dataFile();
    const server = await start({ data });
    const presenter = await presenterOf(server.port, server.key);
    const alice = await attendee(server.port, 'att_alice123');
    const bob = await attendee(server.port, 'att_bob12345');
    presenter.send({ type: 'goto', key: server.key, chapter: 2, beat: 2 });
    presenter.send({ type: 'open', key: server.key, question: 'ch:2' });
    for (let i = 0; i < 2; i++) await alice.next('room');

    // Alice tries to be many people on one socket: each answer still counts as Alice, once.
    for (let i = 0; i < 5; i++) alice.send({ type: 'hello', attendee: `att_fake${i}xxxx` });
    alice.send({ type: 'answer', token: alice.token, answerId: 'ans_alice001', question: 'ch:2', choice: 1 });
    expect(await alice.next('ack')).toEqual({ type: 'ack', answerId: 'ans_alice001' });
    alice.send({ type: 'answer', token: alice.token, answerId: 'ans_alice002', question: 'ch:2', choice: 2 });
    await alice.next('ack');
    // A choice the question does not have (chapter 2's has three options), another socket's token, a question not open.
    alice.send({ type: 'answer', token: alice.token, answerId: 'ans_alice003', question: 'ch:2', choice: 3 });
    expect(await alice.next('refused')).toEqual({ type: 'refused', answerId: 'ans_alice003', reason: 'choice' });
    bob.send({ type: 'answer', token: alice.token, answerId: 'ans_spoofed1', question: 'ch:2', choice: 0 });
    expect(await bob.next('refused')).toEqual({ type: 'refused', answerId: 'ans_spoofed1', reason: 'token' });
    bob.send({ type: 'answer', token: bob.token, answerId: 'ans_bob00001', question: 'ch:4', choice: 0 });
    expect(await bob.next('refused')).toMatchObject({ reason: 'closed' });
    // A resend is acknowledged again and counted once.
    alice.send({ type: 'answer', token: alice.token, answerId: 'ans_alice002', question: 'ch:2', choice: 2 });
    await alice.next('ack');
    expect(distribution(server.state(), 'ch:2', 3)).toEqual([0, 0, 1]);

    // Revealed is final: "open" again opens nothing and the room says so to the presenter; answers are refused.
    presenter.drain();
    presenter.send({ type: 'reveal', key: server.key, question: 'ch:2' });
    // The presenter's count update (50 ms after an answer) may come first, between the drain and the reveal.
    let revealedView = await presenter.next('room');
    while (!(revealedView.revealed as Record<string, unknown>)['ch:2']) revealedView = await presenter.next('room');
    expect(revealedView).toMatchObject({ open: null, revealed: { 'ch:2': [0, 0, 1] } });
    presenter.send({ type: 'open', key: server.key, question: 'ch:2' });
    expect(await presenter.next('room')).toMatchObject({ open: null });
    bob.send({ type: 'answer', token: bob.token, answerId: 'ans_bob00002', question: 'ch:2', choice: 0 });
    expect(await bob.next('refused')).toMatchObject({ reason: 'closed' });
    // A quiz revealed with no answer is in the room's view (the page tells revealed by it).
    presenter.send({ type: 'reveal', key: server.key, question: 'pre' });
    expect(((await presenter.next('room')) as { revealed: Record<string, number[]> }).revealed['pre:0']).toEqual([0, 0, 0]);

    // The data file keys Alice by the hash of her secret: the secret itself is in it nowhere.
    const lines = answerLines(data).filter((e) => e.kind === 'answer');
    expect(lines.map((e) => e.kind === 'answer' && [e.attendee, e.choice])).toEqual([
      [attendeeKey('att_alice123'), 1],
      [attendeeKey('att_alice123'), 2],
    ]);
    expect(readFileSync(data, 'utf8')).not.toContain('att_alice123');
    for (const c of [presenter, alice, bob]) c.ws.terminate();
    await server.close();
  });

  it('keeps the presenter key beside the data file: a restart on the same file keeps it and the presenter carries on', async () => {
    const data = dataFile();
    const first = await start({ data });
    expect(first.keyFile).toBe(`${data}.key`);
    expect(statSync(first.keyFile).mode & 0o777).toBe(0o600);
    const presenter = await presenterOf(first.port, first.key);
    presenter.send({ type: 'goto', key: first.key, chapter: 4, beat: 1 });
    await presenter.next('room');
    const port = first.port;
    await first.close();
    const again = await start({ data, port });
    expect(again.key).toBe(first.key);
    // The presenter's page reconnects with the key it has and is taken.
    const back = await presenterOf(again.port, first.key);
    expect(again.state()).toMatchObject({ chapter: 4, beat: 1 });
    back.ws.terminate();
    await again.close();

    // A key given is checked, then kept for the next start; a key no page could send is refused.
    await expect(start({ data, key: 'abc' })).rejects.toThrow(/--key: 8 to 64 characters/);
    const given = await start({ data, key: 'a_presenter_key_2' });
    await given.close();
    const kept = await start({ data });
    expect(kept.key).toBe('a_presenter_key_2');
    await kept.close();
    writeFileSync(`${data}.key`, 'no good\n');
    await expect(start({ data })).rejects.toMatchObject({ reason: 'key' });
  });

  it('says a port in use before it reads the data file', async () => {
    const holder = tcpServer();
    await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done));
    const port = (holder.address() as { port: number }).port;
    // The data "file" is a directory: reading it would fail, so a port error proves the port came first.
    const error = await start({ port, data: dir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RoomStartError);
    expect(error).toMatchObject({ reason: 'port', message: expect.stringContaining(`port ${port} on 127.0.0.1 is already in use`) });
    await new Promise<void>((done) => holder.close(() => done()));
    await expect(start({ data: dir })).rejects.toMatchObject({ reason: 'data' });
  });

  it('takes the room socket only with an Origin, the page\u2019s own or an allowed one; each refusal says why', async () => {
    const server = await start({ allowOrigins: ['http://laptop.local:5173'] });
    const host = `127.0.0.1:${server.port}`;
    await expect(client(server.port, {})).rejects.toThrow(/^HTTP 403: Forbidden: the room takes a WebSocket only with an Origin header/);
    await expect(client(server.port, { origin: 'http://evil.example' })).rejects.toThrow(/^HTTP 403: .*--allow-origin/);
    await expect(client(server.port, { origin: 'not a url' })).rejects.toThrow('HTTP 403');
    await expect(client(server.port, { origin: `http://${host}.evil.example` })).rejects.toThrow('HTTP 403');
    const own = await client(server.port, { origin: `http://${host}` });
    const allowed = await client(server.port, { origin: 'http://laptop.local:5173' });
    expect(server.stats.badRequests).toBe(4);
    for (const c of [own, allowed]) c.ws.terminate();
    await server.close();
  });

  it('300 phones behind one address: with 256 open they are refused (429, saying how to raise it) only while 256 are open; closing some lets others in', async () => {
    const told: [string, number][] = [];
    const server = await start({ maxPerAddress: 256, onAddressFull: (address, open) => told.push([address, open]) });
    const tries = await Promise.allSettled(Array.from({ length: 300 }, (_, i) => attendee(server.port, `att_phone${String(i).padStart(3, '0')}`)));
    const joined = tries.flatMap((t) => (t.status === 'fulfilled' ? [t.value] : []));
    const refused = tries.flatMap((t, i) => (t.status === 'rejected' ? [{ i, why: String(t.reason) }] : []));
    expect(joined).toHaveLength(256);
    expect(refused).toHaveLength(44);
    for (const r of refused) expect(r.why).toMatch(/HTTP 429: Too Many Requests: 256 sockets are open to the room from this network address, its limit; a phone gets in once one of them closes \(the room's --max-per-address 256 raises it\)/);
    // The command is told once, not once per refused phone.
    expect(told).toEqual([['127.0.0.1', 256]]);
    expect(server.stats.addressFull).toBe(44);

    // 44 phones leave: the 44 refused come back (as the page does on its own) and are all taken.
    for (const c of joined.splice(0, 44)) c.ws.close();
    await until(() => server.stats.sockets === 212, 'the 44 closed on the server');
    const back = await Promise.all(refused.map((r) => attendee(server.port, `att_phone${String(r.i).padStart(3, '0')}`)));
    joined.push(...back);
    expect(server.stats.sockets).toBe(256);
    // Full again: the next is refused, and the command told again.
    await expect(attendee(server.port, 'att_phone300')).rejects.toThrow('HTTP 429');
    expect(told).toHaveLength(2);
    for (const c of joined) c.ws.terminate();
    await server.close();
  }, 60_000);

  it('survives a corpus of malformed paths, headers and frames: never exits, the others see the same room, the data file holds only valid answers', async () => {
    const data = dataFile();
    // The frames must reach the parser, not the rate limit: this server's buckets are large.
    const server = await start({ data, burst: 100_000, perSecond: 100_000 });
    const { port } = server;
    const presenter = await presenterOf(port, server.key);
    const honest = await Promise.all(['att_honest01', 'att_honest02', 'att_honest03'].map((id) => attendee(port, id)));
    presenter.send({ type: 'goto', key: server.key, chapter: 4, beat: 9 });
    presenter.send({ type: 'open', key: server.key, question: 'ch:4' });
    for (let i = 0; i < 2; i++) await honest[0]!.next('room');
    for (const [i, a] of honest.entries()) {
      a.send({ type: 'answer', token: a.token, answerId: `ans_honest${i}x`, question: 'ch:4', choice: i });
      await a.next('ack');
    }
    const view = async () => {
      presenter.drain();
      presenter.send({ type: 'presenter', key: server.key });
      await presenter.next('presenter');
      return presenter.next('room');
    };
    const before = await view();

    const seed = 34;
    // Paths: each has at least one malformation a browser never sends (the '-' after it keeps a cut escape cut).
    const junk = fc.string({ unit: fc.constantFrom(...'abz09-._~/%[]{}|\\^`"<> \t\u00e9\u4e2d?#'), maxLength: 12 });
    const flaw = fc.constantFrom('%', '%E0%A4%A', '%G1', '%FF', '%C0%AF', '[', ']', '{', '|', '\\', '^', '`', '"', '<', '/../', '/./', '//', '%00', '/%2e%2e/', '\u00e9', '\u4e2d');
    const paths = fc.sample(fc.tuple(junk, flaw, junk).map(([a, f, b]) => `/${a.replace(/[?#\s]/g, '')}${f}-${b.replace(/[?#\s]/g, '')}`), { seed, numRuns: 500 });
    paths.push('/%', '/%E0%A4%A', '//[');
    // Headers: a name with a space or a bad character, no colon, a control character, a value too large, two lengths, a body with no length.
    const word = fc.string({ unit: fc.constantFrom(...'abcXYZ019-'), minLength: 1, maxLength: 8 });
    const badHeader = fc.oneof(
      word.map((w) => `${w} ${w}: x`),
      word.map((w) => `${w}(: x`),
      word.map((w) => `${w}`),
      word.map((w) => `X-${w}: a\u0001b`),
      word.map((w) => `X-${w}: ${'a'.repeat(65 * 1024)}`), // over the server's 64 KiB of headers (a 30 KB link fits)
      word.map((w) => `Content-Length: 1\r\nContent-Length: 2${w}`),
      word.map((w) => `Transfer-Encoding: ${w}\r\nContent-Length: 3`),
    );
    const headers = fc.sample(badHeader, { seed, numRuns: 300 });
    const requests: string[] = [
      ...paths.map((p) => `GET ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`),
      ...headers.map((h) => `GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n${h}\r\n\r\n`),
      // Upgrades to the room that are not WebSocket handshakes, or from another origin.
      ...fc.sample(word, { seed, numRuns: 50 }).map((w) => `GET /room HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: http://127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${w}\r\nSec-WebSocket-Version: 13\r\n\r\n`),
      // And a good handshake with no Origin.
      ...fc.sample(word, { seed, numRuns: 10 }).map((w) => `GET /room?${w} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`),
      ...fc.sample(word, { seed, numRuns: 50 }).map((w) => `GET /room HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://${w}.example\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`),
    ];
    const statuses: number[] = [];
    for (let i = 0; i < requests.length; i += 50) statuses.push(...(await Promise.all(requests.slice(i, i + 50).map((r) => rawHttp(port, r)))));
    const unexpected = requests.map((r, i) => [statuses[i]!, r.slice(0, 60)] as const).filter(([s]) => s < 400 || s >= 500);
    expect(unexpected).toEqual([]);

    // Frames: JSON of every shape, messages with wrong fields, another identity, choices out of range, binary, oversized.
    let hostile = await attendee(port, 'att_hostile1');
    const frames: (string | Buffer)[] = [
      ...fc.sample(fc.json(), { seed, numRuns: 150 }),
      ...fc.sample(fc.string({ maxLength: 40 }), { seed, numRuns: 50 }),
      ...fc.sample(fc.nat(10_000), { seed, numRuns: 100 }).map((n) => JSON.stringify({ type: 'hello', attendee: `att_many${n}xx` })),
      // Chapter 4's question has four options: 4 to 7 pass the schema and are refused by the room, the rest are dropped.
      ...fc.sample(fc.oneof(fc.integer({ min: 4, max: 7 }), fc.integer({ min: -5, max: 50 })), { seed, numRuns: 100 }).map((c, i) => JSON.stringify({ type: 'answer', token: hostile.token, answerId: `ans_h${i}xxxxxx`, question: 'ch:4', choice: c < 4 ? c + 100 : c })),
      ...fc.sample(fc.record({ type: fc.constantFrom('answer', 'goto', 'open', 'reveal', 'hello'), question: fc.string(), choice: fc.oneof(fc.double(), fc.string()), chapter: fc.integer() }), { seed, numRuns: 100 }).map((m) => JSON.stringify(m)),
      ...fc.sample(fc.uint8Array({ minLength: 1, maxLength: 64 }), { seed, numRuns: 30 }).map((b) => Buffer.from(b)),
      JSON.stringify({ type: 'answer', token: 'tok_notmine1', answerId: 'ans_notmine1', question: 'ch:4', choice: 1 }),
      'x'.repeat(4096),
    ];
    let sent = 0;
    for (const frame of frames) {
      if (hostile.ws.readyState !== WebSocket.OPEN) hostile = await attendee(port, 'att_hostile1');
      hostile.ws.send(frame);
      sent++;
    }
    // Raw WebSocket framing errors: unmasked frames, reserved opcodes, bad lengths, invalid UTF-8.
    const rawFrames = fc.sample(fc.uint8Array({ minLength: 2, maxLength: 24 }), { seed, numRuns: 60 });
    for (let i = 0; i < rawFrames.length; i += 20) {
      await Promise.all(
        rawFrames.slice(i, i + 20).map(
          (bytes) =>
            new Promise<void>((done) => {
              const socket = tcp(port, '127.0.0.1');
              socket.on('error', () => done());
              socket.on('close', () => done());
              socket.setTimeout(2000, () => socket.destroy());
              socket.write(`GET /room HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nOrigin: http://127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
              socket.once('data', () => {
                socket.write(Buffer.from(bytes));
                setTimeout(() => socket.destroy(), 30);
              });
            }),
        ),
      );
    }
    sent += rawFrames.length;
    expect(requests.length + sent).toBeGreaterThanOrEqual(1000);

    // Still running, and what the presenter and the attendees see is what they saw.
    expect(await rawHttp(port, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')).toBe(200);
    expect(await view()).toEqual(before);
    const late = await attendee(port, 'att_latecome');
    late.send({ type: 'answer', token: late.token, answerId: 'ans_latecome', question: 'ch:4', choice: 3 });
    await late.next('ack');
    expect(distribution(server.state(), 'ch:4', 4)).toEqual([1, 1, 1, 1]);
    expect(server.stats.errors).toBe(0);
    // The hostile frames reached the room's rules (not only the parser): other identities ignored, bad choices refused.
    expect(server.stats.denied).toBeGreaterThanOrEqual(100);
    expect(server.stats.refused).toBeGreaterThanOrEqual(40);
    expect(server.stats.dropped).toBeGreaterThanOrEqual(300);

    // The data file: every line an event the room can replay, every answer an honest one with a choice the question has.
    const options = roomQuestions();
    const events = answerLines(data);
    const answers = events.filter((e) => e.kind === 'answer');
    expect(answers.map((a) => a.attendee).sort()).toEqual(['att_honest01', 'att_honest02', 'att_honest03', 'att_latecome'].map(attendeeKey).sort());
    for (const a of answers) expect(a.choice).toBeLessThan(options.get(a.question)!);
    const skipped: number[] = [];
    replay(readFileSync(data, 'utf8'), { questions: options, onSkip: (l) => skipped.push(l.line) });
    expect(skipped).toEqual([]);
    for (const c of [presenter, ...honest, hostile, late]) c.ws.terminate();
    await server.close();
  }, 60_000);
  it('closes idle connections after the timeout (the clock injected): silent TCP, half-sent requests, sockets that never say hello, phones that stop answering pings; a phone that answers stays; the open files come back', async () => {
    const clock = testClock();
    const idleTimeoutMs = 60_000;
    const server = await start({ clock, idleTimeoutMs });
    const { port } = server;
    const filesBefore = openFiles();

    // Raw TCP connections that send nothing, and some that send half a request; a few of them ignore the server's FIN (half-open).
    const RAW = 2000;
    const raw = (i: number) =>
          new Promise<{ socket: ReturnType<typeof tcp>; closed: Promise<string> }>((done) => {
            const socket = tcp({ port, host: '127.0.0.1', allowHalfOpen: i % 100 === 0 });
            let text = '';
            socket.on('data', (c) => (text += c.toString('latin1')));
            socket.on('error', () => undefined);
            // Closed by the server: its FIN ('end'; a half-open socket stays open on this side) or the close.
            const closed = new Promise<string>((end) => (socket.on('end', () => end(text)), socket.on('close', () => end(text))));
            socket.once('connect', () => {
              if (i % 10 === 0) socket.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n');
              done({ socket, closed });
            });
          });
    // In batches the listen queue holds (a burst past it is retried by TCP only seconds later).
    const raws: Awaited<ReturnType<typeof raw>>[] = [];
    for (let i = 0; i < RAW; i += 200) {
      raws.push(...(await Promise.all(Array.from({ length: 200 }, (_, k) => raw(i + k)))));
      await until(() => server.stats.connections === raws.length, `${raws.length} connections on the server`);
    }
    // WebSockets that never say hello (they answer pings), phones that said hello then stopped answering, phones that are there, and the presenter.
    const silent = await Promise.all(Array.from({ length: 50 }, () => client(port)));
    const gone = await Promise.all(Array.from({ length: 50 }, (_, i) => attendee(port, `att_gone${String(i).padStart(4, '0')}`, { autoPong: false })));
    const there = await Promise.all(Array.from({ length: 50 }, (_, i) => attendee(port, `att_there${String(i).padStart(4, '0')}`)));
    const presenter = await presenterOf(port, server.key);
    const all = RAW + 151;
    await until(() => server.stats.connections === all, `every connection on the server (${all})`);
    expect(openFiles() - filesBefore).toBeGreaterThanOrEqual(2 * all);

    // Half the timeout: every quiet WebSocket is pinged. The phones that are there answer (a hello's round trip after the ping proves the pong arrived).
    clock.advance(idleTimeoutMs / 2);
    for (const c of [...there, presenter]) await c.pinged();
    for (const c of there) {
      c.send({ type: 'hello', attendee: 'ignored_as_another_id' });
      c.send({ type: 'answer', token: 'tok_notmine1', answerId: 'ans_roundtrip', question: 'ch:1', choice: 0 });
      await c.next('refused');
    }
    presenter.send({ type: 'presenter', key: server.key });
    await presenter.next('presenter');
    expect(server.stats.idleClosed).toBe(0);

    // The timeout: the rest is closed, each with what says why.
    clock.advance(idleTimeoutMs / 2);
    const closedRaw = await Promise.all(raws.map((r) => r.closed));
    expect(closedRaw.every((text) => text.startsWith('HTTP/1.1 408 Request Timeout\r\n') && text.includes('--idle-timeout'))).toBe(true);
    for (const c of silent) expect(await c.closedWith()).toBe(ROOM_CLOSE.idle);
    expect(silent[0]!.reason()).toBe('no hello within 60 s (--idle-timeout)');
    for (const c of gone) expect(await c.closedWith()).toBe(ROOM_CLOSE.idle);
    expect(gone[0]!.reason()).toMatch(/^idle: nothing received for 60 s/);
    // The half-open ones did not close their side: the next sweep cuts them.
    clock.advance(idleTimeoutMs / 4);
    await until(() => server.stats.connections === 51, 'only the phones that are there and the presenter open');
    expect(server.stats.idleClosed).toBe(all - 51);
    expect(there.every((c) => !c.isClosed()) && !presenter.isClosed()).toBe(true);
    // A phone still there answers and is acknowledged after all this.
    presenter.send({ type: 'open', key: server.key, question: 'pre' });
    await there[0]!.next('room');
    there[0]!.send({ type: 'answer', token: there[0]!.token, answerId: 'ans_stillhere', question: 'pre:0', choice: 1 });
    await there[0]!.next('ack');

    for (const c of [...there, presenter]) c.ws.terminate();
    for (const r of raws) r.socket.destroy();
    await until(() => server.stats.connections === 0, 'all closed');
    await server.close();
    // The open files came back to what they were: nothing held by a closed connection.
    await until(() => openFiles() <= filesBefore, `open files back to ${filesBefore} (now ${openFiles()})`);
  }, 60_000);

  it('a download whose reader stopped reading is not idle while it moves, and is cut once it has not moved for the timeout', async () => {
    const clock = testClock();
    const server = await start({ clock, idleTimeoutMs: 60_000 });
    const stuck = tcp(server.port, '127.0.0.1');
    const closed = new Promise<void>((done) => stuck.on('close', () => done()));
    stuck.on('error', () => undefined);
    let got = 0;
    stuck.once('data', (c: Buffer) => {
      got += c.length;
      stuck.pause();
      stuck.on('data', (more: Buffer) => (got += more.length));
    });
    stuck.write('GET /assets/big-1234.bin HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await until(() => got > 0, 'the download started');
    // The timeout since the request, but its bytes moved until the first sweep (15 s in): still open.
    clock.advance(60_000);
    expect(server.stats.idleClosed).toBe(0);
    // Not moved for the timeout since: cut.
    clock.advance(15_000);
    expect(server.stats.idleClosed).toBe(1);
    stuck.resume();
    await closed;
    expect(got).toBeLessThan(16 << 20);
    await server.close();
  });

  it('20,000 silent connections, 2,000 at a time: each wave is closed at the timeout, and the open files never grow past one wave', async () => {
    const clock = testClock();
    const idleTimeoutMs = 60_000;
    const server = await start({ clock, idleTimeoutMs });
    const filesBefore = openFiles();
    let peak = 0;
    const WAVE = 2000;
    for (let wave = 0; wave < 10; wave++) {
      const closed: Promise<void>[] = [];
      for (let i = 0; i < WAVE; i += 200) {
        await Promise.all(
          Array.from(
            { length: 200 },
            () =>
              new Promise<void>((connected) => {
                const socket = tcp(server.port, '127.0.0.1');
                socket.on('error', () => undefined);
                socket.resume();
                closed.push(new Promise<void>((done) => socket.on('close', () => done())));
                socket.once('connect', () => connected());
              }),
          ),
        );
        await until(() => server.stats.connections === i + 200, `${i + 200} connections of wave ${wave} on the server`);
      }
      peak = Math.max(peak, openFiles() - filesBefore);
      clock.advance(idleTimeoutMs);
      await Promise.all(closed);
      await until(() => server.stats.connections === 0, `wave ${wave} closed on the server`);
    }
    expect(server.stats.idleClosed).toBe(10 * WAVE);
    // Both ends of a wave are in this process: two files per connection at most, never the 20,000 held before.
    expect(peak).toBeLessThanOrEqual(2 * WAVE + 10);
    expect(openFiles()).toBeLessThanOrEqual(filesBefore);
    console.log(`idle: ${10 * WAVE} connections closed at the timeout; open files at most ${peak} over the ${filesBefore} before, ${openFiles() - filesBefore} after`);
    await server.close();
  }, 60_000);

  it('a flood of answers leaves the data file bounded: each attendee\u2019s lines for a question stop at the limit, refused before they are written; a change of mind replaces the answer', async () => {
    const data = dataFile();
    // The rate limit lifted: the flood reaches the room's rules at once (the real limit only slows it).
    const server = await start({ data, burst: 1e9, perSecond: 1e9 });
    const presenter = await presenterOf(server.port, server.key);
    presenter.send({ type: 'open', key: server.key, question: 'pre' });
    await presenter.next('room');
    const size0 = statSync(data).size;
    const SOCKETS = 100;
    const EACH = 300;
    const flooders = await Promise.all(Array.from({ length: SOCKETS }, (_, i) => attendee(server.port, `att_flood${String(i).padStart(4, '0')}`)));
    const replies = flooders.map(() => ({ ack: 0, limit: 0, other: 0 }));
    flooders.forEach((f, i) =>
      f.ws.on('message', (raw) => {
        const m = JSON.parse(raw.toString()) as { type: string; reason?: string };
        if (m.type === 'ack') replies[i]!.ack++;
        else if (m.type === 'refused') replies[i]![m.reason === 'limit' ? 'limit' : 'other']++;
      }),
    );
    for (const [i, f] of flooders.entries()) {
      for (let k = 0; k < EACH; k++) f.send({ type: 'answer', token: f.token, answerId: `ans_f${i}x${k}xxxx`, question: `pre:${k % 3}`, choice: (k + i) % 3 });
    }
    await until(() => replies.every((r) => r.ack + r.limit + r.other === EACH), 'a reply to every answer', 60_000);
    for (const r of replies) expect(r).toEqual({ ack: 3 * MAX_ANSWERS_PER_QUESTION, limit: EACH - 3 * MAX_ANSWERS_PER_QUESTION, other: 0 });

    // The file: 3 questions × the limit lines per socket, whatever it sent.
    const text = readFileSync(data, 'utf8');
    const answerLinesWritten = text.split('\n').filter((l) => l.includes('"answer"'));
    expect(answerLinesWritten).toHaveLength(SOCKETS * 3 * MAX_ANSWERS_PER_QUESTION);
    const longest = Math.max(...answerLinesWritten.map((l) => Buffer.byteLength(l) + 1));
    expect(longest).toBeLessThan(200);
    const grew = statSync(data).size - size0;
    expect(grew).toBeLessThanOrEqual(SOCKETS * 3 * MAX_ANSWERS_PER_QUESTION * 200);
    console.log(`flood: ${SOCKETS} sockets × ${EACH} answers → ${answerLinesWritten.length} lines, ${grew} bytes (${(grew / SOCKETS / 3).toFixed(0)} per attendee and question)`);
    // The last answer taken counts (the tenth to each question), once per attendee.
    const lastChoice = (i: number, q: number) => {
      const ks = Array.from({ length: EACH }, (_, k) => k).filter((k) => k % 3 === q).slice(0, MAX_ANSWERS_PER_QUESTION);
      return (ks[ks.length - 1]! + i) % 3;
    };
    for (let q = 0; q < 3; q++) {
      const expected = [0, 0, 0];
      for (let i = 0; i < SOCKETS; i++) expected[lastChoice(i, q)]!++;
      expect(distribution(server.state(), `pre:${q}`, 3)).toEqual(expected);
    }

    // The bound survives a restart: the data file's lines are counted on replay.
    for (const c of [presenter, ...flooders]) c.ws.terminate();
    const port = server.port;
    await server.close();
    const again = await start({ data, port });
    const back = await attendee(again.port, 'att_flood0000');
    back.send({ type: 'answer', token: back.token, answerId: 'ans_afterrestart', question: 'pre:0', choice: 0 });
    expect(await back.next('refused')).toEqual({ type: 'refused', answerId: 'ans_afterrestart', reason: 'limit' });
    back.ws.terminate();
    await again.close();
  }, 60_000);

  it('a second hello with a connected attendee is refused with a code that says so; a reconnect once the first closed is taken; a phone whose old socket is gone gets in once it fails a ping', async () => {
    const clock = testClock();
    const data = dataFile();
    const server = await start({ data, clock });
    const presenter = await presenterOf(server.port, server.key);
    presenter.send({ type: 'open', key: server.key, question: 'pre' });
    await presenter.next('room');
    const alice = await attendee(server.port, 'att_alice_secret_1');
    alice.send({ type: 'answer', token: alice.token, answerId: 'ans_alice001', question: 'pre:0', choice: 2 });
    await alice.next('ack');

    // Someone with Alice's secret while her socket is up: refused, and nothing of hers changes.
    const mallory = await client(server.port);
    mallory.send({ type: 'hello', attendee: 'att_alice_secret_1' });
    expect(await mallory.closedWith()).toBe(ROOM_CLOSE.attendeeConnected);
    expect(mallory.reason()).toBe('this attendee is connected on another socket now; try again once it has closed');
    expect(mallory.drain().filter((m) => m.type === 'welcome')).toEqual([]);
    // Alice answered the server's ping: she is there, so trying again after the grace is refused again.
    await alice.pinged();
    alice.send({ type: 'answer', token: alice.token, answerId: 'ans_alice002', question: 'pre:0', choice: 1 });
    await alice.next('ack');
    clock.advance(PROBE_GRACE_MS);
    const mallory2 = await client(server.port);
    mallory2.send({ type: 'hello', attendee: 'att_alice_secret_1' });
    expect(await mallory2.closedWith()).toBe(ROOM_CLOSE.attendeeConnected);
    expect(distribution(server.state(), 'pre:0', 3)).toEqual([0, 1, 0]);

    // Alice's socket closes (a reload): her reconnect is taken, and her answer is still hers.
    alice.ws.close();
    await alice.closedWith();
    await until(() => server.stats.sockets === 1, 'Alice\u2019s socket closed on the server');
    const aliceBack = await attendee(server.port, 'att_alice_secret_1', { autoPong: false });
    aliceBack.send({ type: 'answer', token: aliceBack.token, answerId: 'ans_alice003', question: 'pre:0', choice: 0 });
    await aliceBack.next('ack');
    expect(distribution(server.state(), 'pre:0', 3)).toEqual([1, 0, 0]);

    // Her phone changes networks: the old socket is still open on the server but answers nothing.
    const phone = await client(server.port);
    phone.send({ type: 'hello', attendee: 'att_alice_secret_1' });
    expect(await phone.closedWith()).toBe(ROOM_CLOSE.attendeeConnected);
    await aliceBack.pinged();
    // The page tries again with its backoff; once the ping went unanswered for the grace, the attendee is taken over.
    clock.advance(PROBE_GRACE_MS);
    const phoneAgain = await attendee(server.port, 'att_alice_secret_1');
    expect(await aliceBack.closedWith()).toBe(ROOM_CLOSE.idle);
    phoneAgain.send({ type: 'answer', token: phoneAgain.token, answerId: 'ans_alice004', question: 'pre:0', choice: 2 });
    await phoneAgain.next('ack');
    expect(distribution(server.state(), 'pre:0', 3)).toEqual([0, 0, 1]);
    expect(readFileSync(data, 'utf8')).not.toContain('att_alice_secret_1');
    for (const c of [presenter, phoneAgain]) c.ws.terminate();
    await server.close();
  });
});
