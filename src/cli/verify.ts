/**
 * `npm run verify`: explores every checked configuration of the handoff model and compares each
 * verdict with the expected one. Exits 1 when any verdict differs (a configuration expected safe
 * that is not, or an expected counterexample that is no longer found), or when a search is cut off.
 *
 *   npm run verify                       table, then the incident's shortest leak
 *   npm run verify -- --json             machine-readable results, counterexamples included
 *   npm run verify -- --trace abort-race print that configuration's counterexamples
 *   npm run verify -- --mutate double-allocation   inject a bug into every configuration (must fail)
 */
import { PROPERTIES, checkAll, type CheckOutcome, type Counterexample, type ExplorationResult, type Mutation, type PropertyId } from '../engine/protocol/index.ts';

type Row = CheckOutcome;

const SHORT: Record<PropertyId, string> = { confidentiality: 'conf', integrity: 'integ', exclusiveOwnership: 'owner' };

const MUTATIONS: Mutation[] = ['decode-frees-early', 'success-without-send', 'double-allocation'];

function parseArgs(argv: string[]): { json: boolean; trace: string[]; mutation: Mutation } {
  const out = { json: false, trace: [] as string[], mutation: 'none' as Mutation };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--json') out.json = true;
    else if (a === '--trace') out.trace.push(argv[++i] ?? '');
    else if (a === '--mutate') {
      const m = argv[++i] ?? '';
      if (!(MUTATIONS as string[]).includes(m)) {
        console.error(`--mutate takes one of ${MUTATIONS.join(', ')}`);
        process.exit(2);
      }
      out.mutation = m as Mutation;
    }
    else if (a === '--help' || a === '-h') {
      console.log(`usage: npm run verify [-- --json] [-- --trace <config id>] [-- --mutate ${MUTATIONS.join('|')}]`);
      process.exit(0);
    } else {
      console.error(`unknown argument: ${a}`);
      process.exit(2);
    }
  }
  return out;
}

function run(mutation: Mutation): Row[] {
  return checkAll(mutation, () => performance.now());
}

function verdictText(r: ExplorationResult): string {
  if (!r.complete) return 'INCOMPLETE';
  const broken = PROPERTIES.filter((p) => !r.verdicts[p].holds);
  return broken.length === 0 ? 'safe' : `violates ${broken.map((p) => SHORT[p]).join('+')}`;
}

function cell(r: ExplorationResult, p: PropertyId): string {
  const v = r.verdicts[p];
  return v.holds ? 'holds' : `✗ ${v.counterexample!.length} steps`;
}

function table(rows: Row[]): string {
  const header = ['configuration', 'states', 'transitions', 'verdict', 'confidentiality', 'integrity', 'ownership', 'expected'];
  const body = rows.map(({ config, result, asExpected }) => [
    config.id,
    String(result.statesExplored),
    String(result.transitions),
    verdictText(result),
    cell(result, 'confidentiality'),
    cell(result, 'integrity'),
    cell(result, 'exclusiveOwnership'),
    asExpected ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const numeric = new Set([1, 2]);
  const line = (cells: string[]) => cells.map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(header), widths.map((w) => '─'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

function printCounterexample(title: string, ce: Counterexample): void {
  console.log(`\n${title} — shortest counterexample for ${ce.property}, ${ce.length} steps (model):`);
  ce.steps.forEach((s, i) => {
    console.log(`  ${String(i + 1).padStart(2)}. ${s.label}`);
    if (s.violation) console.log(`      ✗ ${s.violation}`);
  });
}

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  const rows = run(args.mutation);
  const failures = rows.filter((r) => !r.asExpected);

  if (args.json) {
    const out = rows.map(({ config, note, expectHolds, result, asExpected }) => ({
      id: config.id,
      title: config.title,
      note,
      config,
      expectHolds,
      asExpected,
      ...result,
    }));
    console.log(JSON.stringify({ model: 'handoff protocol model (not SGLang itself)', ok: failures.length === 0, results: out }, null, 2));
    // exitCode, not exit(): exiting at once would cut off output still queued for a pipe.
    process.exitCode = failures.length === 0 ? 0 : 1;
    return;
  }

  console.log('Exhaustive check of a model of the prefill → decode handoff (breadth-first; counterexamples are shortest)');
  if (args.mutation !== 'none') console.log(`Injected bug in every configuration: ${args.mutation}`);
  console.log('');
  console.log(table(rows));
  const total = rows.reduce((n, r) => n + r.result.statesExplored, 0);
  const ms = rows.reduce((n, r) => n + (r.result.elapsedMs ?? 0), 0);
  console.log(`\n${total} states in ${rows.length} configurations, ${ms} ms. conf = confidentiality, integ = integrity, owner = exclusive page ownership.`);

  const traced = args.trace.length > 0 ? args.trace : ['incident'];
  for (const id of traced) {
    const row = rows.find((r) => r.config.id === id);
    if (!row) {
      console.error(`\nno configuration "${id}"; have ${rows.map((r) => r.config.id).join(', ')}`);
      process.exitCode = 2;
      return;
    }
    const broken = PROPERTIES.map((p) => row.result.verdicts[p].counterexample).filter((c): c is Counterexample => c !== null);
    if (broken.length === 0) console.log(`\n${id}: every reachable state explored, no violation.`);
    // By default only the leak: it is the counterexample the incident is about.
    for (const ce of args.trace.length > 0 ? broken : broken.slice(0, 1)) printCounterexample(row.config.title, ce);
  }

  if (failures.length > 0) {
    console.error(`\nUNEXPECTED: ${failures.map((f) => `${f.config.id} (${verdictText(f.result)})`).join(', ')}`);
    process.exitCode = 1;
    return;
  }
  console.log('\nAll verdicts as expected.');
}

// Piping into `head` closes stdout early; that is not a failed check.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(0);
  throw e;
});

main();
