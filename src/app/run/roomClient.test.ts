/**
 * The room client against the real room server (scripts/workshop/room-server.ts) on loopback, over
 * `ws` sockets. A lossy link (a socket that loses the server's acks, then drops) shows the resend:
 * an answer not acknowledged is sent again once on the next connection, counted once by the server,
 * and given up after its second send.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startRoomServer, type RoomServer } from '../../../scripts/workshop/room-server.ts';
import { answerCount } from '../../room/state.ts';
import { initialRoomView, type RoomView } from '../state/room.ts';
import { quizPress } from '../walkthrough/quizKeys.ts';
import { attendeeTarget, RoomClient, type SocketLike } from './roomClient.ts';

const dir = mkdtempSync(join(tmpdir(), 'room-client-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Waits until `check` holds (what the client or server says), polling each event-loop turn. */
async function until(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A link that can lose the server's acks and drop: the network a phone on a room's Wi-Fi has. */
function lossyLink() {
  const link = { loseAcks: false, sockets: [] as WebSocket[], sent: [] as Record<string, unknown>[] };
  const factory = (url: string): SocketLike => {
    // The page's own origin, as a browser sends it (the server takes no socket without one).
    const ws = new WebSocket(url, { origin: new URL(url.replace(/^ws/, 'http')).origin });
    link.sockets.push(ws);
    const shell: SocketLike = {
      get readyState() {
        return ws.readyState;
      },
      send: (data: string) => {
        link.sent.push(JSON.parse(data) as Record<string, unknown>);
        ws.send(data);
      },
      close: () => ws.close(),
      onopen: null,
      onmessage: null,
      onclose: null,
      onerror: null,
    };
    ws.on('open', () => shell.onopen?.({}));
    ws.on('message', (raw) => {
      const text = raw.toString();
      if (link.loseAcks && (JSON.parse(text) as { type: string }).type === 'ack') return;
      shell.onmessage?.({ data: text });
    });
    ws.on('close', (code: number) => shell.onclose?.({ code }));
    ws.on('error', () => shell.onerror?.({}));
    return shell;
  };
  return { link, factory };
}

async function room(name: string): Promise<{ server: RoomServer; data: string }> {
  const data = join(dir, `${name}.jsonl`);
  return { server: await startRoomServer({ port: 0, host: '127.0.0.1', data, key: 'test_presenter_key' }), data };
}

function client(server: RoomServer, factory: (url: string) => SocketLike, key: string | null = null, attendee = `attendee_${Math.random().toString(36).slice(2, 10)}`) {
  let view: RoomView | null = null;
  let ids = 0;
  const c = new RoomClient({
    url: `ws://127.0.0.1:${server.port}/room`,
    room: 'talk',
    key,
    attendee,
    socket: factory,
    onView: (v) => (view = v),
    random: () => 0,
    newId: () => `answer_${key ?? 'a'}_${ids++}`,
  });
  return { c, view: () => view ?? c.current };
}

describe('room client', () => {
  it('follows the room, sends an unacknowledged answer again once after a drop, and the server counts it once', async () => {
    const { server } = await room('resend');
    const presenter = client(server, lossyLink().factory, 'test_presenter_key');
    await until(() => presenter.view().presenterConfirmed, 'the presenter confirmed');
    presenter.c.goto(2, 0);
    presenter.c.open('ch:2');

    const { link, factory } = lossyLink();
    const phone = client(server, factory);
    await until(() => phone.view().synced && phone.view().open === 'ch:2' && phone.view().chapter === 2, 'the phone following chapter 2 with its question open');

    link.loseAcks = true;
    phone.c.answer('ch:2', 1);
    await until(() => answerCount(server.state(), 'ch:2') === 1, 'the answer taken');
    expect(phone.view().mine['ch:2']).toMatchObject({ choice: 1, state: 'sending' });
    expect(phone.c.unacknowledged).toBe(1);

    // The link drops; the client reconnects on its own and sends the same answer id again, once.
    link.loseAcks = false;
    link.sockets.at(-1)!.terminate();
    await until(() => phone.view().link === 'reconnecting' || link.sockets.length > 1, 'the drop seen');
    await until(() => phone.view().mine['ch:2']?.state === 'acked', 'the resent answer acknowledged');
    const answers = link.sent.filter((m) => m.type === 'answer');
    expect(answers.map((m) => m.answerId)).toEqual(['answer_a_0', 'answer_a_0']);
    expect(answerCount(server.state(), 'ch:2')).toBe(1);
    expect(server.stats.answers).toBe(1);
    expect(phone.c.unacknowledged).toBe(0);

    presenter.c.stop();
    phone.c.stop();
    await server.close();
  });

  it('gives an answer up after its second send, and says so', async () => {
    const { server } = await room('lost');
    const presenter = client(server, lossyLink().factory, 'test_presenter_key');
    await until(() => presenter.view().presenterConfirmed, 'the presenter confirmed');
    presenter.c.open('ch:4');
    const { link, factory } = lossyLink();
    const phone = client(server, factory);
    await until(() => phone.view().open === 'ch:4', 'the question open');
    link.loseAcks = true;
    phone.c.answer('ch:4', 0);
    for (let drop = 1; drop <= 2; drop++) {
      await until(() => link.sent.filter((m) => m.type === 'answer').length === drop, `send ${drop}`);
      link.sockets.at(-1)!.terminate();
      await until(() => link.sockets.length === drop + 1 && link.sockets.at(-1)!.readyState === WebSocket.OPEN, `reconnection ${drop}`);
    }
    await until(() => phone.view().mine['ch:4']?.state === 'lost', 'the answer given up');
    expect(link.sent.filter((m) => m.type === 'answer')).toHaveLength(2);
    expect(answerCount(server.state(), 'ch:4')).toBe(1);
    presenter.c.stop();
    phone.c.stop();
    await server.close();
  });

  it('reconnects to a server restarted on the same data file: the beat kept, an answer given meanwhile arrives', async () => {
    const { server, data } = await room('restart');
    const presenter = client(server, lossyLink().factory, 'test_presenter_key');
    await until(() => presenter.view().presenterConfirmed, 'the presenter confirmed');
    presenter.c.goto(4, 2);
    presenter.c.open('ch:4');
    const phone = client(server, lossyLink().factory);
    await until(() => phone.view().chapter === 4 && phone.view().beat === 2 && phone.view().open === 'ch:4', 'following beat 2 of chapter 4');
    presenter.c.stop();
    const port = server.port;
    await server.close();
    await until(() => phone.view().link === 'reconnecting', 'the drop seen');
    phone.c.answer('ch:4', 2);
    expect(phone.view().mine['ch:4']!.state).toBe('sending');
    const again = await startRoomServer({ port, host: '127.0.0.1', data, key: 'test_presenter_key' });
    await until(() => phone.view().mine['ch:4']?.state === 'acked', 'the waiting answer acknowledged', 15_000);
    expect(phone.view()).toMatchObject({ link: 'open', chapter: 4, beat: 2 });
    expect(answerCount(again.state(), 'ch:4')).toBe(1);
    phone.c.stop();
    await again.close();
  });

  it('a second tab of the same phone (its attendee connected) is refused for now, keeps trying, and is taken once the first closes', async () => {
    const { server } = await room('second-tab');
    const first = client(server, lossyLink().factory, null, 'attendee_same_phone');
    await until(() => first.view().link === 'open', 'the first tab in');
    const { link, factory } = lossyLink();
    const second = client(server, factory, null, 'attendee_same_phone');
    // Refused with a code that is not a refusal for good: the page tries again on its own, never says "refused".
    await until(() => link.sockets.length >= 2, 'the second tab trying again');
    expect(second.view().link).not.toBe('refused');
    expect(second.view().link).not.toBe('open');
    first.c.stop();
    await until(() => second.view().link === 'open', 'the second tab in once the first closed', 15_000);
    expect(second.view().refused).toBeNull();
    second.c.stop();
    await server.close();
  });

  it('two presses of the presenter\u2019s key in one turn, before the room echoes the first: the quiz opens, then is revealed', async () => {
    const { server } = await room('two-presses');
    const { link, factory } = lossyLink();
    const presenter = client(server, factory, 'test_presenter_key');
    await until(() => presenter.view().presenterConfirmed && presenter.view().synced, 'the presenter confirmed');
    // What the page's key map does on each press (Walkthrough.tsx, LiveScreen.tsx), with no message in between.
    for (let press = 0; press < 3; press++) {
      const move = quizPress(presenter.view(), 'pre');
      if (move) (move.kind === 'open' ? presenter.c.open : presenter.c.reveal).call(presenter.c, move.phase);
    }
    expect(link.sent.filter((m) => m.type === 'open' || m.type === 'reveal').map((m) => m.type)).toEqual(['open', 'reveal']);
    await until(() => presenter.view().revealed['pre:0'] !== undefined, 'the quiz revealed');
    expect(presenter.view().moving).toEqual({});
    presenter.c.stop();
    await server.close();
  });

  it('a presenter page whose key the room refuses says so, and does not try again with it', async () => {
    const { server } = await room('refused');
    const { link, factory } = lossyLink();
    const wrong = client(server, factory, 'not_this_rooms_key');
    await until(() => wrong.view().link === 'refused', 'the refusal said');
    expect(wrong.view()).toMatchObject({ refused: 'key', presenterConfirmed: false });
    // Nothing more goes out: one socket, no reconnection.
    await new Promise((r) => setTimeout(r, 600));
    expect(link.sockets).toHaveLength(1);
    wrong.c.goto(3, 0);
    expect(server.state().chapter).toBe(0);
    wrong.c.stop();
    await server.close();
  });
});

describe('a following attendee', () => {
  const view = (over: Partial<RoomView>): RoomView => ({ ...initialRoomView('r', 'attendee'), synced: true, chapter: 3, beat: 2, ...over });
  it('is sent to the presenter\u2019s beat within a chapter, as to another chapter', () => {
    expect(attendeeTarget(view({}), { chapter: 3, beat: 0 })).toEqual({ chapter: 3, beat: 2 });
    expect(attendeeTarget(view({}), { chapter: 1, beat: 2 })).toEqual({ chapter: 3, beat: 2 });
    expect(attendeeTarget(view({}), { chapter: null, beat: null })).toEqual({ chapter: 3, beat: 2 });
    expect(attendeeTarget(view({}), { chapter: 3, beat: 2 })).toBeNull();
  });
  it('is not moved while looking around, before the room has spoken, or on the presenter\u2019s own page', () => {
    expect(attendeeTarget(view({ following: false }), { chapter: 3, beat: 0 })).toBeNull();
    expect(attendeeTarget(view({ synced: false }), { chapter: 3, beat: 0 })).toBeNull();
    expect(attendeeTarget(view({ chapter: 0 }), { chapter: 3, beat: 0 })).toBeNull();
    expect(attendeeTarget({ ...view({}), role: 'presenter' }, { chapter: 3, beat: 0 })).toBeNull();
  });
});
