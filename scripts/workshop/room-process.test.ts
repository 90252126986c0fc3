/**
 * `npm run workshop`'s process (main.ts, one Node process as package.json starts it) under faults:
 * kill -9 mid-talk and the same command again keeps the key and every acknowledged answer, none
 * counted twice; SIGTERM closes it cleanly (the port free, the file whole); a port in use and a key no
 * page could send are one line and exit 2; and when the process that started it dies without passing
 * a signal on (npm killed), it does not stay behind holding the port.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { replay } from '../../src/room/state';
import { roomQuestions } from './questions';

const repo = resolve(import.meta.dirname, '../..');
const main = join(repo, 'scripts/workshop/main.ts');
const tsx = join(repo, 'node_modules/tsx/dist/loader.mjs');
// main.ts serves ./dist of its working directory: a folder of its own with a page, so no build runs.
const cwd = mkdtempSync(join(tmpdir(), 'room-process-'));
mkdirSync(join(cwd, 'dist'));
writeFileSync(join(cwd, 'dist', 'index.html'), '<!doctype html><title>room</title>\n');
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

function freePort(): Promise<number> {
  return new Promise((done) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => done(port));
    });
  });
}

/** The room's own page origin: the server takes a socket only with it. */
const origin = (port: number) => `http://127.0.0.1:${port}`;

/** Whether something listens on the port (a connection is accepted). */
const listening = (port: number) =>
  new Promise<boolean>((done) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/room`, { origin: origin(port) });
    ws.on('open', () => (ws.terminate(), done(true)));
    ws.on('error', () => done(false));
  });

interface Run {
  child: ChildProcess;
  out: () => string;
  exited: Promise<number | null>;
}

/** Runs main.ts as `npm run workshop` does (or under a shell of its own), resolving once it printed the presenter's address or exited. */
async function workshop(args: string[], viaShell = false): Promise<Run> {
  const command = [process.execPath, '--import', tsx, main, ...args];
  const child = viaShell
    ? spawn('sh', ['-c', `${command.map((a) => `'${a}'`).join(' ')} & wait`], { cwd, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(command[0]!, command.slice(1), { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  await Promise.race([
    exited,
    new Promise<void>((done) => {
      const check = () => (out.includes('Presenter (keep this secret)') ? done() : setTimeout(check, 20));
      check();
    }),
  ]);
  return { child, out: () => out, exited };
}

const keyIn = (out: string) => /#key=([A-Za-z0-9_-]+)/.exec(out)?.[1];

async function socket(port: number) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/room`, { origin: origin(port) });
  const inbox: Record<string, unknown>[] = [];
  ws.on('message', (raw) => inbox.push(JSON.parse(raw.toString()) as Record<string, unknown>));
  ws.on('error', () => undefined);
  await new Promise((done, fail) => (ws.once('open', done), ws.once('error', fail)));
  const next = async (type: string) => {
    for (let i = 0; i < 500; i++) {
      const at = inbox.findIndex((m) => m.type === type);
      if (at >= 0) return inbox.splice(at, 1)[0]!;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`no ${type}`);
  };
  return { ws, inbox, next, send: (m: object) => ws.send(JSON.stringify(m)) };
}

describe('the workshop process', () => {
  it('kill -9 mid-talk, then the same command: the same key, every acknowledged answer once, the presenter taken back', async () => {
    const port = await freePort();
    const data = join(cwd, 'kill.jsonl');
    const args = ['--port', String(port), '--host', '127.0.0.1', '--data', data];
    const first = await workshop(args);
    const key = keyIn(first.out())!;
    expect(key).toMatch(/^key_/);
    const presenter = await socket(port);
    presenter.send({ type: 'presenter', key });
    await presenter.next('presenter');
    presenter.send({ type: 'goto', key, chapter: 4, beat: 9 });
    presenter.send({ type: 'open', key, question: 'ch:4' });
    // Forty phones answer at once; the process is killed while the acks are coming back.
    const phones = await Promise.all(Array.from({ length: 40 }, () => socket(port)));
    const tokens: string[] = [];
    for (const [i, p] of phones.entries()) p.send({ type: 'hello', attendee: `att_phone${String(i).padStart(3, '0')}` });
    for (const p of phones) tokens.push((await p.next('welcome')).token as string);
    await phones[0]!.next('room');
    await new Promise((r) => setTimeout(r, 50));
    const acked = new Set<string>();
    phones.forEach((p, i) => p.ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString()) as { type: string; answerId?: string };
      if (m.type === 'ack') acked.add(m.answerId!);
    }));
    phones.forEach((p, i) => p.send({ type: 'answer', token: tokens[i], answerId: `ans_phone${String(i).padStart(3, '0')}`, question: 'ch:4', choice: i % 4 }));
    while (acked.size < 10) await new Promise((r) => setImmediate(r));
    first.child.kill('SIGKILL');
    await first.exited;
    const ackedBeforeKill = new Set(acked);

    const second = await workshop(args);
    expect(keyIn(second.out())).toBe(key);
    // The presenter's page reconnects with its key and is taken; every phone sends what was not acknowledged again.
    const back = await socket(port);
    back.send({ type: 'presenter', key });
    await back.next('presenter');
    const room = (await back.next('room')) as { chapter: number; beat: number; open: string | null };
    expect(room).toMatchObject({ chapter: 4, beat: 9, open: 'ch:4' });
    const again = await Promise.all(phones.map(() => socket(port)));
    const resent = new Set<string>();
    for (const [i, p] of again.entries()) {
      p.send({ type: 'hello', attendee: `att_phone${String(i).padStart(3, '0')}` });
      const { token } = (await p.next('welcome')) as { token: string };
      // A phone resends every answer it has no ack for, and (as after a lost ack) some it has.
      p.send({ type: 'answer', token, answerId: `ans_phone${String(i).padStart(3, '0')}`, question: 'ch:4', choice: i % 4 });
      resent.add(((await p.next('ack')) as { answerId: string }).answerId);
    }
    expect(resent.size).toBe(40);
    for (const c of [back, presenter, ...phones, ...again]) c.ws.terminate();
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    const state = replay(readFileSync(data, 'utf8'), { questions: roomQuestions() });
    for (const id of ackedBeforeKill) expect(state.seen.has(id)).toBe(true);
    expect(state.answers.get('ch:4')?.size).toBe(40);
    const lines = readFileSync(data, 'utf8').split('\n').filter((l) => l.includes('"answer"'));
    // Each answer id is on at most one whole line: none counted twice, even across the kill.
    const ids = lines.flatMap((l) => (l.endsWith('}') ? [(JSON.parse(l) as { answerId: string }).answerId] : []));
    expect(new Set(ids).size).toBe(ids.length);
    expect(readFileSync(`${data}.key`, 'utf8').trim()).toBe(key);
  }, 60_000);

  it('SIGTERM closes cleanly and frees the port; a port in use and a bad --key are one line and exit 2', async () => {
    const port = await freePort();
    const data = join(cwd, 'term.jsonl');
    const run = await workshop(['--port', String(port), '--host', '127.0.0.1', '--data', data]);
    const busy = await workshop(['--port', String(port), '--host', '127.0.0.1', '--data', join(cwd, 'other.jsonl')]);
    expect(await busy.exited).toBe(2);
    expect(busy.out().trim().split('\n')).toEqual([`workshop: port ${port} on 127.0.0.1 is already in use (another room or server?): stop it or give --port`]);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(await listening(port)).toBe(false);

    const bad = await workshop(['--port', String(port), '--host', '127.0.0.1', '--data', data, '--key', 'abc']);
    expect(await bad.exited).toBe(2);
    expect(bad.out().trim()).toMatch(/^workshop: --key: 8 to 64 characters of A-Z, a-z, 0-9, '-' and '_' .*got "abc"$/);
    const flag = await workshop(['--port', 'eighty']);
    expect(await flag.exited).toBe(2);
    expect(flag.out().trim()).toBe('workshop: --port must be a whole number from 0 to 65535, got "eighty"');
  }, 60_000);

  it('--idle-timeout closes a silent connection (the real clock); an address at --max-per-address is said once with the flag; bad values are one line and exit 2', async () => {
    const port = await freePort();
    const run = await workshop(['--port', String(port), '--host', '127.0.0.1', '--data', join(cwd, 'idle.jsonl'), '--idle-timeout', '1', '--max-per-address', '2']);
    // A connection that sends nothing: answered 408 and closed about a second later (the sweep runs every quarter of it).
    const t0 = performance.now();
    const answer = await new Promise<string>((done) => {
      const s = connect(port, '127.0.0.1');
      let text = '';
      s.on('data', (c: Buffer) => (text += c.toString()));
      s.on('close', () => done(text));
      s.on('error', () => undefined);
    });
    const waited = performance.now() - t0;
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*no request for 1 s \(--idle-timeout\)/);
    expect(waited).toBeGreaterThanOrEqual(900);
    expect(waited).toBeLessThan(5000);
    // Two sockets fill the address; the third is refused and the command says how to raise the limit, once.
    const two = [await socket(port), await socket(port)];
    for (let i = 0; i < 3; i++) await expect(socket(port)).rejects.toThrow('429');
    for (let i = 0; i < 500 && !run.out().includes('--max-per-address'); i++) await new Promise((r) => setTimeout(r, 10));
    expect(run.out().match(/127\.0\.0\.1 has 2 sockets open, the limit per address: its next phones wait until one closes \(raise it with --max-per-address/g)).toHaveLength(1);
    for (const c of two) c.ws.terminate();
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    const bad = await workshop(['--idle-timeout', '0']);
    expect(await bad.exited).toBe(2);
    expect(bad.out().trim()).toBe('workshop: --idle-timeout must be a whole number from 1 to 86400, got "0"');
  }, 60_000);

  it('does not outlive the process that started it', async () => {
    const port = await freePort();
    const run = await workshop(['--port', String(port), '--host', '127.0.0.1', '--data', join(cwd, 'orphan.jsonl')], true);
    expect(await listening(port)).toBe(true);
    // The shell (npm's place) is killed with no chance to pass a signal on: the room notices and closes.
    run.child.kill('SIGKILL');
    let up = true;
    for (let i = 0; i < 50 && up; i++) {
      await new Promise((r) => setTimeout(r, 100));
      up = await listening(port);
    }
    expect(up).toBe(false);
  }, 30_000);
});
