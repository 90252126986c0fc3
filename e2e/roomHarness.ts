/**
 * A workshop room for end-to-end tests: the room server (`npm run workshop`'s) as one Node process on a
 * loopback port the system gives it (`--port 0`: no other suite running this harness at the same time
 * can be handed the same one), over the build the preview server serves (`PW_DIST`, else dist/), with a
 * fresh data file, so that a kill is a real kill and a restart on the same port replays that file;
 * people opened in contexts of their own, each watching for requests to other origins and CSP errors.
 * `inRoom` closes everything after the test.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, Page } from '@playwright/test';

export const ROOM = 'talk';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const MAIN = join(REPO, 'scripts', 'workshop', 'main.ts');
/** tsx's loader by its file, not by name: the server may run in a folder of its own (see `startServer`). */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

export interface RoomServer {
  child: ChildProcess;
  /** The presenter key the server printed in the presenter's address. */
  key: string;
  /** Everything it printed. */
  output: () => string;
}

/**
 * Starts the workshop's server and waits until it prints the presenter's address (it listens then).
 * `port` 0 lets the system choose a free one (read back from what the server prints). The server
 * serves `<its working folder>/dist`: with PW_DIST it runs in `dir`, where `dist` links to that build
 * (the one the preview server serves, not a dist/ another suite may be rebuilding meanwhile).
 */
function startServer(port: number, dir: string, data: string, key?: string): Promise<RoomServer & { port: number }> {
  const args = ['--import', TSX, MAIN, '--port', String(port), '--host', '127.0.0.1', '--room', ROOM, '--data', data];
  if (key !== undefined) args.push('--key', key);
  const child = spawn(process.execPath, args, { cwd: process.env.PW_DIST ? dir : REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((done, fail) => {
    let out = '';
    // An upper bound: tsx compiles the server on every start, slow on a loaded machine.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`room server did not start:\n${out}`));
    }, 60_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      const on = /Room "[^"]*" on http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
      const printed = /Presenter \(keep this secret\): \S*#key=([A-Za-z0-9_-]+)/.exec(out);
      if (on && printed) {
        clearTimeout(timer);
        done({ child, port: Number(on[1]), key: printed[1]!, output: () => out });
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

/**
 * Opens `path` for one person in a context of their own. `init` (one script or several) runs in the page before its scripts;
 * `prepare` gets the page before it navigates (to install Playwright's clock, say).
 */
export async function open(
  browser: Browser,
  base: string,
  path: string,
  name: string,
  options: Parameters<Browser['newContext']>[0] = {},
  init?: (() => void) | (() => void)[],
  prepare?: (page: Page) => Promise<void>,
): Promise<Person> {
  const context = await browser.newContext({ baseURL: base, ...options });
  const page = await context.newPage();
  for (const script of init === undefined ? [] : Array.isArray(init) ? init : [init]) await page.addInitScript(script);
  await prepare?.(page);
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
  if (process.env.PW_DIST) symlinkSync(resolve(process.env.PW_DIST), join(dir, 'dist'));
  let server = await startServer(0, dir, data, options.key);
  // Restarts take the same port again: the pages' origin, to which they reconnect.
  const port = server.port;
  const people: Person[] = [];
  try {
    await body({
      base: `http://127.0.0.1:${port}/`,
      data,
      people,
      key: () => server.key,
      stopServer: () => kill(server.child),
      restartServer: async () => {
        server = await startServer(port, dir, data, options.key);
      },
    });
  } finally {
    await Promise.all(people.map((p) => p.page.context().close()));
    await kill(server.child);
    rmSync(dir, { recursive: true, force: true });
  }
}
