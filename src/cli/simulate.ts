/**
 * npm run simulate -- [--config FILE] [--trace FILE] [--scenario NAME] [--json] [--matrix]
 *
 * Runs a config over a trace and prints what happened. Bad input exits with code 2 and a message
 * naming the file and the field; nothing runs then.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  DeploymentRefused,
  FIXED_CONFIG,
  INCIDENT_CONFIG,
  InputError,
  Simulation,
  demoTrace,
  describeOutcome,
  matrixTrace,
  parseConfigFile,
  parseTrace,
  runMatrix,
  withOverrides,
  type EngineConfig,
  type Trace,
} from '../engine/index.ts';

const SCENARIOS: Record<string, () => Trace> = { matrix: matrixTrace, demo: demoTrace };

function fail(message: string): never {
  process.stderr.write(`simulate: ${message}\n`);
  process.exit(2);
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    fail(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    fail(`${file}: not valid JSON (${(e as Error).message})`);
  }
}

function loadConfig(file: string | undefined): EngineConfig {
  if (!file) return INCIDENT_CONFIG;
  try {
    const { base, ...overrides } = parseConfigFile(readJson(file), file);
    return withOverrides(base === 'fixed' ? FIXED_CONFIG : INCIDENT_CONFIG, overrides);
  } catch (e) {
    if (e instanceof InputError) fail(e.message);
    throw e;
  }
}

function loadTrace(file: string | undefined, scenario: string | undefined): Trace {
  if (file && scenario) fail('give either --trace or --scenario, not both');
  if (file) {
    try {
      return parseTrace(readJson(file), file);
    } catch (e) {
      if (e instanceof InputError) fail(e.message);
      throw e;
    }
  }
  const name = scenario ?? 'demo';
  const make = SCENARIOS[name];
  if (!make) fail(`--scenario: unknown scenario ${JSON.stringify(name)} (known: ${Object.keys(SCENARIOS).join(', ')})`);
  return make();
}

function printMatrix(json: boolean): void {
  const rows = runMatrix();
  if (json) {
    process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
  } else {
    const widths = [48, 20, 64];
    const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 10)).join(' | ');
    console.log(line(['defects / mitigation', 'expected', 'measured (over-capacity requests)']) + ' | ok');
    console.log(widths.map((w) => '-'.repeat(w)).join('-|-') + '-|---');
    for (const r of rows) console.log(line([r.label, r.expect, describeOutcome(r)]) + ` | ${r.matches ? 'yes' : 'NO'}`);
  }
  if (rows.some((r) => !r.matches)) process.exit(1);
}

function main(): void {
  let args;
  try {
    args = parseArgs({
      options: {
        config: { type: 'string' },
        trace: { type: 'string' },
        scenario: { type: 'string' },
        json: { type: 'boolean', default: false },
        matrix: { type: 'boolean', default: false },
      },
      strict: true,
    }).values;
  } catch (e) {
    fail((e as Error).message);
  }
  if (args.matrix) return printMatrix(args.json ?? false);

  const config = loadConfig(args.config);
  const trace = loadTrace(args.trace, args.scenario);
  let sim: Simulation;
  try {
    sim = new Simulation(config, trace, { keepEvents: false }).run();
  } catch (e) {
    if (e instanceof DeploymentRefused) fail(e.message);
    throw e;
  }
  const counters = sim.counters();
  const leaked = sim.responses
    .filter((r) => r.leakedFrom.length > 0)
    .map((r) => ({ id: r.id, tenant: r.tenant, promptTokens: r.promptTokens, status: r.status, dataOf: r.leakedFrom, canaries: r.canaryHits, text: r.text }));
  const summary = { trace: trace.name ?? '(unnamed)', ...counters, leakedResponses: leaked, eventLogHash: sim.eventLogHash, events: sim.eventsEmitted };
  if (args.json) {
    process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
    return;
  }
  console.log(`trace            ${summary.trace}`);
  console.log(`requests         ${counters.requests}`);
  console.log(`status codes     ${Object.entries(counters.statusCounts).map(([k, v]) => `${k}: ${v}`).join(', ')}`);
  console.log(`rejected         ${counters.rejected}`);
  console.log(`served           ${counters.served}`);
  console.log(`failed closed    ${counters.errors}`);
  console.log(`leaked           ${counters.leaked} (provenance audit), ${counters.canaryLeaks} (canary scan)`);
  console.log(`wrong output     ${counters.integrityFailures} (answered 200, differs from the model's answer over the prompt alone)`);
  console.log(`pages            ${counters.pagesReserved} reserved, ${counters.pagesWritten} written, ${counters.pagesReadStale} read stale`);
  for (const r of leaked) {
    console.log(`  leak ${r.id} (tenant ${r.tenant}, ${r.promptTokens.toLocaleString('en-US')} tokens, HTTP ${r.status}): data of ${r.dataOf.join(', ')}` + (r.canaries.length ? `; canaries of ${r.canaries.join(', ')}` : ''));
    console.log(`       "${r.text}"`);
  }
  console.log(`event log        ${summary.events} events, hash ${summary.eventLogHash}`);
}

main();
