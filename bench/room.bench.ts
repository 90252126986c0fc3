/**
 * The workshop room under load: 300 simulated attendees on loopback follow the presenter through every
 * beat of every chapter and answer every chapter's question and the two quizzes. Reports delivered
 * updates/s, p95 latency from the presenter's click to an attendee's update (goal ≤ 100 ms) and memory;
 * then the same with 10 % of attendees sending malformed or oversized frames, which must be dropped
 * and counted while the others see no difference (the clean run is its baseline).
 * `npm run bench -- room` (--attendees=N to change the room's size). Bounded: each run times out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { startRoomServer } from '../scripts/workshop/room-server.ts';
import { beatsOf } from '../src/app/walkthrough/timeline.ts';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { report } from './table.ts';

const ATTENDEES = Number(process.argv.find((a) => a.startsWith('--attendees='))?.split('=')[1] ?? 300);
const RUN_LIMIT_MS = 120_000;

interface RunResult {
  updatesPerSecond: number;
  p95: number;
  p50: number;
  heapMiB: number;
  rssMiB: number;
  answersCounted: number;
  answersExpected: number;
  dropped: number;
  sentBad: number;
}

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};

async function run(badShare: number): Promise<RunResult> {
  const dir = mkdtempSync(join(tmpdir(), 'room-bench-'));
  // The bench's attendees answer faster than people: the rate limit is raised so only bad frames are dropped.
  const server = await startRoomServer({ port: 0, host: '127.0.0.1', data: join(dir, 'room.jsonl'), burst: 200, perSecond: 200 });
  const url = `ws://127.0.0.1:${server.port}/room`;
  const open = (ws: WebSocket) => new Promise<void>((done, fail) => (ws.once('open', () => done()), ws.once('error', fail)));

  const presenter = new WebSocket(url);
  await open(presenter);
  presenter.send(JSON.stringify({ type: 'presenter', key: server.key }));

  let clickAt = 0;
  let expectBeat = '';
  const latencies: number[] = [];
  let delivered = 0;
  let sentBad = 0;
  const attendees: { ws: WebSocket; token: string; id: string; bad: boolean; seen: string; acks: Set<string> }[] = [];
  for (let i = 0; i < ATTENDEES; i++) {
    const ws = new WebSocket(url);
    const a = { ws, token: '', id: `att_bench${String(i).padStart(4, '0')}`, bad: i < ATTENDEES * badShare, seen: '', acks: new Set<string>() };
    ws.on('message', (raw) => {
      const msg = JSON.parse(raw.toString()) as { type: string; token?: string; answerId?: string; chapter?: number; beat?: number; open?: string | null };
      if (msg.type === 'welcome') a.token = msg.token!;
      else if (msg.type === 'ack') a.acks.add(msg.answerId!);
      else if (msg.type === 'room') {
        delivered++;
        const at = `${msg.chapter}.${msg.beat}.${msg.open}`;
        if (at === expectBeat && a.seen !== at && !a.bad) latencies.push(performance.now() - clickAt);
        a.seen = at;
      }
    });
    // A closed socket (an oversized frame) is part of the bad attendee's run; the bench carries on.
    ws.on('error', () => {});
    attendees.push(a);
  }
  await Promise.all(attendees.map((a) => open(a.ws)));
  for (const a of attendees) a.ws.send(JSON.stringify({ type: 'hello', attendee: a.id }));
  while (attendees.some((a) => a.token === '')) await new Promise((r) => setTimeout(r, 5));

  const honest = attendees.filter((a) => !a.bad);
  const waitAll = async (pred: () => boolean) => {
    const until = performance.now() + 5000;
    while (!pred() && performance.now() < until) await new Promise((r) => setTimeout(r, 1));
  };
  const click = async (msg: object, at: string) => {
    expectBeat = at;
    clickAt = performance.now();
    presenter.send(JSON.stringify({ ...msg, key: server.key }));
    await waitAll(() => honest.every((a) => a.seen === at));
  };
  const misbehave = () => {
    for (const a of attendees) {
      if (!a.bad || a.ws.readyState !== a.ws.OPEN) continue;
      sentBad += 3;
      a.ws.send('{"type":"answer","choice":');
      a.ws.send(JSON.stringify({ type: 'goto', key: 'not_the_key_123', chapter: 9, beat: 0 }));
      a.ws.send(JSON.stringify({ type: 'answer', token: a.token, answerId: `x_${a.id}`, question: 'ch:1', choice: 42 }));
    }
    const oversized = attendees.find((a) => a.bad && a.ws.readyState === a.ws.OPEN);
    if (oversized) {
      sentBad++;
      oversized.ws.send('x'.repeat(64 * 1024));
    }
  };
  let expected = 0;
  const answerAll = async (question: string, options: number) => {
    for (const a of honest) {
      a.ws.send(JSON.stringify({ type: 'answer', token: a.token, answerId: `ans_${a.id}_${question.replace(':', '_')}`, question, choice: (a.id.length + a.id.charCodeAt(a.id.length - 1)) % options }));
      expected++;
    }
    await waitAll(() => honest.every((a) => a.acks.has(`ans_${a.id}_${question.replace(':', '_')}`)));
  };

  const started = performance.now();
  const deadline = started + RUN_LIMIT_MS;
  await click({ type: 'open', question: 'pre' }, '0.0.pre');
  for (let i = 0; i < 3; i++) await answerAll(`pre:${i}`, 4);
  for (let c = 0; c < CHAPTERS.length && performance.now() < deadline; c++) {
    const chapter = CHAPTERS[c]!;
    const beats = beatsOf(chapter.steps).length;
    for (let b = 0; b < beats; b++) {
      if (badShare > 0) misbehave();
      // goto keeps the open question: attendees must see the new beat with the same one.
      await click({ type: 'goto', chapter: c + 1, beat: b }, `${c + 1}.${b}.${String(serverOpen())}`);
    }
    if (!chapter.checkpoint) continue;
    await click({ type: 'open', question: `ch:${c + 1}` }, `${c + 1}.${beats - 1}.ch:${c + 1}`);
    await answerAll(`ch:${c + 1}`, chapter.checkpoint.options.length);
    await click({ type: 'reveal', question: `ch:${c + 1}` }, `${c + 1}.${beats - 1}.null`);
  }
  await click({ type: 'open', question: 'post' }, `${CHAPTERS.length}.${beatsOf(CHAPTERS[CHAPTERS.length - 1]!.steps).length - 1}.post`);
  for (let i = 0; i < 3; i++) await answerAll(`post:${i}`, 4);
  const seconds = (performance.now() - started) / 1000;
  function serverOpen(): string | null {
    return server.state().open;
  }

  const mem = process.memoryUsage();
  const state = server.state();
  let counted = 0;
  for (const byAttendee of state.answers.values()) counted += byAttendee.size;
  const result: RunResult = {
    updatesPerSecond: delivered / seconds,
    p95: percentile(latencies, 95),
    p50: percentile(latencies, 50),
    heapMiB: mem.heapUsed / 2 ** 20,
    rssMiB: mem.rss / 2 ** 20,
    answersCounted: counted,
    answersExpected: expected,
    dropped: server.stats.dropped + server.stats.unauthorised,
    sentBad,
  };
  for (const a of attendees) a.ws.terminate();
  presenter.terminate();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
  return result;
}

const clean = await run(0);
const noisy = await run(0.1);
for (const [name, r] of [['clean', clean], ['10 % malformed', noisy]] as const) {
  console.log(
    `${name}: ${ATTENDEES} attendees, ${r.updatesPerSecond.toFixed(0)} updates/s delivered, click → update p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms; ` +
      `answers counted ${r.answersCounted}/${r.answersExpected}; bad frames sent ${r.sentBad}, dropped+refused ${r.dropped}; heap ${r.heapMiB.toFixed(1)} MiB, rss ${r.rssMiB.toFixed(1)} MiB (server and simulated attendees in one process)`,
  );
}
report([
  { what: 'room: click → attendee update p95', now: noisy.p95, unit: 'ms', detail: `${ATTENDEES} attendees, 10 % malformed`, baselineLabel: 'clean', baseline: clean.p95, goal: 100 },
  { what: 'room: updates delivered per second', now: Math.round(noisy.updatesPerSecond), unit: 'n', baselineLabel: 'clean', baseline: Math.round(clean.updatesPerSecond), goal: null },
  { what: 'room: bad frames dropped', now: noisy.dropped, unit: 'n', detail: `of ${noisy.sentBad} sent`, baselineLabel: 'clean', baseline: clean.dropped, goal: null },
  { what: 'room: answers lost', now: noisy.answersExpected - noisy.answersCounted, unit: 'n', baselineLabel: 'clean', baseline: clean.answersExpected - clean.answersCounted, goal: 0 },
]);
process.exit(0);
