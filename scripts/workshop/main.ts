/**
 * npm run workshop: the built site and a room on the local network, for a talk with phones in the room.
 * Prints the attendees' address (with a QR code drawn here, no service) and the presenter's address
 * with its secret key (in the URL's fragment, so it never reaches a server log or a Referer).
 *
 *   npm run workshop -- --port 4300 --host 0.0.0.0 --room talk --data .workshop/talk.jsonl
 *
 * --key K                 the presenter key (8 to 64 of A-Z a-z 0-9 - _); default: the one kept beside the
 *                         data file (`<data>.key`), made on the first start; a given key is kept there too
 * --max-per-address N     sockets one network address may hold open at once (default 256); phones behind
 *                         one router share its address: past the limit a phone waits until one closes
 * --idle-timeout S        seconds after which a connection that sent nothing is closed (default 60); the
 *                         room pings a quiet socket after half of it, and a phone's browser answers
 * --allow-origin URL      a page origin besides the room's own that may open its socket (repeatable)
 *
 * A start that cannot work (port in use, a key no page could send, an unreadable data file) says so
 * in one line and exits 2, before the data file is replayed. SIGINT, SIGTERM and SIGHUP close the room
 * (pending answers written and fsynced) and exit 0; so does the death of the process that started it
 * (npm), so no orphan keeps the port. The static site works without it; the room's UI appears only on
 * a page connected to a room.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generate } from 'lean-qr';
import { DEFAULT_IDLE_TIMEOUT_MS, DEFAULT_MAX_PER_ADDRESS, keyProblem, RoomStartError, startRoomServer, type RoomServer } from './room-server.ts';

/** Says what is wrong with the command line or the start in one line, and exits 2. */
function fail(message: string): never {
  console.error(`workshop: ${message}`);
  process.exit(2);
}

let values;
try {
  ({ values } = parseArgs({
    options: {
      port: { type: 'string', default: '4300' },
      host: { type: 'string', default: '0.0.0.0' },
      room: { type: 'string', default: 'workshop' },
      data: { type: 'string' },
      key: { type: 'string' },
      'max-per-address': { type: 'string', default: String(DEFAULT_MAX_PER_ADDRESS) },
      'idle-timeout': { type: 'string', default: String(DEFAULT_IDLE_TIMEOUT_MS / 1000) },
      'allow-origin': { type: 'string', multiple: true, default: [] },
    },
  }));
} catch (err) {
  fail((err as Error).message);
}

const whole = (flag: string, text: string, min: number, max: number): number => {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < min || n > max) fail(`--${flag} must be a whole number from ${min} to ${max}, got ${JSON.stringify(text)}`);
  return n;
};
const port = whole('port', values.port, 0, 65535);
const maxPerAddress = whole('max-per-address', values['max-per-address'], 1, 1_000_000);
const idleTimeout = whole('idle-timeout', values['idle-timeout'], 1, 86_400);
if (values.key !== undefined && keyProblem(values.key)) fail(`--key: ${keyProblem(values.key)!}`);
const allowOrigins = values['allow-origin'].map((origin) => {
  let url: URL | undefined;
  try {
    url = new URL(origin);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin.replace(/\/$/, '')) {
    fail(`--allow-origin must be an origin such as http://192.168.1.20:5173 (scheme, host, port; no path), got ${JSON.stringify(origin)}`);
  }
  return url.origin;
});
const room = values.room.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 32) || 'workshop';
const dist = join(process.cwd(), 'dist');
if (!existsSync(join(dist, 'index.html'))) {
  console.log('dist/ is missing: building the site first (vite build)…');
  const build = spawnSync('npx', ['vite', 'build'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

let skipped = 0;
let server: RoomServer;
try {
  server = await startRoomServer({
    port,
    host: values.host,
    data: values.data ?? join('.workshop', `${room}.jsonl`),
    dist,
    key: values.key,
    maxPerAddress,
    idleTimeoutMs: idleTimeout * 1000,
    allowOrigins,
    onAddressFull: (address, open) => {
      console.warn(`workshop: ${address} has ${open} sockets open, the limit per address: its next phones wait until one closes (raise it with --max-per-address, e.g. --max-per-address ${open * 2})`);
    },
    onSkip: ({ line, why }) => {
      if (skipped++ < 10) console.warn(`workshop: data file line ${line} left out: ${why}`);
    },
  });
} catch (err) {
  if (err instanceof RoomStartError) fail(err.message);
  throw err;
}
if (skipped > 10) console.warn(`workshop: ${skipped} data file lines left out in all`);

/** The first IPv4 address on the local network: the one phones on the same Wi-Fi can reach. */
const lan =
  values.host !== '0.0.0.0'
    ? values.host
    : (Object.values(networkInterfaces())
        .flat()
        .find((i) => i && i.family === 'IPv4' && !i.internal)?.address ?? '127.0.0.1');
const base = `http://${lan}:${server.port}/`;
const attendee = `${base}?room=${room}`;
const presenter = `${attendee}#key=${server.key}`;
console.log(`\nRoom "${room}" on ${base}\n`);
console.log(`Attendees: ${attendee}`);
console.log(generate(attendee).toString({ on: '\u2588\u2588', off: '  ', padX: 2, padY: 1 }));
console.log(`Presenter key kept in ${server.keyFile} (the same on every start with this data file)`);
console.log(`Presenter (keep this secret): ${presenter}\n`);

let stopping = false;
const stop = async (why: string) => {
  if (stopping) process.exit(1); // a second signal: leave now
  stopping = true;
  console.log(`workshop: ${why}, closing the room…`);
  await server.close();
  process.exit(0);
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(signal));
// npm (or a shell) that started us was killed without passing a signal on: we are reparented; close too.
const parent = process.ppid;
if (parent !== 1) {
  setInterval(() => {
    if (process.ppid !== parent) void stop('the process that started the room is gone');
  }, 1000).unref();
}
