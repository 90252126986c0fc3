/**
 * npm run workshop: the built site and a room on the local network, for a talk with phones in the room.
 * Prints the attendees' address (with a QR code drawn here, no service) and the presenter's address
 * with its secret key (in the URL's fragment, so it never reaches a server log or a Referer).
 *
 *   npm run workshop -- --port 4300 --host 0.0.0.0 --room talk --data .workshop/talk.jsonl
 *
 * The static site works without it; the room's UI appears only on a page connected to a room.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generate } from 'lean-qr';
import { startRoomServer } from './room-server.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '4300' },
    host: { type: 'string', default: '0.0.0.0' },
    room: { type: 'string', default: 'workshop' },
    data: { type: 'string' },
    key: { type: 'string' },
  },
});
const room = values.room.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 32) || 'workshop';
const dist = join(process.cwd(), 'dist');
if (!existsSync(join(dist, 'index.html'))) {
  console.log('dist/ is missing: building the site first (vite build)…');
  const build = spawnSync('npx', ['vite', 'build'], { stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const server = await startRoomServer({
  port: Number(values.port),
  host: values.host,
  data: values.data ?? join('.workshop', `${room}.jsonl`),
  dist,
  key: values.key,
});

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
console.log(`Presenter (keep this secret): ${presenter}\n`);
const stop = async () => {
  await server.close();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
