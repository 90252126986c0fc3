/**
 * A workshop room end to end: the room server (npm run workshop's, over the built dist/) on a port
 * of its own with a fresh data file; a presenter and five attendees (one a phone at 390×844, one in
 * French) follow a chapter, answer its question, the presenter's panel counts them and, on reveal,
 * every phone shows the room's split beside the right answer. The server is killed mid-way and
 * started again on the same data file: every acknowledged answer and the beat are still there, the
 * phones reconnect on their own and the answers given meanwhile arrive. And a page with no room
 * opens no socket.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from '@playwright/test';
import { replay } from '../src/room/state.ts';
import { expect, test } from './fixtures.ts';

const KEY = 'e2e_presenter_key';
const ROOM = 'talk';

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

/** Starts the workshop's server (one Node process, so a kill is a real kill) and waits until it listens. */
function startServer(port: number, data: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/workshop/main.ts', '--port', String(port), '--host', '127.0.0.1', '--room', ROOM, '--data', data, '--key', KEY], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((done, fail) => {
    let out = '';
    const timer = setTimeout(() => fail(new Error(`room server did not start:\n${out}`)), 30_000);
    const read = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Presenter (keep this secret)')) {
        clearTimeout(timer);
        done(child);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => fail(new Error(`room server exited (${code}):\n${out}`)));
  });
}

function kill(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGKILL');
  });
}

interface Person {
  page: Page;
  name: string;
  foreign: string[];
  cspErrors: string[];
}

async function open(browser: Browser, base: string, path: string, name: string, options: Parameters<Browser['newContext']>[0] = {}): Promise<Person> {
  const context = await browser.newContext({ baseURL: base, ...options });
  const page = await context.newPage();
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

const panel = (p: Page) => p.getByTestId('walkthrough');
const roomBar = (p: Page) => p.getByTestId('room-bar');
const question = (p: Page) => panel(p).getByTestId('room-question');

test.describe.configure({ mode: 'serial' });

test('a presenter and five phones: follow, answer, count, reveal; the server killed and restarted loses no acknowledged answer', async ({ browser }) => {
  test.setTimeout(150_000);
  const dir = mkdtempSync(join(tmpdir(), 'room-e2e-'));
  const data = join(dir, 'room.jsonl');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/`;
  let server = await startServer(port, data);
  const people: Person[] = [];
  try {
    // Five attendees wait in the room before the talk starts; one is a phone, one reads French.
    const attendeeOptions: Parameters<Browser['newContext']>[0][] = [
      { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
      {},
      {},
      {},
      {},
    ];
    const attendees = await Promise.all(
      attendeeOptions.map((o, i) => open(browser, base, `./?room=${ROOM}${i === 1 ? '&lang=fr' : ''}`, `attendee ${i + 1}`, o)),
    );
    people.push(...attendees);
    for (const a of attendees) await expect(roomBar(a.page)).toHaveAttribute('data-link', 'open');
    await expect(roomBar(attendees[1]!.page)).toContainText('Salle talk');

    // The presenter opens chapter 2 (its question comes first) with the key; reduced motion plays the waits at once.
    const presenter = await open(browser, base, `./?room=${ROOM}&ch=2#key=${KEY}`, 'presenter', { reducedMotion: 'reduce' });
    people.push(presenter);
    await expect(roomBar(presenter.page)).toHaveAttribute('data-role', 'presenter');
    await expect(panel(presenter.page)).toHaveAttribute('data-status', 'checkpoint', { timeout: 60_000 });

    // Everyone follows: chapter 2, at its question, open for answers.
    for (const a of attendees) {
      await expect(panel(a.page)).toHaveAttribute('data-chapter', '2', { timeout: 60_000 });
      await expect(question(a.page)).toHaveAttribute('data-open', 'true');
    }
    await expect(question(attendees[1]!.page)).toContainText('Quand les requêtes de préchauffage se termineront');

    // One looks around (the chapter before), then goes back to the presenter.
    const looker = attendees[2]!.page;
    await panel(looker).getByTestId('walk-prev').click();
    await expect(panel(looker)).toHaveAttribute('data-chapter', '1');
    await looker.getByTestId('room-back').click();
    await expect(panel(looker)).toHaveAttribute('data-chapter', '2');
    await expect(looker.getByTestId('room-back')).toHaveCount(0);

    // Three answer (the phone by touch, the others by click and by keyboard), and the room acknowledges them.
    const choices = [1, 0, 1, 2, 1];
    await question(attendees[0]!.page).getByTestId('room-option').nth(choices[0]!).tap();
    await question(attendees[1]!.page).getByTestId('room-option').nth(choices[1]!).click();
    const kb = question(attendees[2]!.page).getByTestId('room-option').nth(choices[2]!);
    await kb.focus();
    await attendees[2]!.page.keyboard.press('Enter');
    for (const a of attendees.slice(0, 3)) await expect(question(a.page)).toHaveAttribute('data-state', 'acked');
    const tally = panel(presenter.page).getByTestId('room-tally');
    await expect(tally).toHaveAttribute('data-count', '3');

    // The server dies. What it acknowledged, and the beat, are on disk.
    await kill(server);
    const onDisk = replay(readFileSync(data, 'utf8'));
    expect(onDisk.chapter).toBe(2);
    expect(onDisk.beat).toBe(0);
    expect(onDisk.answers.get('ch:2')?.size).toBe(3);
    for (const p of [...attendees, presenter]) await expect(roomBar(p.page)).toHaveAttribute('data-link', 'reconnecting');

    // Two answer while it is down: their answers wait, unacknowledged.
    await question(attendees[3]!.page).getByTestId('room-option').nth(choices[3]!).click();
    await question(attendees[4]!.page).getByTestId('room-option').nth(choices[4]!).click();
    for (const a of attendees.slice(3)) await expect(question(a.page)).toHaveAttribute('data-state', 'sending');

    // Restarted on the same data file: everyone reconnects by themselves and the waiting answers arrive.
    server = await startServer(port, data);
    for (const p of [...attendees, presenter]) await expect(roomBar(p.page)).toHaveAttribute('data-link', 'open', { timeout: 20_000 });
    for (const a of attendees) await expect(question(a.page)).toHaveAttribute('data-state', 'acked');
    await expect(tally).toHaveAttribute('data-count', '5');
    await expect(tally.getByTestId('room-count')).toContainText('5 answered');

    // The presenter reveals (Next twice: point at the question, then reveal): the split reaches every phone.
    await presenter.page.getByTestId('walk-next').click();
    await expect(panel(presenter.page).getByTestId('checkpoint').getByRole('status')).toContainText('press Next again');
    await presenter.page.getByTestId('walk-next').click();
    await expect(panel(presenter.page)).toHaveAttribute('data-status', /done|running/);
    const expected = [0, 1, 2].map((o) => choices.filter((c) => c === o).length).join(',');
    await expect(tally).toHaveAttribute('data-revealed', expected);
    await expect(tally.locator('[data-right="true"]')).toHaveAttribute('data-count', '3');
    for (const [i, a] of attendees.entries()) {
      const t = panel(a.page).getByTestId('room-tally');
      await expect(t).toHaveAttribute('data-revealed', expected);
      await expect(panel(a.page).getByTestId('checkpoint-result')).toHaveAttribute('data-correct', choices[i] === 1 ? 'true' : 'false');
      // And they follow the presenter to the chapter's end.
      await expect(panel(a.page)).toHaveAttribute('data-status', 'done', { timeout: 30_000 });
    }
    await expect(panel(attendees[1]!.page).getByTestId('room-distribution')).toContainText('bonne réponse');

    // A late joiner lands on the presenter's beat.
    const late = await open(browser, base, `./?room=${ROOM}`, 'late');
    people.push(late);
    await expect(panel(late.page)).toHaveAttribute('data-chapter', '2', { timeout: 60_000 });
    await expect(panel(late.page)).toHaveAttribute('data-status', 'done', { timeout: 30_000 });

    for (const p of people) {
      expect(p.foreign, `${p.name}: requests to other origins`).toEqual([]);
      expect(p.cspErrors, `${p.name}: CSP errors`).toEqual([]);
    }
  } finally {
    await Promise.all(people.map((p) => p.page.context().close()));
    await kill(server);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('without a room the page opens no socket; a bad room name is named and ignored', async ({ page }) => {
  const sockets: string[] = [];
  page.on('websocket', (ws) => sockets.push(ws.url()));
  await page.goto('./?room=bad%20name!');
  await expect(page.getByTestId('notices')).toContainText('room=bad name!');
  await expect(page.getByTestId('room-bar')).toHaveCount(0);
  await page.goto('./?ch=2');
  await expect(panel(page)).toHaveAttribute('data-status', 'checkpoint', { timeout: 60_000 });
  await expect(page.getByTestId('room-bar')).toHaveCount(0);
  expect(sockets).toEqual([]);
});
