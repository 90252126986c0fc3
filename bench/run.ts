/**
 * npm run bench: runs every bench/*.bench.ts in its own Node process (so one's heap does not skew
 * another's memory figures), prints their reports in order, then one table of the figures the
 * benches report (bench/table.ts): each beside its baseline from the same run, its goal, met or not.
 * `npm run bench -- incident ui` runs those only; the soak (ten minutes) runs only when named:
 * `npm run bench -- soak` (`npm run bench -- soak --minutes=1` for a short one; flags go to every bench run). Benchmarks never run in `npm test`.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROW_PREFIX, printTable, type BenchRow } from './table.ts';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => (only.length === 0 ? !f.startsWith('soak') : only.some((o) => f.includes(o))))
  .sort();
let failed = 0;
const rows: BenchRow[] = [];
for (const file of files) {
  console.log(`\n=== ${file}`);
  const child = spawn(process.execPath, ['--import', 'tsx', '--expose-gc', join(here, file), ...flags], { stdio: ['inherit', 'pipe', 'inherit'] });
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      if (line.startsWith(ROW_PREFIX)) rows.push(JSON.parse(line.slice(ROW_PREFIX.length)) as BenchRow);
      else console.log(line);
    }
  });
  const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
  if (pending) console.log(pending);
  if (status !== 0) failed++;
}
if (rows.length > 0) {
  console.log('\n=== summary');
  printTable(rows);
}
process.exit(failed ? 1 : 0);
