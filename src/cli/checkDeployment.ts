/**
 * check-deployment: whether this incident's path (a prompt over prefill's limit, forwarded with a
 * one-token placeholder, read over stale pages by decode) is open on an operator's SGLang servers,
 * prompt length by prompt length, each step by SGLang's own code (engine/deployment.ts `chainAt`).
 * The same module answers the page's "Your deployment" form. Exit codes: USAGE below.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  SETTINGS,
  VERSION_SWITCHES,
  chainAt,
  configFor,
  deploymentBands,
  deploymentProblems,
  marginOf,
  verdictOf,
  worstCase,
  UNSTATED_BEHAVIOUR,
  REPLAY_REQUEST_ID,
  replayOf,
  replayedOutcome,
  type Band,
  type Closer,
  type Deployment,
  type DeploymentAnswer,
  type Outcome,
  type Need,
  type Setting,
  type Verdict,
  type VersionSwitch,
} from '../engine/deployment.ts';
import { assembleDeployment, describeProblem, parseServerInfo, type FigureField, type InputProblem, type Origin, type Role, type ServerFigures, type TypedFigures } from '../engine/sglangInput.ts';
import { runScenario } from '../engine/run.ts';
import { runSpecOf } from '../engine/runs/index.ts';
import { SWITCH_TEXT } from '../engine/switchText.ts';
import { parseFactsFile } from '../data/facts.ts';
import { readServerFile } from './readLog.ts';
import { readArgs, usageError } from './args.ts';

const COMMAND = 'check-deployment';

export const USAGE = `Usage: check-deployment [--log [prefill:|decode:]FILE]… [--url [prefill:|decode:]http://HOST:PORT]… [figures] [behaviours] [--json]

Whether this incident's path is open on your SGLang servers: a prompt over prefill's limit, forwarded
to decode with a one-token placeholder, read over pages earlier requests left. Each prompt length is
taken through SGLang's own checks (tokenizer, scheduler, decode's own limit, decode admission, handoff).

Inputs (any number; each FILE may be a start-up log of any size, launch arguments or a Kubernetes
args list, or /get_server_info JSON; its disaggregation_mode says its role, or prefix prefill:/decode:):
  --log FILE                a server's text (also --args FILE)
  --url URL                 GET URL/get_server_info from a running server (nothing else is sent)
  --timeout SECONDS         for --url (default 10)
Figures (each beats what the texts say):
  --context N               context length of both servers (--context-length)
  --decode-context N        the decode server's own context length, when it differs
  --prefill N[,N…]          each prefill server's KV pool (max_total_num_tokens)
  --decode N[,N…]           each decode server's KV pool
  --page-size N  --chunk N  --reserved-decode-tokens N (SGLang's default 512)
  --max-new-tokens N        the max_new_tokens your clients send (default: none)
  --input-limit-margin 0|5  5: current SGLang's max_req_input_len = min(context−1, pool−1) − 5; 0: older releases
  --colocated               prefill and decode on the same servers
  --rule sglang|report      prefill's limit: SGLang's max_req_input_len (default), or the report's threshold
                            (over 681,280 = the prefill pool, F4/F14) applied by the model to your pool
Behaviours your build has (incident | fixed | unknown):
  --reject-path S           fixed: rejected requests retired at admission (SGLang PR #38935); default unknown
  --retire S                fixed: aborted prefill results retired without a KV send (PR #36988); default unknown
  --length-check S          fixed: decode checks the transferred length (PR #38704, open); default incident
  --clear-pages S           fixed: pages cleared when freed (no SGLang release does); default incident
Output:
  --json                    the verdict, every figure's origin, the bands and SGLang's steps per band

Exit codes:
  0  the path is closed on the figures given
  1  the path is open: some prompt length leaks on the figures given
  3  it cannot be told: a needed figure or behaviour is missing (the message lists what to pass)
  2  unusable input: an unknown flag, a missing value, a file that cannot be read or parsed
 70  an internal error (a bug in this tool; nothing was decided)
`;

const fmt = (n: number) => n.toLocaleString('en-US');

const OPTIONS = {
  args: { type: 'string', multiple: true },
  log: { type: 'string', multiple: true },
  url: { type: 'string', multiple: true },
  timeout: { type: 'string' },
  json: { type: 'boolean' },
  rule: { type: 'string' },
  'reject-path': { type: 'string' },
  retire: { type: 'string' },
  'length-check': { type: 'string' },
  'clear-pages': { type: 'string' },
  context: { type: 'string' },
  'decode-context': { type: 'string' },
  prefill: { type: 'string' },
  decode: { type: 'string' },
  'page-size': { type: 'string' },
  chunk: { type: 'string' },
  'reserved-decode-tokens': { type: 'string' },
  'max-new-tokens': { type: 'string' },
  'input-limit-margin': { type: 'string' },
  colocated: { type: 'boolean' },
} as const;

/** The flag of each behaviour, and why an unstated one is what it is (engine/deployment.ts UNSTATED_BEHAVIOUR). */
const BEHAVIOUR_FLAGS: Record<VersionSwitch, { flag: string; why: string }> = {
  buggyRejectPath: { flag: 'reject-path', why: 'PR #38935 (retire rejected requests before the handoff) is merged, but the sources read here do not say which release first carries it' },
  retireWithoutSend: { flag: 'retire', why: 'PR #36988 (retire aborted prefill results without a KV send) is merged, but the sources read here do not say which release first carries it' },
  transferredLengthCheck: { flag: 'length-check', why: 'PR #38704 (honour admission aborts before the KV handoff) is open: no release carries it' },
  clearPagesOnFree: { flag: 'clear-pages', why: 'no SGLang code read clears a page when it is freed' },
};

const OUTCOME_TEXT: Record<Outcome, string> = {
  served: 'served from its own KV (200)',
  refused: 'refused (400)',
  leaked: "LEAKS: answered 200 from other requests' KV",
  'failed-closed': 'failed closed (500, nothing read)',
  'wrong-answer': 'no leak, wrong answer (200 over cleared pages)',
  'deployment-refused': 'the deployment is refused before it serves',
  waits: 'waits for ever at decode admission (never answered)',
};

const CAUSE_TEXT: Record<Band['cause'], string> = {
  'within-limits': 'within every limit',
  tokenizer: "not shorter than the context: the tokenizer refuses it",
  'decode-limit': "over the decode server's own limit (its context, its max_req_input_len): decode refuses it",
  'decode-admission': 'longer than the decode pool: decode refuses it when adding it',
  'decode-budget': 'within the decode pool, never within its admission budget (the pool less the reserved decode tokens)',
  'over-prefill-limit': "over prefill's limit, on separate prefill and decode servers",
  'over-limit-colocated': 'over the limit on a server that prefills and decodes: its own abort answers 400, nothing is handed over',
  'deployment-check': 'a check before serving refuses the deployment',
};

/** The flag that gives each figure the verdict cannot do without. */
const NEEDED: Record<Extract<Need, { kind: 'figure' }>['field'], string> = {
  disaggregated: 'a log or --url of each server (or --colocated)',
  contextTokens: '--context N (or a log or --url of the prefill server)',
  prefillCapacities: "--prefill N (the prefill scheduler's max_total_num_tokens, from its start-up log or --url)",
  decodeCapacities: "--decode N (the decode scheduler's max_total_num_tokens, from its start-up log or --url)",
};

export const EXIT: Record<Verdict, number> = { closed: 0, open: 1, unknown: 3 };

function wholeNumbers(flag: string, raw: string | undefined, min = 1): number[] | undefined {
  if (raw === undefined) return undefined;
  const parts = raw.split(',').map((x) => x.trim().replace(/_/g, ''));
  const bad = parts.find((x) => !/^\d{1,9}$/.test(x) || Number(x) < min);
  if (bad !== undefined) usageError(COMMAND, [`--${flag}: ${JSON.stringify(bad)} is not a whole number of tokens${min > 0 ? ` of at least ${min}` : ''}`]);
  return parts.map(Number);
}

/** `prefill:X`, `decode:X` or `X`. */
function roleAndTarget(spec: string): { role: Role | null; target: string } {
  const m = /^(prefill|decode):(.+)$/.exec(spec);
  return m ? { role: m[1] as Role, target: m[2]! } : { role: null, target: spec };
}

async function fetchServerInfo(spec: string, timeoutMs: number): Promise<{ servers: ServerFigures[]; problems: InputProblem[] }> {
  const { role, target } = roleAndTarget(spec);
  let url: URL;
  try {
    url = new URL(target.replace(/\/+$/, '') + '/get_server_info');
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    return { servers: [], problems: [{ source: target, line: 1, field: '--url', kind: 'cannot-read', message: 'not an http:// or https:// address' }] };
  }
  try {
    const res = await fetch(url, { method: 'GET', signal: AbortSignal.timeout(timeoutMs), redirect: 'error' });
    if (!res.ok) return { servers: [], problems: [{ source: url.href, line: 1, field: '--url', kind: 'cannot-read', message: `answered HTTP ${res.status}` }] };
    return parseServerInfo(await res.text(), url.href, role);
  } catch (e) {
    const err = e as { name?: string; cause?: { code?: string }; message?: string };
    const why = err.name === 'TimeoutError' ? `no answer within ${timeoutMs / 1000} s` : (err.cause?.code ?? err.message ?? String(e));
    return { servers: [], problems: [{ source: url.href, line: 1, field: '--url', kind: 'cannot-read', message: `cannot reach it (${why})` }] };
  }
}

/** The public sources' words, from the facts file (B-ids). */
function loadBackground(): Map<string, string> {
  // From src/cli or from the built dist-cli: the repository's public/facts.json either way.
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++, dir = dirname(dir)) {
    try {
      const file = parseFactsFile(JSON.parse(readFileSync(join(dir, 'public/facts.json'), 'utf8')));
      return new Map(file.background.map((b) => [b.id, b.en]));
    } catch {
      /* not here: one level up */
    }
  }
  return new Map();
}

/** What the operator passes for each need. */
function needText(n: Need): string {
  if (n.kind === 'figure') return NEEDED[n.field];
  if (n.kind === 'behaviour') return `--${BEHAVIOUR_FLAGS[n.key].flag} incident|fixed (${BEHAVIOUR_FLAGS[n.key].why})`;
  if (n.kind === 'margin') return '--input-limit-margin 0|5 (or --url of the prefill server, which reports max_req_input_len): the verdict turns on it';
  return "--allow-auto-truncate is on: SGLang cuts an over-long prompt to each server's own limit instead of the placeholder; this tool does not model that path (turn it off, or check that both servers keep the same length)";
}

/** The change each closer stands for, as an operator makes it. */
function fixText(c: Closer, d: Deployment, background: Map<string, string>): string {
  if (c.kind === 'context') return `--context-length ${c.atMost} on ${d.disaggregated ? 'both servers' : 'the server'} (advertise at most ${fmt(c.atMost)} tokens)`;
  if (c.kind === 'prefill-capacity')
    return `prefill KV of at least ${fmt(c.atLeast)} tokens: raise --mem-fraction-static, add ranks (--tp-size), or store KV in 8 bits (--kv-cache-dtype fp8_e5m2 or fp8_e4m3); --max-total-tokens only lowers it`;
  const sources = c.sources.map((id) => background.get(id) ?? id).join('; ');
  return `${SWITCH_TEXT[c.key].fix.en}: ${OUTCOME_TEXT[c.outcome]}${sources ? ` (${sources})` : ' (no public change known)'}`;
}

interface Read {
  servers: ServerFigures[];
  problems: InputProblem[];
  superseded: ServerFigures[];
}

async function readInputs(values: ReturnType<typeof readArgs<typeof OPTIONS>>): Promise<Read> {
  const out: Read = { servers: [], problems: [], superseded: [] };
  const timeout = values.timeout === undefined ? 10 : Number(values.timeout);
  if (!Number.isFinite(timeout) || timeout <= 0 || timeout > 600) usageError(COMMAND, [`--timeout: ${JSON.stringify(values.timeout)} is not a number of seconds from 0 to 600`]);
  for (const spec of [...(values.args ?? []), ...(values.log ?? [])]) {
    const { role, target } = roleAndTarget(spec);
    const p = await readServerFile(target, role);
    out.servers.push(...p.servers);
    out.problems.push(...p.problems);
    out.superseded.push(...(p.superseded ?? []));
  }
  for (const spec of values.url ?? []) {
    const p = await fetchServerInfo(spec, timeout * 1000);
    out.servers.push(...p.servers);
    out.problems.push(...p.problems);
  }
  return out;
}

async function main(): Promise<void> {
  const values = readArgs(COMMAND, process.argv.slice(2), OPTIONS, USAGE);
  const read = await readInputs(values);
  if (read.problems.length > 0) usageError(COMMAND, read.problems.map(describeProblem));

  const one = (flag: keyof typeof OPTIONS, min = 1) => wholeNumbers(flag, values[flag] as string | undefined, min)?.[0];
  const typed: TypedFigures = {};
  const set = <K extends keyof TypedFigures>(k: K, v: TypedFigures[K] | undefined) => v !== undefined && (typed[k] = v);
  set('contextTokens', one('context'));
  set('decodeContextTokens', one('decode-context') ?? (values.context !== undefined ? one('context') : undefined));
  set('prefillCapacities', wholeNumbers('prefill', values.prefill));
  set('decodeCapacities', wholeNumbers('decode', values.decode));
  set('pageSize', one('page-size'));
  set('chunkTokens', one('chunk', 0));
  set('reservedDecodeTokens', one('reserved-decode-tokens', 0));
  if (values.colocated) typed.disaggregated = false;
  // Decode servers typed: prefill and decode are apart.
  else if (values.decode !== undefined) typed.disaggregated = true;
  const assembled = assembleDeployment(read.servers, typed);
  const d: Deployment = { ...assembled.deployment, behaviour: { ...assembled.deployment.behaviour } };
  const rule = values.rule ?? 'sglang';
  if (rule !== 'report' && rule !== 'sglang') usageError(COMMAND, [`--rule: must be "sglang" (SGLang's max_req_input_len) or "report" (the report's threshold, the prefill pool, applied to your numbers), got ${JSON.stringify(rule)}`]);
  d.rule = rule;
  const margin = one('input-limit-margin', 0);
  if (margin !== undefined && margin !== 0 && margin !== 5) usageError(COMMAND, [`--input-limit-margin: 5 (current SGLang) or 0 (older releases), got ${margin}`]);
  if (margin !== undefined) d.inputLimitMargin = margin;
  const maxNew = one('max-new-tokens');
  if (maxNew !== undefined) d.maxNewTokens = maxNew;
  for (const key of VERSION_SWITCHES) {
    const { flag } = BEHAVIOUR_FLAGS[key];
    const raw = values[flag as 'retire'];
    if (raw !== undefined && !(SETTINGS as readonly string[]).includes(raw)) usageError(COMMAND, [`--${flag}: must be incident, fixed or unknown, got ${JSON.stringify(raw)}`]);
    d.behaviour[key] = (raw as Setting | undefined) ?? UNSTATED_BEHAVIOUR[key];
  }
  const bad = deploymentProblems(d);
  if (bad.length > 0) usageError(COMMAND, bad);

  const answer = deploymentBands(d);
  const { verdict, needs } = verdictOf(d, answer, assembled.missing);
  const toPass = needs.map(needText);
  const background = loadBackground();
  const notes = [
    ...assembled.notes,
    ...read.superseded.map((s) => `${s.source} line ${s.line}: an earlier start-up of a ${s.role ?? 'server'}, superseded by a later one in the same log (not counted)`),
  ];
  let replayed: { promptTokens: number; outcome: Outcome | null; dataOf: string[] } | null = null;
  const replay = verdict !== 'closed' ? replayOf(d) : null;
  if (replay) {
    // The page's replay: a custom run of the one run path.
    const run = runScenario(runSpecOf({ scenario: 'custom', overrides: replay.overrides, trace: replay.trace }), { record: false });
    const leak = run.leaks.find((l) => l.id === REPLAY_REQUEST_ID);
    replayed = { promptTokens: replay.promptTokens, outcome: replayedOutcome(run), dataOf: leak?.dataOf ?? [] };
  }
  if (values.json) {
    const routes = answer.routes.map((r) => ({
      ...r,
      bands: r.bands.map((b) => ({ ...b, fixes: b.closedBy.map((c) => fixText(c, d, background)), chain: chainAt(configFor(d, r.route, worstCase(d.behaviour)), b.from, d.disaggregated, d.maxNewTokens).steps })),
    }));
    const json = { verdict, exitCode: EXIT[verdict], toPass, deployment: d, origins: assembled.origins, missing: assembled.missing, notes, answer: { ...answer, routes }, replay: replayed, limits: LIMITS };
    process.stdout.write(JSON.stringify(json, null, 2) + '\n');
  } else {
    printText(d, assembled.origins, notes, answer, replayed, verdict, toPass, background);
  }
  process.exitCode = EXIT[verdict];
}

export const LIMITS = [
  'This models one mechanism only: a prefill limit below the advertised context, a reject path that forwards a one-token placeholder, and pages that are not cleared.',
  '"Closed" means this path is closed on these figures, not that the deployment is safe.',
  'A leak needs pages that earlier requests wrote and freed: on a server that has served nothing yet they read as zeros.',
  'Figures marked assumed were given nowhere: they are the incident\u2019s (the advertised context and prefill KV from the report, F14; the rest the model\u2019s, A11), not yours.',
];

function printText(d: Deployment, origins: Record<FigureField, Origin>, notes: string[], a: DeploymentAnswer, replayed: { promptTokens: number; outcome: Outcome | null; dataOf: string[] } | null, verdict: Verdict, toPass: string[], background: Map<string, string>): void {
  const p = (label: string, value: string) => console.log(`  ${label.padEnd(40)} ${value}`);
  // Given nowhere: the incident's figure — the report's for the context and prefill KV (F14), the model's otherwise (A11).
  const reportFigure: FigureField[] = ['contextTokens', 'prefillCapacities'];
  const from: Record<Origin, string> = { assumed: 'ASSUMED: not given', log: 'from the start-up log', args: 'from the launch arguments', 'server-info': 'from /get_server_info', typed: 'from the command line' };
  const o = (f: FigureField) => (origins[f] === 'assumed' ? `(ASSUMED: not given; the incident's, ${reportFigure.includes(f) ? 'from the report, F14' : "the model's, A11"})` : `(${from[origins[f]!]})`);
  console.log('Your deployment against this incident\u2019s path');
  if (d.version) p('SGLang version', `${d.version} ${o('version')}`);
  p('context length', `${fmt(d.contextTokens)} tokens ${o('contextTokens')}`);
  if (d.decodeContextTokens !== null && d.disaggregated) p("decode server's own context length", `${fmt(d.decodeContextTokens)} tokens ${o('decodeContextTokens')}`);
  p(d.disaggregated ? 'prefill servers (KV)' : 'servers (KV)', `${d.prefillCapacities.map(fmt).join(', ')} tokens ${o('prefillCapacities')}`);
  if (d.disaggregated) p('decode servers (KV)', `${d.decodeCapacities.map(fmt).join(', ')} tokens ${o('decodeCapacities')}`);
  if (d.disaggregated) p('reserved decode tokens', `${fmt(d.reservedDecodeTokens)} ${origins.reservedDecodeTokens === 'assumed' ? "(SGLang's default)" : o('reservedDecodeTokens')}`);
  p('page size', `${fmt(d.pageSize)} tokens ${o('pageSize')}`);
  p('prefill and decode', `${d.disaggregated ? 'disaggregated' : 'on the same servers'} ${o('disaggregated')}`);
  const margin = marginOf(d);
  p("prefill's limit", d.rule === 'sglang' ? `SGLang's max_req_input_len = min(context − 1, pool − 1) − ${margin ?? 5}${margin === null ? ' (current releases; older ones have no − 5)' : ''}, refused at or over it` : "the report's threshold (over 681,280 = the prefill pool, F4/F14), applied by the model to your pool: prompts longer than it");
  for (const k of VERSION_SWITCHES) p(SWITCH_TEXT[k].label.en, d.behaviour[k] === 'unknown' ? 'unknown (both outcomes shown)' : d.behaviour[k] === 'incident' ? 'as in the incident' : 'fixed');
  for (const n of notes) console.log(`  note: ${n}`);
  a.routes.forEach((r) => {
    console.log('');
    console.log(`prompt lengths, prefill ${fmt(r.route.prefillCapacity)} / decode ${fmt(r.route.decodeCapacity)} tokens of KV:`);
    for (const b of r.bands) {
      const range = `${fmt(b.from)} – ${b.to === null ? '' : fmt(b.to)}`;
      console.log(`  ${range.padEnd(26)} ${b.outcomes.map((x) => OUTCOME_TEXT[x]).join(' OR ')}  [${CAUSE_TEXT[b.cause]}]`);
      if (b.outcomes.includes('leaked')) {
        const steps = chainAt(configFor(d, r.route, worstCase(d.behaviour)), b.from, d.disaggregated, d.maxNewTokens).steps;
        for (const s of steps) console.log(`      ${s.at}: ${s.says}  (${s.code})`);
        console.log('      fix, any one of:');
        for (const c of b.closedBy) console.log(`        - ${fixText(c, d, background)}`);
      }
    }
  });
  console.log('');
  if (replayed) {
    const said = replayed.outcome === 'leaked' ? `${OUTCOME_TEXT.leaked} (data of ${replayed.dataOf.join(', ')})` : replayed.outcome ? OUTCOME_TEXT[replayed.outcome] : 'no answer';
    console.log(`engine replay (a model: three tenants' requests, then one ${fmt(replayed.promptTokens)}-token prompt, unknowns as in the incident): ${said}`);
  }
  for (const l of LIMITS) console.log(`limits: ${l}`);
  console.log('');
  if (verdict === 'open') console.log(`OPEN (exit 1): prompts from ${fmt(a.smallestLeak!)} tokens leak on these figures`);
  else if (verdict === 'closed') console.log('CLOSED (exit 0): no prompt length leaks on these figures');
  else {
    console.log(`CANNOT TELL (exit 3)${a.leaks ? `: prompts from ${fmt(a.smallestLeak!)} tokens may leak` : ''}. Pass:`);
    for (const t of toPass) console.log(`  ${t}`);
  }
}

main().catch((e: unknown) => {
  // A bug, not the operator's input: say so on one line, and let no verdict be read from it.
  process.stderr.write(`${COMMAND}: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(70);
});
