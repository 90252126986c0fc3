import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { distribution } from '../../src/room/state';
import { startRoomServer } from './room-server';

const dir = mkdtempSync(join(tmpdir(), 'room-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A socket that queues what it receives, so a test can wait for the next message of a type. */
async function connect(port: number) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/room`);
  const inbox: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (raw) => {
    inbox.push(JSON.parse(raw.toString()) as Record<string, unknown>);
    waiters.splice(0).forEach((w) => w());
  });
  await new Promise((done) => ws.once('open', done));
  const next = async (type: string): Promise<Record<string, unknown>> => {
    for (;;) {
      const i = inbox.findIndex((m) => m.type === type);
      if (i >= 0) return inbox.splice(i, 1)[0]!;
      await new Promise<void>((w) => waiters.push(w));
    }
  };
  return { ws, next, send: (m: object) => ws.send(JSON.stringify(m)) };
}

describe('room server', () => {
  it('only the presenter moves the room; a token binds answers to their socket; a restart keeps every acked answer and the beat', async () => {
    const data = join(dir, 'room.jsonl');
    const server = await startRoomServer({ port: 0, host: '127.0.0.1', data });
    const presenter = await connect(server.port);
    presenter.send({ type: 'presenter', key: server.key });
    await presenter.next('presenter');

    const alice = await connect(server.port);
    alice.send({ type: 'hello', attendee: 'att_alice123' });
    const { token } = (await alice.next('welcome')) as { token: string };
    const bob = await connect(server.port);
    bob.send({ type: 'hello', attendee: 'att_bob12345' });
    await bob.next('welcome');

    // An attendee cannot move the room, even with a well-formed message.
    alice.send({ type: 'goto', key: 'guessed_key_123', chapter: 5, beat: 1 });
    presenter.send({ type: 'goto', key: server.key, chapter: 2, beat: 3 });
    presenter.send({ type: 'open', key: server.key, question: 'ch:2' });
    await alice.next('room');
    await alice.next('room');
    expect(server.state()).toMatchObject({ chapter: 2, beat: 3, open: 'ch:2' });
    expect(server.stats.unauthorised).toBe(1);

    // Bob cannot answer with Alice's token; Alice's answer is acked once, a resend is not counted twice.
    bob.send({ type: 'answer', token, answerId: 'ans_spoofed1', question: 'ch:2', choice: 0 });
    expect(await bob.next('refused')).toMatchObject({ answerId: 'ans_spoofed1' });
    alice.send({ type: 'answer', token, answerId: 'ans_alice001', question: 'ch:2', choice: 1 });
    await alice.next('ack');
    alice.send({ type: 'answer', token, answerId: 'ans_alice001', question: 'ch:2', choice: 1 });
    await alice.next('ack');
    alice.ws.send('{"type":"answer"');
    await new Promise((r) => setTimeout(r, 20));
    expect(server.stats.dropped).toBe(1);
    expect(distribution(server.state(), 'ch:2', 3)).toEqual([0, 1, 0]);
    expect(readFileSync(data, 'utf8')).toContain('ans_alice001');

    // Killed and restarted on the same data file: the acked answer and the beat are there.
    for (const c of [presenter, alice, bob]) c.ws.terminate();
    await server.close();
    const again = await startRoomServer({ port: 0, host: '127.0.0.1', data });
    expect(again.state()).toMatchObject({ chapter: 2, beat: 3, open: 'ch:2' });
    expect(distribution(again.state(), 'ch:2', 3)).toEqual([0, 1, 0]);
    await again.close();
  });
});
