/**
 * A workshop room for end-to-end tests: the room server (`npm run workshop`'s, over the built dist/)
 * as one Node process on a free loopback port with a fresh data file, so that a kill is a real kill
 * and a restart replays that file; people opened in contexts of their own, each watching for
 * requests to other origins and CSP errors. `inRoom` closes everything after the test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from '@playwright/test';

export const ROOM = 'talk';

/** A free port on loopback (asked of the system, then released for the server). */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => done(port));
    });
  });
}

export interface RoomServer {
  child: ChildProcess;
  /** The presenter key the server printed in the presenter's address. */
  key: string;
  /** Everything it printed. */
  output: () => string;
}

/** Starts the workshop's server and waits until it prints the presenter's address (it listens then). */
function startServer(port: number, data: string, key?: string): Promise<RoomServer> {
  const args = ['--import', 'tsx', 'scripts/workshop/main.ts', '--port', String(port), '--host', '127.0.0.1', '--room', ROOM, '--data', data];
  if (key !== undefined) args.push('--key', key);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((done, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`room server did not start:\n${out}`)), 30_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const printed = /Presenter \(keep this secret\): \S*#key=([A-Za-z0-9_-]+)/.exec(out);
      if (printed) {
        clearTimeout(timer);
        done({ child, key: printed[1]!, output: () => out });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => fail(new Error(`room server exited (${code}):\n${out}`)));
  });
}

/** kill -9: the process gets no chance to flush or say goodbye. */
function kill(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGKILL');
  });
}

export interface Person {
  page: Page;
  name: string;
  foreign: string[];
  cspErrors: string[];
}

export async function open(browser: Browser, base: string, path: string, name: string, options: Parameters<Browser['newContext']>[0] = {}, init?: () => void): Promise<Person> {
  const context = await browser.newContext({ baseURL: base, ...options });
  const page = await context.newPage();
  if (init) await page.addInitScript(init);
  const origin = new URL(base).origin;
  const person: Person = { page, name, foreign: [], cspErrors: [] };
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.origin !== origin && url.protocol !== 'data:' && url.protocol !== 'blob:') person.foreign.push(r.url());
  });
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) person.cspErrors.push(m.text());
  });
  await page.goto(path);
  return person;
}

export interface Room {
  base: string;
  data: string;
  people: Person[];
  /** The presenter key of the server now running. */
  key: () => string;
  stopServer: () => Promise<void>;
  restartServer: () => Promise<void>;
}

/**
 * A room on its own port and data file for one test: the server, the people it opened, all closed
 * after. `key` starts the server with `--key`; without it the server makes (and keeps) its own.
 */
export async function inRoom(body: (room: Room) => Promise<void>, options: { key?: string } = {}): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'room-e2e-'));
  const data = join(dir, 'room.jsonl');
  const port = await freePort();
  let server = await startServer(port, data, options.key);
  const people: Person[] = [];
  try {
    await body({
      base: `http://127.0.0.1:${port}/`,
      data,
      people,
      key: () => server.key,
      stopServer: () => kill(server.child),
      restartServer: async () => {
        server = await startServer(port, data, options.key);
      },
    });
  } finally {
    await Promise.all(people.map((p) => p.page.context().close()));
    await kill(server.child);
    rmSync(dir, { recursive: true, force: true });
  }
}
