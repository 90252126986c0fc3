/**
 * npm run simulate -- [--config FILE] [--trace FILE] [--scenario NAME] [--model transformer|compressed] [--per-head] [--json] [--matrix]
 * npm run simulate -- --scenario incident [--volume N] [--tenants N] [--seed S] [--tenant-skew X] [--free-list sorted|staged] [--disable-overlap-schedule] [--all] [--json]
 * npm run simulate -- --allocator-trace FILE [--json]
 *
 * Runs a config over a trace and prints what happened. `--scenario microscope` runs the trained
 * transformer by default (its K/V in the pages, attention shares per output token); every other
 * run the compressed model unless `--model transformer` (whose prefill is quadratic: thousands of
 * tokens, not the demo's hundreds of thousands). Bad input exits with code 2 and a message
 * naming the file and the field; nothing runs then. `--allocator-trace` replays a sequence of
 * allocator operations (the format of shared/sglang/allocator-golden/) on the engine's default
 * allocator and lists the pages each request got (and, when the file carries SGLang's, how many match).
 */
import { readFileSync } from 'node:fs';
import { FactIndex, parseFactsFile } from '../data/facts.ts';
import {
  ASSUMPTIONS,
  DEFAULT_TRAFFIC,
  KIND_NAMES,
  T_PUBLIC,
  replayIncident,
  shortTimeAt,
  tenantShares,
  type ShareTable,
  type TenantShare,
  type TrafficOptions,
} from '../engine/incident/index.ts';
import { readArgs } from './args.ts';
import { LEAK_SHARE_THRESHOLD } from '../engine/transformerDecoder.ts';
import { MICROSCOPE_CONFIG, microscopeTrace } from '../engine/microscopeScenario.ts';
import type { TransformerWeights } from '../engine/model/transformer.ts';
import { readModelWeights } from './modelWeights.ts';
import { matchingAllocations, parseAllocatorTrace, replayAllocatorTrace } from '../engine/allocatorTrace.ts';
import {
  DeploymentRefused,
  FIXED_CONFIG,
  INCIDENT_CONFIG,
  InputError,
  Simulation,
  UnansweredRequests,
  answeredFromForeignMemory,
  configNotes,
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

const SCENARIOS: Record<string, () => Trace> = { matrix: matrixTrace, demo: demoTrace, microscope: microscopeTrace };
/** Scenarios with a deployment of their own (a --config file replaces it). */
const SCENARIO_CONFIGS: Record<string, EngineConfig> = { microscope: MICROSCOPE_CONFIG };

/** Bad input: exit 2, nothing ran. */
function fail(message: string): never {
  process.stderr.write(`simulate: ${message}\n`);
  process.exit(2);
}

/** The engine broke one of its invariants (a request left unanswered): exit 1, never a silent 0. */
function engineFailure(message: string): never {
  process.stderr.write(`simulate: engine invariant violated: ${message}\n`);
  process.exit(1);
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
    const widths = [48, Math.max(20, ...rows.map((r) => r.expect.length)), 64];
    const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 10)).join(' | ');
    console.log(line(['defects / mitigation', 'expected', 'measured (over-capacity requests)']) + ' | ok');
    console.log(widths.map((w) => '-'.repeat(w)).join('-|-') + '-|---');
    for (const r of rows) console.log(line([r.label, r.expect, describeOutcome(r)]) + ` | ${r.matches ? 'yes' : 'NO'}`);
    // The abort-race rows count the requests no client cancelled (see src/engine/matrix.ts).
    if (rows.some((r) => r.design === 'abort-race')) console.log('abort race rows: measured over the requests no client cancelled, on the fixed reject path (A15)');
  }
  if (rows.some((r) => !r.matches)) process.exit(1);
}

function numberOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n)) fail(`--${name}: not a number: ${JSON.stringify(value)}`);
  return n;
}

function loadFacts(): FactIndex {
  const file = new URL('../../public/facts.json', import.meta.url);
  return new FactIndex(parseFactsFile(JSON.parse(readFileSync(file, 'utf8'))));
}

const fmtInt = (n: number) => n.toLocaleString('en-US');
const round4 = (x: number) => Math.round(x * 1e4) / 1e4;

function printIncident(args: { volume?: string; tenants?: string; seed?: string; 'tenant-skew'?: string; 'free-list'?: string; 'disable-overlap-schedule'?: boolean; all?: boolean; json?: boolean }): void {
  const traffic: Partial<TrafficOptions> = {};
  const volume = numberOption('volume', args.volume);
  const tenants = numberOption('tenants', args.tenants);
  const skew = numberOption('tenant-skew', args['tenant-skew']);
  if (volume !== undefined) traffic.requestsPerDay = volume;
  if (tenants !== undefined) traffic.tenants = tenants;
  if (skew !== undefined) traffic.tenantSkew = skew;
  if (args.seed !== undefined) traffic.seed = args.seed;
  const facts = loadFacts();
  const policy = args['free-list'] ?? INCIDENT_CONFIG.freeListPolicy;
  if (policy !== 'sorted' && policy !== 'staged') fail(`--free-list: must be "sorted" (lowest free page first) or "staged" (SGLang's free list in PD mode), got ${JSON.stringify(policy)}`);
  const started = performance.now();
  let result;
  try {
    const overlapOff = args['disable-overlap-schedule'] === true ? { disableOverlapSchedule: true } : {};
    const both = (c: typeof INCIDENT_CONFIG) => withOverrides(c, { freeListPolicy: policy, ...overlapOff });
    result = replayIncident({ traffic, record: false, incidentConfig: both(INCIDENT_CONFIG), fixedConfig: both(FIXED_CONFIG) });
  } catch (e) {
    if (e instanceof UnansweredRequests) engineFailure(e.message);
    fail((e as Error).message);
  }
  const elapsed = performance.now() - started;
  const c = result.counts;
  if (args.json) {
    process.stdout.write(JSON.stringify({ traffic: result.traffic, counts: c, leaks: result.leaks, shares: tenantShares(result.leaks), eventLogHashes: result.eventLogHashes, elapsedMs: Math.round(elapsed) }, null, 2) + '\n');
    return;
  }
  const o = result.traffic;
  const f = (key: string) => facts.figure(key);
  const m = (key: string) => facts.milestone(key);
  const affected = f('affectedResponses');
  const threshold = f('affectedThresholdTokens');
  const leaks = result.leaks;
  const over = leaks.filter((l) => l.promptTokens > threshold.value).length;
  const afterPublic = leaks.filter((l) => l.arrivedAt >= T_PUBLIC).length;
  const dataOwners = new Set(leaks.flatMap((l) => l.dataOf));
  const p = (label: string, value: string) => console.log(`${label.padEnd(34)} ${value}`);

  console.log('Incident window replay: a MODEL of traffic, run through the engine (measured, not written down)');
  // The report gives days only (F2); the hours of the replayed window are the model's.
  console.log(`window                             ${m('windowStart').date} to ${m('windowEnd').date} (${m('windowStart').factId}, days only); replayed from 00:00 on the first to 24:00 on the last UTC (model)`);
  p('traffic (assumptions)', `seed ${o.seed}; ${o.tenants} tenants, skew 1/k^${o.tenantSkew} (A1); ${fmtInt(o.requestsPerDay)} ordinary requests/day (A2, A3, A4); ` +
    `${o.batchesPerDay} batch/day of ${o.batchSize} (A13); ${o.outputTokens} output tokens (A11)`);
  p('decode loop', args['disable-overlap-schedule'] === true ? 'SGLang with --disable-overlap-schedule: T \u2212 1 decode steps for T output tokens' : "SGLang's default overlap scheduler: T decode steps for T output tokens (the last one's slot given back with the request)");
  p('free list (every pool)', `${policy === 'staged' ? "SGLang's staged free list (PD mode, B12), merged by the rule of its allocator's code" : 'lowest free page first (a simplification)'}; page 0 never handed out`);
  p('over-threshold prompts (input, A5)', `${c.overThresholdBeforePrivate} before the model went private (${m('private').time} UTC, ${m('private').factId}), tests included (A6, A7)`);
  p('requests', `${fmtInt(c.requests)}: ${fmtInt(c.served)} answered 200, ${fmtInt(c.rejected400)} rejected 400, ${fmtInt(c.failed500)} failed 500, ${fmtInt(c.privateWindowFailed)} failed 403 (A8)`);
  console.log('');
  console.log(`report: ${affected.value} affected responses (${affected.factId}); every affected request over ${fmtInt(threshold.value)} tokens (${threshold.factId})`);
  console.log(`  the number of over-threshold prompts is an input here (A5: ${c.overThresholdBeforePrivate}, set from the report because, according to Cloudflare, every such request took the faulty path, F21); what is measured is how many of them leak: ${over} of ${c.overThresholdBeforePrivate}`);
  p('measured: leaked (provenance)', `${c.leakedByProvenance} (answer drew on another tenant's KV)`);
  p('model: planted canaries found', `${c.leakedByCanary} (another tenant's canary in the text; the model plants one in every tenant's documents, A12: a modelling device that Cloudflare's method, markers of its own used in its tests (F13, F22), suggested; not a detection that took place)`);
  p('measured: found by both', `${c.leakedByBoth}; provenance only ${c.provenanceOnly}; canary only ${c.canaryOnly}`);
  p('measured: integrity breaches', `${c.integrityBreaches} (answered 200 from memory the request did not write, whatever the words)`);
  p('measured: wrong texts (audit)', `${c.wrongOutput} (answered 200, differs from the answer over the prompt alone)`);
  p('leaks over the threshold', `${over} of ${leaks.length}; at or under it: ${c.leakedAtOrUnderThreshold}`);
  p(`leaks after ${m('public').time} (${m('public').factId})`, `${afterPublic}; over-threshold prompts served by the fixed deployment (A9; they keep arriving after 14:00, A10): ${c.overThresholdAfterPublic}`);
  p(`${m('private').time} (${m('private').factId})-${m('public').time} (${m('public').factId}), A8`, `${c.privateWindowFailed} of ${c.privateWindowRequests} new requests failed (HTTP 403)${c.overThresholdInPrivateWindow ? `, ${c.overThresholdInPrivateWindow} of them over the threshold` : ''}`);
  p('model: tenants whose data leaked', `${dataOwners.size} of ${result.tenantNames.length} (measured in the model's traffic, A1)`);
  const byKind = KIND_NAMES.map((name, k) => [name, leaks.filter((l) => l.kind === k).length] as const).filter(([, n]) => n > 0);
  p('leaks by sender (model)', byKind.map(([name, n]) => `${name} ${n}`).join(', '));
  console.log('');
  const shown = args.all ? leaks : [...leaks.slice(0, 8), ...leaks.filter((l) => l.kind >= 2)].filter((l, i, xs) => xs.indexOf(l) === i);
  console.log(`leaked responses${args.all ? '' : ` (first 8 and the tests; --all for all ${leaks.length})`}: arrival UTC, requester, prompt tokens, whose data (provenance) / whose canaries`);
  for (const l of shown) {
    console.log(`  ${shortTimeAt(l.arrivedAt)}  ${l.id.padEnd(12)} ${l.tenant.padEnd(10)} ${fmtInt(l.promptTokens).padStart(9)}  ${l.dataOf.join(',')} / ${l.canaries.join(',')}` +
      `  [${fmtInt(l.foreignPages)} of ${fmtInt(l.pagesReserved)} pages other tenants', ${fmtInt(l.zeroPages)} zero]`);
  }
  console.log('');
  printShares(tenantShares(leaks), args.all ?? false);
  console.log('');
  p('event log', `${fmtInt(result.events)} events; hashes incident ${result.eventLogHashes.incident}, fixed ${result.eventLogHashes.fixed}`);
  p('replay time', `${(elapsed / 1000).toFixed(2)} s`);
  p('assumptions', ASSUMPTIONS.map((a) => a.id).join(' ') + ' (src/engine/incident/assumptions.ts)');
  if (o.requestsPerDay === DEFAULT_TRAFFIC.requestsPerDay && o.tenants === DEFAULT_TRAFFIC.tenants) p('volume and tenants', 'defaults (A1, A2): assumptions, not in the report');
}

/** Whose stale KV the leaking requests read, against whose KV their output drew on (measured). */
function printShares(table: ShareTable, all: boolean): void {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(6);
  console.log(
    `whose data shows (model): of the ${fmtInt(table.staleSlots)} stale slots the ${table.leaks} leaking requests read, and of their ` +
      `${fmtInt(table.outputTokens)} output tokens, each tenant's share`,
  );
  console.log(`  ${'tenant'.padEnd(30)} ${'stale slots read'.padStart(22)}  ${'output tokens'.padStart(16)}  responses`);
  const shown = all ? table.rows : table.rows.slice(0, 15);
  for (const r of shown) {
    console.log(`  ${r.tenant.padEnd(30)} ${fmtInt(r.staleSlots).padStart(14)} ${pct(r.staleShare)}  ${fmtInt(r.outputTokens).padStart(8)} ${pct(r.tokenShare)}  ${String(r.responses).padStart(9)}`);
  }
  const rest = table.rows.slice(shown.length);
  if (rest.length > 0) {
    const sum = (f: (r: TenantShare) => number) => rest.reduce((n, r) => n + f(r), 0);
    console.log(`  ${`${rest.length} more (--all)`.padEnd(30)} ${fmtInt(sum((r) => r.staleSlots)).padStart(14)} ${pct(sum((r) => r.staleShare))}  ${fmtInt(sum((r) => r.outputTokens)).padStart(8)} ${pct(sum((r) => r.tokenShare))}`);
  }
}

/** Replays an allocator trace on the engine's default allocator (SGLang's staged free list). */
function printAllocatorTrace(file: string, json: boolean): void {
  let allocations;
  let expected;
  try {
    const trace = parseAllocatorTrace(readJson(file), file);
    expected = trace.expected;
    allocations = replayAllocatorTrace(trace);
  } catch (e) {
    fail(e instanceof InputError ? e.message : `${file}: ${(e as Error).message}`);
  }
  const matching = expected ? matchingAllocations(allocations, expected) : null;
  if (json) {
    const summary = { allocations: allocations.map(({ op, rid, pages }) => ({ op, rid, pages })), ...(expected ? { expected: expected.length, matching } : {}) };
    process.stdout.write(JSON.stringify(summary) + '\n');
    return;
  }
  for (const a of allocations) console.log(`op ${String(a.op).padStart(5)}  rid ${String(a.rid).padStart(5)}  ${fmtInt(a.tokens).padStart(9)} tokens  pages ${a.pages.join(' ')}`);
  console.log(`${allocations.length} requests allocated` + (expected ? `; ${matching} of ${expected.length} got the pages the file expects` : ''));
}

const SIMULATE_USAGE = `Usage: simulate [--config FILE] [--trace FILE] [--scenario NAME] [--model transformer|compressed] [--per-head] [--json] [--matrix]
       simulate --scenario incident [--volume N] [--tenants N] [--seed S] [--tenant-skew X] [--free-list sorted|staged] [--disable-overlap-schedule] [--all] [--json]
       simulate --allocator-trace FILE [--json]

Runs a deployment (a config file, or the incident's) over a trace (a file, or a scenario: ${Object.keys(SCENARIOS).join(', ')},
incident) and prints what happened to each request. --matrix: every switch's expectation against its run.
--allocator-trace: replays allocator operations and lists the pages each request got.

Exit codes: 0 ran; 1 the run failed a check it makes (an engine invariant, an expectation of --matrix,
pages unlike the file's);
2 unusable input (a flag, a file, a field), nothing ran.
`;

function main(): void {
  const args = readArgs(
    'simulate',
    process.argv.slice(2),
    {
      config: { type: 'string' },
      trace: { type: 'string' },
      scenario: { type: 'string' },
      json: { type: 'boolean', default: false },
      matrix: { type: 'boolean', default: false },
      volume: { type: 'string' },
      tenants: { type: 'string' },
      seed: { type: 'string' },
      'tenant-skew': { type: 'string' },
      'free-list': { type: 'string' },
      'disable-overlap-schedule': { type: 'boolean', default: false },
      all: { type: 'boolean', default: false },
      model: { type: 'string' },
      'per-head': { type: 'boolean', default: false },
      'allocator-trace': { type: 'string' },
    } as const,
    SIMULATE_USAGE,
  );
  if (args['allocator-trace'] !== undefined) {
    const others = ['config', 'trace', 'scenario', 'matrix'].filter((k) => args[k as keyof typeof args]);
    if (others.length > 0) fail(`--allocator-trace replays allocator operations alone; drop ${others.map((k) => `--${k}`).join(', ')}`);
    return printAllocatorTrace(args['allocator-trace'], args.json ?? false);
  }
  if (args.matrix) return printMatrix(args.json ?? false);
  if (args.scenario === 'incident') {
    if (args.trace || args.config) fail('--scenario incident builds its own trace and deployments; drop --trace / --config');
    return printIncident(args);
  }

  const scenarioConfig = args.scenario !== undefined && !args.trace ? SCENARIO_CONFIGS[args.scenario] : undefined;
  const config = args.config || !scenarioConfig ? loadConfig(args.config) : scenarioConfig;
  const trace = loadTrace(args.trace, args.scenario);
  const modelKind = args.model ?? (args.scenario === 'microscope' ? 'transformer' : 'compressed');
  if (modelKind !== 'transformer' && modelKind !== 'compressed') fail(`--model: unknown model ${JSON.stringify(modelKind)} (known: transformer, compressed)`);
  if (args['per-head'] && modelKind !== 'transformer') fail('--per-head: only the transformer has heads to report');
  let weights: { weights: TransformerWeights; sha256: string } | null = null;
  if (modelKind === 'transformer') {
    try {
      weights = readModelWeights();
    } catch (e) {
      fail((e as Error).message);
    }
  }
  for (const note of configNotes(config)) process.stderr.write(`simulate: note: ${note}\n`);
  let sim: Simulation;
  try {
    sim = new Simulation(config, trace, { keepEvents: false, transformer: weights?.weights ?? null, attentionPerHead: args['per-head'] === true }).run();
  } catch (e) {
    if (e instanceof DeploymentRefused) fail(e.message);
    if (e instanceof UnansweredRequests) engineFailure(e.message);
    throw e;
  }
  const counters = sim.counters();
  const leaked = sim.responses
    .filter((r) => r.leakedFrom.length > 0)
    .map((r) => ({ id: r.id, tenant: r.tenant, promptTokens: r.promptTokens, status: r.status, dataOf: r.leakedFrom, canaries: r.canaryHits, text: r.text }));
  // One record per request, in trace order: what happened to it, what decode read, whose data it showed.
  const responses = [...sim.responses].sort((a, b) => a.request - b.request).map((r) => ({
    id: r.id,
    tenant: r.tenant,
    status: r.status,
    reason: r.reason,
    promptTokens: r.promptTokens,
    computedTokens: r.computedTokens,
    pagesReserved: r.pagesReserved,
    pagesWritten: r.pagesWritten,
    pagesReadStale: r.pagesReadStale,
    pagesReadZero: r.pagesReadZero,
    dataOf: r.leakedFrom,
    canaries: r.canaryHits,
    correct: r.correct,
    integrityBreach: answeredFromForeignMemory(r),
    latencyMs: r.finishedAt - r.arrivedAt,
  }));
  const model = { ...sim.modelDescription, ...(weights ? { weightsSha256: weights.sha256, leakShareThreshold: LEAK_SHARE_THRESHOLD } : {}) };
  // Under the transformer, each answer token by token with where its attention went.
  const answers = weights
    ? [...sim.responses].sort((a, b) => a.request - b.request).filter((r) => r.status === 200).map((r) => ({
        id: r.id,
        tenant: r.tenant,
        text: r.text,
        expectedText: r.expectedText,
        dataOf: r.leakedFrom,
        tokens: r.provenance.map((p, i) => ({ token: sim.vocab.word(r.tokens[i]!), probability: round4(p.probability), foreignShare: p.foreignShare, page: p.page, ...p.attention })),
      }))
    : undefined;
  const summary = { trace: trace.name ?? '(unnamed)', model, ...counters, leakedResponses: leaked, responses, ...(answers ? { answers } : {}), eventLogHash: sim.eventLogHash, events: sim.eventsEmitted };
  if (args.json) {
    process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
    return;
  }
  console.log(`trace            ${summary.trace}`);
  console.log(`model            ${model.kind}: ${model.note}${weights ? `; ${model.parameters.toLocaleString('en-US')} parameters, weights sha256 ${weights.sha256.slice(0, 16)}…` : ''}`);
  console.log(`requests         ${counters.requests}`);
  console.log(`status codes     ${Object.entries(counters.statusCounts).map(([k, v]) => `${k}: ${v}`).join(', ')}`);
  console.log(`rejected         ${counters.rejected}`);
  console.log(`served           ${counters.served}`);
  console.log(`failed closed    ${counters.errors}`);
  console.log(`leaked           ${counters.leaked} (provenance audit); planted canaries found: ${counters.canaryLeaks} (the model's canary in every tenant's documents, a modelling device)`);
  console.log(`integrity breach ${counters.integrityBreaches} (answered 200 from memory the request did not write: another request's KV or zeros, whatever the words)`);
  console.log(`wrong texts      ${counters.wrongOutputs} (answered 200, differs from the model's answer over the prompt alone)`);
  console.log(`pages            ${counters.pagesReserved} reserved, ${counters.pagesWritten} written, ${counters.pagesReadStale} read stale (an earlier request's KV), ${counters.pagesReadZero} read zero (never written or cleared)`);
  for (const r of leaked) {
    console.log(`  leak ${r.id} (tenant ${r.tenant}, ${r.promptTokens.toLocaleString('en-US')} tokens, HTTP ${r.status}): data of ${r.dataOf.join(', ')}` + (r.canaries.length ? `; canaries of ${r.canaries.join(', ')}` : ''));
    console.log(`       "${r.text}"`);
    const answer = answers?.find((a) => a.id === r.id);
    if (answer) {
      const share = (x: number) => `${Math.round(x * 100)}%`;
      console.log(`       attention per token (share of what the heads carried, averaged over layers and heads; leak at ≥ ${share(LEAK_SHARE_THRESHOLD)} from other tenants):`);
      for (const t of answer.tokens) {
        const who = (t.tenants ?? []).slice(0, 3).map(([name, x]) => `${name ?? 'zeros'} ${share(x)}`).join(', ');
        const top = t.pages?.[0];
        const heads = t.foreignByHead ? `; foreign per layer·head ${t.foreignByHead.map(share).join(' ')}` : '';
        console.log(`         ${t.token.padEnd(18)} ${who}${top ? `; page ${top[0].toLocaleString('en-US')} ${share(top[1])}` : ' (prefill\'s token)'}${heads}`);
      }
    }
  }
  console.log(`event log        ${summary.events} events, hash ${summary.eventLogHash}`);
}

main();
