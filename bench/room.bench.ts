/**
 * The workshop room under a real talk's load, beside the previous code's: the room server in a
 * process of its own (bench/roomServer.ts), on loopback.
 *
 * 1. The talk: 1,000 simulated phones and a presenter through every beat of every chapter, every
 *    chapter's question and the two quizzes, at the room's real rate limits (20 messages at once,
 *    10/s per phone). At each chapter change the presenter sends the new chapter with the previous
 *    chapter's last beat, then beat 0 (what the page did before it was fixed). Figures: p95 from the
 *    presenter's click to a phone's update, acknowledged answers missing from the data file, the
 *    server's memory after the talk.
 * 2. 100,000 answers processed: 1,000 sockets send 100 answers each as fast as the socket takes them
 *    (the per-socket rate limit and the answer lines per attendee and question lifted for this figure
 *    alone: it measures the server's work, parse,
 *    check, fsync, apply, ack); from the first sent to the last acknowledged.
 * 3. A restart: the server's start on a 100,000-line data file (listening, the file replayed).
 *
 * The baseline is the room at commit BASELINE_REF (before the server's rework: guarded requests, in-place state), copied out of git
 * into node_modules/.cache and run by the same driver. Its answers cost grows with the answers before
 * them, so its figures 2 and 3 are measured at 10,000 (100,000 would take tens of minutes); the table
 * says so. `npm run bench -- room` (--attendees=N, --baseline-ref=REF, --no-baseline).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { WebSocket } from 'ws';
import { roomQuestions } from '../scripts/workshop/questions.ts';
import { replay } from '../src/room/state.ts';
import { beatsOf } from '../src/app/walkthrough/timeline.ts';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { report, type BenchRow } from './table.ts';

const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
const ATTENDEES = Number(flag('attendees') ?? 1000);
/** The room before the server's rework (the last commit with the quadratic state). */
const BASELINE_REF = flag('baseline-ref') ?? '7b8ebfb';
const WITH_BASELINE = !process.argv.includes('--no-baseline');
/** How long the bench waits for every phone to see one click before it moves on (a click never seen counts as missed). */
const CLICK_WAIT_MS = 3000;
const ANSWER_WAIT_MS = 15_000;

const repo = resolve(import.meta.dirname, '..');
const questions = roomQuestions();
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) return false;
    await sleep(1);
  }
  return true;
}

/** The room server's module: this tree's, or the baseline's copied out of git (its imports resolve to this repo's node_modules). */
function serverModule(impl: 'now' | 'baseline'): string {
  if (impl === 'now') return join(repo, 'scripts/workshop/room-server.ts');
  const root = join(repo, 'node_modules/.cache/room-baseline', BASELINE_REF);
  for (const file of ['scripts/workshop/room-server.ts', 'src/room/protocol.ts', 'src/room/state.ts', 'src/room/bucket.ts']) {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), execFileSync('git', ['show', `${BASELINE_REF}:${file}`], { cwd: repo }));
  }
  return join(root, 'scripts/workshop/room-server.ts');
}

interface ServerProcess {
  port: number;
  key: string;
  startMs: number;
  memory: () => Promise<{ rss: number; heapUsed: number; cpuMs: number }>;
  stop: () => Promise<void>;
}

async function startServer(impl: 'now' | 'baseline', options: Record<string, unknown>): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', join(repo, 'bench/roomServer.ts'), serverModule(impl), JSON.stringify({ host: '127.0.0.1', port: 0, ...options })], {
    cwd: repo,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! });
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const nextLine = (prefix: string) =>
    new Promise<string>((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`room server: no ${prefix} line`)), 600_000);
      waiting.push((line) => (clearTimeout(timer), line.startsWith(prefix) ? done(line.slice(prefix.length)) : fail(new Error(line))));
    });
  const ready = JSON.parse(await nextLine('READY ')) as { port: number; key: string; startMs: number };
  return {
    ...ready,
    memory: async () => {
      child.stdin!.write('mem\n');
      return JSON.parse(await nextLine('MEM ')) as { rss: number; heapUsed: number; cpuMs: number };
    },
    stop: () =>
      new Promise<void>((done) => {
        child.once('exit', () => done());
        child.kill('SIGTERM');
      }),
  };
}

/** A socket to the room as its page opens one: with the page's origin (the server takes none without). */
const roomSocket = (port: number) => new WebSocket(`ws://127.0.0.1:${port}/room`, { origin: `http://127.0.0.1:${port}` });

interface Phone {
  ws: WebSocket;
  id: string;
  token: string;
  seen: string;
  acks: Set<string>;
}

/** Opens `n` sockets (in batches, as a room fills) that say hello and keep what they are told. */
async function phones(port: number, n: number, onRoom: (p: Phone, msg: RoomMsg) => void): Promise<Phone[]> {
  const list: Phone[] = [];
  for (let i = 0; i < n; i += 100) {
    const batch = Array.from({ length: Math.min(100, n - i) }, (_, k) => {
      const p: Phone = { ws: roomSocket(port), id: `att_bench${String(i + k).padStart(5, '0')}`, token: '', seen: '', acks: new Set() };
      p.ws.on('message', (raw) => {
        const msg = JSON.parse(raw.toString()) as RoomMsg;
        if (msg.type === 'welcome') p.token = msg.token!;
        else if (msg.type === 'ack') p.acks.add(msg.answerId!);
        else if (msg.type === 'room') onRoom(p, msg);
      });
      p.ws.on('error', () => undefined);
      return p;
    });
    await Promise.all(batch.map((p) => new Promise((done) => p.ws.once('open', done))));
    for (const p of batch) p.ws.send(JSON.stringify({ type: 'hello', attendee: p.id }));
    list.push(...batch);
  }
  await until(() => list.every((p) => p.token !== ''), 30_000);
  return list;
}

interface RoomMsg {
  type: string;
  token?: string;
  answerId?: string;
  chapter?: number;
  beat?: number;
  open?: string | null;
  revealed?: Record<string, number[]>;
}
const placeOf = (m: { chapter?: number; beat?: number; open?: string | null; revealed?: Record<string, unknown> }) => `${m.chapter}.${m.beat}.${m.open}.${Object.keys(m.revealed ?? {}).length}`;

interface TalkResult {
  p50: number;
  p95: number;
  clicks: number;
  missedClicks: number;
  sent: number;
  acked: number;
  ackedLost: number;
  rssMiB: number;
  heapMiB: number;
  seconds: number;
}

async function talk(impl: 'now' | 'baseline'): Promise<TalkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'room-bench-'));
  const data = join(dir, 'room.jsonl');
  // The room's real limits; only the per-address cap is raised, every phone here being on loopback.
  const server = await startServer(impl, { data, maxPerAddress: ATTENDEES + 10 });
  let expected = '';
  let clickAt = 0;
  const latencies: number[] = [];
  const room = await phones(server.port, ATTENDEES, (p, msg) => {
    const at = placeOf(msg);
    if (at === expected && p.seen !== at) latencies.push(performance.now() - clickAt);
    p.seen = at;
  });
  const presenter = roomSocket(server.port);
  let presenterView: RoomMsg = { type: 'room', chapter: 0, beat: 0, open: null, revealed: {} };
  presenter.on('message', (raw) => {
    const msg = JSON.parse(raw.toString()) as RoomMsg;
    if (msg.type === 'room') presenterView = msg;
  });
  await new Promise((done) => presenter.once('open', done));
  presenter.send(JSON.stringify({ type: 'presenter', key: server.key }));
  await until(() => presenterView.type === 'room' && room.every((p) => p.seen !== ''), 10_000);

  let clicks = 0;
  let missed = 0;
  /** One press of the presenter: the messages it sends (the stale beat, then the right one) and the place every phone must then show. */
  const click = async (messages: object[], place: string) => {
    clicks++;
    expected = place;
    clickAt = performance.now();
    for (const m of messages) presenter.send(JSON.stringify({ ...m, key: server.key }));
    if (!(await until(() => room.every((p) => p.seen === place), CLICK_WAIT_MS))) missed++;
  };
  let sent = 0;
  const answered: string[] = [];
  const answerAll = async (keys: string[]) => {
    for (const p of room) {
      for (const q of keys) {
        const answerId = `ans_${p.id}_${q.replace(':', '_')}`;
        p.ws.send(JSON.stringify({ type: 'answer', token: p.token, answerId, question: q, choice: Number(p.id.slice(-3)) % (questions.get(q) ?? 1) }));
        answered.push(answerId);
        sent++;
      }
    }
    await until(() => room.every((p) => keys.every((q) => p.acks.has(`ans_${p.id}_${q.replace(':', '_')}`))), ANSWER_WAIT_MS);
  };
  let revealed = 0;
  const place = (chapter: number, beat: number, open: string | null) => `${chapter}.${beat}.${open}.${revealed}`;

  const started = performance.now();
  let chapter = 0;
  let beat = 0;
  await click([{ type: 'open', question: 'pre' }], place(0, 0, 'pre'));
  await answerAll(['pre:0', 'pre:1', 'pre:2']);
  revealed += 3;
  await click([{ type: 'reveal', question: 'pre' }], place(0, 0, null));
  for (const [i, ch] of CHAPTERS.entries()) {
    const beats = beatsOf(ch.steps).length;
    const n = i + 1;
    // The stale beat: the new chapter with the previous chapter's beat, then its first.
    await click(
      [
        { type: 'goto', chapter: n, beat },
        { type: 'goto', chapter: n, beat: 0 },
      ],
      place(n, 0, null),
    );
    chapter = n;
    for (beat = 1; beat < beats; beat++) await click([{ type: 'goto', chapter, beat }], place(chapter, beat, null));
    beat = beats - 1;
    if (!ch.checkpoint) continue;
    await click([{ type: 'open', question: `ch:${n}` }], place(chapter, beat, `ch:${n}`));
    await answerAll([`ch:${n}`]);
    revealed += 1;
    await click([{ type: 'reveal', question: `ch:${n}` }], place(chapter, beat, null));
  }
  await click([{ type: 'open', question: 'post' }], place(chapter, beat, 'post'));
  await answerAll(['post:0', 'post:1', 'post:2']);
  revealed += 3;
  await click([{ type: 'reveal', question: 'post' }], place(chapter, beat, null));
  const seconds = (performance.now() - started) / 1000;

  const mem = await server.memory();
  const acked = new Set(room.flatMap((p) => [...p.acks]));
  for (const p of room) p.ws.terminate();
  presenter.terminate();
  await server.stop();
  // What a restart would have: every acknowledged answer must be in the data file.
  const onDisk = replay(readFileSync(data, 'utf8'), { questions });
  const ackedLost = [...acked].filter((id) => !onDisk.seen.has(id)).length;
  rmSync(dir, { recursive: true, force: true });
  return { p50: percentile(latencies, 50), p95: percentile(latencies, 95), clicks, missedClicks: missed, sent, acked: acked.size, ackedLost, rssMiB: mem.rss / 2 ** 20, heapMiB: mem.heapUsed / 2 ** 20, seconds };
}

/** `total` answers from 1,000 sockets (the same number each), as fast as the sockets take them: seconds from the first sent to the last acknowledged. */
async function answersProcessed(impl: 'now' | 'baseline', total: number): Promise<{ seconds: number; acked: number; serverCpuSeconds: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'room-bench-'));
  const sockets = 1000;
  // The rate limit and the answer lines per attendee and question (ten) lifted: a socket's 100 answers all reach the disk.
  const server = await startServer(impl, { data: join(dir, 'room.jsonl'), maxPerAddress: sockets + 10, burst: 1e9, perSecond: 1e9, maxAnswersPerQuestion: 1e9 });
  const room = await phones(server.port, sockets, () => undefined);
  const presenter = roomSocket(server.port);
  await new Promise((done) => presenter.once('open', done));
  presenter.send(JSON.stringify({ type: 'open', key: server.key, question: 'pre' }));
  await sleep(200);
  const each = total / sockets;
  const frames = room.map((p) => Array.from({ length: each }, (_, k) => JSON.stringify({ type: 'answer', token: p.token, answerId: `ans_${p.id}_${k}`, question: `pre:${k % 3}`, choice: k % 3 })));
  const cpu0 = (await server.memory()).cpuMs;
  const t0 = performance.now();
  // The phones' side must not be what is measured: each socket's frames go out in one write (its TCP socket corked).
  room.forEach((p, i) => {
    const tcp = (p.ws as unknown as { _socket?: { cork: () => void; uncork: () => void } })._socket;
    tcp?.cork();
    for (const frame of frames[i]!) p.ws.send(frame);
    tcp?.uncork();
  });
  await until(() => room.every((p) => p.acks.size === each), 600_000);
  const seconds = (performance.now() - t0) / 1000;
  // The server's own CPU time for them (its GC included): what the machine's other load does not stretch much.
  const serverCpuSeconds = ((await server.memory()).cpuMs - cpu0) / 1000;
  const acked = room.reduce((n, p) => n + p.acks.size, 0);
  for (const p of room) p.ws.terminate();
  presenter.terminate();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
  return { seconds, acked, serverCpuSeconds };
}

/** A data file of `lines` lines (the beat, the quiz open, then answers of 10,000 attendees) and the server's start on it. */
async function restart(impl: 'now' | 'baseline', lines: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'room-bench-'));
  const data = join(dir, 'room.jsonl');
  const out = [JSON.stringify({ kind: 'goto', chapter: 1, beat: 0 }), JSON.stringify({ kind: 'open', question: 'pre' })];
  for (let k = 0; out.length < lines; k++) out.push(JSON.stringify({ kind: 'answer', answerId: `ans_${k}_replayed`, attendee: `att_${k % 10_000}_bench`, question: `pre:${k % 3}`, choice: k % 3 }));
  writeFileSync(data, `${out.join('\n')}\n`);
  const server = await startServer(impl, { data });
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
  return server.startMs;
}

const rows: BenchRow[] = [];
// The figures are wall-clock on a shared machine: say how loaded it was.
console.log(`load average at the start: ${loadavg().map((l) => l.toFixed(1)).join(', ')} on ${cpus().length} CPUs`);
const now = await talk('now');
const before = WITH_BASELINE ? await talk('baseline') : null;
for (const [name, r] of [['now', now], [`${BASELINE_REF} (before)`, before]] as const) {
  if (!r) continue;
  console.log(
    `talk, ${name}: ${ATTENDEES} phones, ${r.clicks} clicks in ${r.seconds.toFixed(1)} s (${r.missedClicks} not seen by every phone within ${CLICK_WAIT_MS} ms), click → update p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms; ` +
      `answers sent ${r.sent}, acknowledged ${r.acked}, acknowledged but not in the data file ${r.ackedLost}; server rss ${r.rssMiB.toFixed(1)} MiB, heap ${r.heapMiB.toFixed(1)} MiB`,
  );
}
const baseLabel = `${BASELINE_REF}, same run`;
rows.push(
  { what: 'room: click → phone update p95 (talk, real limits, stale beats)', now: now.p95, unit: 'ms', detail: `${ATTENDEES} phones, ${now.missedClicks} of ${now.clicks} clicks missed`, baselineLabel: `${baseLabel}, ${before?.missedClicks ?? '?'} clicks missed`, baseline: before?.p95 ?? null, goal: 100 },
  { what: 'room: acknowledged answers lost', now: now.ackedLost, unit: 'n', detail: `${now.acked} of ${now.sent} acknowledged`, baselineLabel: `${baseLabel}, ${before?.acked ?? '?'} of ${before?.sent ?? '?'} acknowledged`, baseline: before?.ackedLost ?? null, goal: 0 },
  { what: 'room: server memory after the talk (rss)', now: Math.round(now.rssMiB * 1024), unit: 'KiB', detail: `heap ${now.heapMiB.toFixed(1)} MiB`, baselineLabel: baseLabel, baseline: before ? Math.round(before.rssMiB * 1024) : null, goal: null },
);

const processed = await answersProcessed('now', 100_000);
const processedSmall = await answersProcessed('now', 10_000);
const processedBefore = WITH_BASELINE ? await answersProcessed('baseline', 10_000) : null;
console.log(
  `answers processed: 100,000 in ${processed.seconds.toFixed(2)} s (${processed.acked} acknowledged; server CPU ${processed.serverCpuSeconds.toFixed(2)} s); 10,000 in ${processedSmall.seconds.toFixed(2)} s (server CPU ${processedSmall.serverCpuSeconds.toFixed(2)} s); ` +
    `before, 10,000 in ${processedBefore?.seconds.toFixed(2) ?? '—'} s (${processedBefore?.acked ?? '—'} acknowledged; server CPU ${processedBefore?.serverCpuSeconds.toFixed(2) ?? '—'} s)`,
);
rows.push(
  { what: 'room: 100,000 answers processed', now: processed.seconds, unit: 's', detail: `1,000 sockets, rate limit lifted; server CPU ${processed.serverCpuSeconds.toFixed(2)} s`, baselineLabel: 'not run before: quadratic, see the 10,000 row', baseline: null, goal: 2 },
  { what: 'room: 10,000 answers processed', now: processedSmall.seconds, unit: 's', detail: `server CPU ${processedSmall.serverCpuSeconds.toFixed(2)} s`, baselineLabel: `${baseLabel}, server CPU ${processedBefore?.serverCpuSeconds.toFixed(2) ?? '?'} s`, baseline: processedBefore?.seconds ?? null, goal: null },
);

const replayed = await restart('now', 100_000);
const replayedSmall = await restart('now', 10_000);
const replayedBefore = WITH_BASELINE ? await restart('baseline', 10_000) : null;
console.log(`restart to listening: 100,000 lines ${replayed.toFixed(0)} ms; 10,000 lines ${replayedSmall.toFixed(0)} ms; before, 10,000 lines ${replayedBefore?.toFixed(0) ?? '—'} ms`);
rows.push(
  { what: 'room: restart on a 100,000-line data file, to listening', now: replayed, unit: 'ms', baselineLabel: 'not run before: quadratic, see the 10,000 row', baseline: null, goal: 1000 },
  { what: 'room: restart on a 10,000-line data file, to listening', now: replayedSmall, unit: 'ms', baselineLabel: baseLabel, baseline: replayedBefore, goal: null },
);
console.log(`load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(', ')}`);
report(rows);
process.exit(0);
