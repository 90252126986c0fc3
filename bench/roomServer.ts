/**
 * The room server in a process of its own for bench/room.bench.ts, so its memory and CPU are its own
 * and not the thousand simulated phones': `node --import tsx bench/roomServer.ts MODULE OPTIONS_JSON`,
 * MODULE being this tree's scripts/workshop/room-server.ts or an earlier commit's copy (the baseline).
 * Prints `READY {"port","key","startMs"}` once listening (startMs: the start, the data file's replay
 * included); a line `mem` on stdin prints `MEM {rss, heapUsed, cpuMs}` after a GC (cpuMs: the process's CPU time so far); SIGTERM closes the room
 * (pending answers written) and exits.
 */
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

interface StartedRoom {
  port: number;
  key: string;
  close: () => Promise<void>;
}
const [modulePath, optionsJson] = process.argv.slice(2);
const { startRoomServer } = (await import(pathToFileURL(modulePath!).href)) as { startRoomServer: (o: object) => Promise<StartedRoom> };
const t0 = performance.now();
const server = await startRoomServer(JSON.parse(optionsJson!) as object);
const startMs = performance.now() - t0;
console.log(`READY ${JSON.stringify({ port: server.port, key: server.key, startMs })}`);

createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() !== 'mem') return;
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  const cpu = process.cpuUsage();
  console.log(`MEM ${JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed, cpuMs: (cpu.user + cpu.system) / 1000 })}`);
});
process.on('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});
