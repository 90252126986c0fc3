/**
 * One line per figure of the performance issue's table: the figure now, its baseline measured in the
 * same run, the goal, and whether it is met. Each bench prints its rows; bench/run.ts gathers them
 * (lines starting with BENCH_ROW) into one table at the end.
 */
export interface BenchRow {
  what: string;
  now: number;
  unit: 's' | 'ms' | 'KiB' | '%' | 'n';
  /** Range, percentiles, anything that qualifies `now`. */
  detail?: string;
  baselineLabel: string;
  baseline: number | null;
  /** Met when now ≤ goal; null: "keep" (reported, no goal). */
  goal: number | null;
}

export const ROW_PREFIX = 'BENCH_ROW ';

export function report(rows: BenchRow[]): void {
  for (const r of rows) console.log(ROW_PREFIX + JSON.stringify(r));
}

const fmt = (n: number | null, unit: string) => (n === null ? '—' : unit === 'n' ? String(n) : `${unit === 's' ? n.toFixed(2) : n.toFixed(1)} ${unit}`);

export function printTable(rows: BenchRow[]): void {
  const lines = rows.map((r) => [
    r.what,
    fmt(r.now, r.unit) + (r.detail ? ` (${r.detail})` : ''),
    r.baseline === null ? '—' : `${fmt(r.baseline, r.unit)} (${r.baselineLabel})`,
    r.goal === null ? 'keep' : `≤ ${fmt(r.goal, r.unit)}`,
    r.goal === null ? '—' : r.now <= r.goal ? 'met' : 'NOT met',
  ]);
  const head = ['what', 'now', 'baseline, same run', 'goal', ''];
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const l of lines) console.log(line(l));
}
