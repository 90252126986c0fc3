/**
 * The room server on loopback: who may move the room, one attendee per socket, choices and phases,
 * the key kept beside the data file, the port taken before the replay, the Origin and address caps,
 * and a corpus of malformed requests, headers and frames after which the server still runs, the
 * others see what they saw, and the data file holds only valid answers. The process-level faults
 * (kill -9, signals, a port in use, a dead parent) are in room-process.test.ts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect as tcp, createServer as tcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { ROOM_CLOSE } from '../../src/room/protocol';
import { distribution, replay, type RoomEvent } from '../../src/room/state';
import { roomQuestions } from './questions';
import { RoomStartError, startRoomServer, type RoomServerOptions } from './room-server';

const dir = mkdtempSync(join(tmpdir(), 'room-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;
const dataFile = () => join(dir, `room-${files++}.jsonl`);
const dist = join(dir, 'dist');
mkdirSync(join(dist, 'assets'), { recursive: true });
writeFileSync(join(dist, 'index.html'), '<!doctype html><title>room</title>\n');
writeFileSync(join(dist, 'assets', 'app-1234.js'), 'console.log(1)\n');

const start = (o: Partial<RoomServerOptions> = {}) => startRoomServer({ port: 0, host: '127.0.0.1', data: dataFile(), dist, ...o });

type Msg = Record<string, unknown>;
/** A socket that queues what it receives, so a test can wait for the next message of a type. */
async function client(port: number, headers: Record<string, string> = {}) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/room`, { headers });
  const inbox: Msg[] = [];
  const waiters: (() => void)[] = [];
  let closed: number | null = null;
  ws.on('message', (raw) => {
    inbox.push(JSON.parse(raw.toString()) as Msg);
    waiters.splice(0).forEach((w) => w());
  });
  ws.on('close', (code) => {
    closed = code;
    waiters.splice(0).forEach((w) => w());
  });
  ws.on('error', () => undefined);
  await new Promise((done, fail) => (ws.once('open', done), ws.once('unexpected-response', (_req, res) => fail(new Error(`HTTP ${res.statusCode}`)))));
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
  /** The last room message after everything sent so far was handled (a hello or presenter round trip flushes the queue). */
  const drain = () => inbox.splice(0);
  return { ws, next, closedWith, drain, send: (m: object) => ws.send(JSON.stringify(m)) };
}
type Client = Awaited<ReturnType<typeof client>>;

async function attendee(port: number, id: string): Promise<Client & { token: string }> {
  const c = await client(port);
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
    expect(await presenter.next('room')).toMatchObject({ open: null, revealed: { 'ch:2': [0, 0, 1] } });
    presenter.send({ type: 'open', key: server.key, question: 'ch:2' });
    expect(await presenter.next('room')).toMatchObject({ open: null });
    bob.send({ type: 'answer', token: bob.token, answerId: 'ans_bob00002', question: 'ch:2', choice: 0 });
    expect(await bob.next('refused')).toMatchObject({ reason: 'closed' });
    // A quiz revealed with no answer is in the room's view (the page tells revealed by it).
    presenter.send({ type: 'reveal', key: server.key, question: 'pre' });
    expect(((await presenter.next('room')) as { revealed: Record<string, number[]> }).revealed['pre:0']).toEqual([0, 0, 0]);

    const lines = answerLines(data).filter((e) => e.kind === 'answer');
    expect(lines.map((e) => e.kind === 'answer' && [e.attendee, e.choice])).toEqual([
      ['att_alice123', 1],
      ['att_alice123', 2],
    ]);
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

  it('takes the room socket from the page\u2019s own origin or an allowed one, and caps sockets and attendees per address', async () => {
    const server = await start({ maxPerAddress: 3, allowOrigins: ['http://laptop.local:5173'] });
    const host = `127.0.0.1:${server.port}`;
    await expect(client(server.port, { origin: 'http://evil.example' })).rejects.toThrow('HTTP 403');
    await expect(client(server.port, { origin: 'not a url' })).rejects.toThrow('HTTP 403');
    const own = await client(server.port, { origin: `http://${host}` });
    const allowed = await client(server.port, { origin: 'http://laptop.local:5173' });
    const third = await client(server.port);
    await expect(client(server.port)).rejects.toThrow('HTTP 429');
    third.ws.terminate();
    await new Promise((r) => setTimeout(r, 50));
    // Three attendee ids from this address; a fourth is refused even over a socket freed meanwhile.
    const ids = ['att_one11111', 'att_two22222', 'att_three333'];
    for (const [i, c] of [own, allowed].entries()) c.send({ type: 'hello', attendee: ids[i]! });
    await own.next('welcome');
    await allowed.next('welcome');
    const one = await attendee(server.port, ids[2]!);
    one.ws.terminate();
    await new Promise((r) => setTimeout(r, 50));
    const four = await client(server.port);
    four.send({ type: 'hello', attendee: 'att_four4444' });
    expect(await four.closedWith()).toBe(ROOM_CLOSE.addressFull);
    // A phone coming back with its own id is taken.
    const back = await attendee(server.port, ids[2]!);
    for (const c of [own, allowed, back]) c.ws.terminate();
    await server.close();
  });

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
      ...fc.sample(word, { seed, numRuns: 50 }).map((w) => `GET /room HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${w}\r\nSec-WebSocket-Version: 13\r\n\r\n`),
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
              socket.write(`GET /room HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`);
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
    expect(answers.map((a) => a.attendee).sort()).toEqual(['att_honest01', 'att_honest02', 'att_honest03', 'att_latecome']);
    for (const a of answers) expect(a.choice).toBeLessThan(options.get(a.question)!);
    const skipped: number[] = [];
    replay(readFileSync(data, 'utf8'), { questions: options, onSkip: (l) => skipped.push(l.line) });
    expect(skipped).toEqual([]);
    for (const c of [presenter, ...honest, hostile, late]) c.ws.terminate();
    await server.close();
  }, 60_000);
});
