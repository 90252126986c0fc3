/**
 * npm run check-deployment -- [--args FILE] [--log [prefill:|decode:]FILE …] [--json]
 *   [--rule report|sglang] [--reject-path|--retire|--length-check|--clear-pages incident|fixed|unknown]
 *   [--context N] [--prefill N[,N…]] [--decode N[,N…]] [--page-size N] [--chunk N] [--colocated]
 *
 * Whether this incident's mechanism is open on your numbers: the prompt-length bands and what each
 * gets, the smallest prompt that leaks, why, and which change closes each band, then the engine's
 * replay of one such prompt. The same module answers the page's "Your deployment" form
 * (src/engine/deployment.ts). Exit 0: no band leaks; 1: a band leaks (or may, a behaviour being
 * unknown); 2: input it cannot read, naming the file, the line and the field.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import {
  SETTINGS,
  VERSION_SWITCHES,
  deploymentBands,
  deploymentProblems,
  REPLAY_REQUEST_ID,
  replayOf,
  replayedOutcome,
  type Band,
  type Closer,
  type Deployment,
  type DeploymentAnswer,
  type Outcome,
  type Setting,
  type VersionSwitch,
} from '../engine/deployment.ts';
import { assembleDeployment, describeProblem, parseLaunchArgs, parseStartupLog, type FigureField, type InputProblem, type Origin, type Role, type ServerFigures, type TypedFigures } from '../engine/sglangInput.ts';
import { runScenario } from '../engine/run.ts';
import { runSpecOf } from '../engine/runs/index.ts';
import { SWITCH_TEXT } from '../engine/switchText.ts';
import { parseFactsFile } from '../data/facts.ts';

const fmt = (n: number) => n.toLocaleString('en-US');

/** Bad input: exit 2, nothing computed. */
function fail(messages: string[]): never {
  for (const m of messages) process.stderr.write(`check-deployment: ${m}\n`);
  process.exit(2);
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    fail([`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`]);
  }
}

function numberList(flag: string, raw: string | undefined): number[] | undefined {
  if (raw === undefined) return undefined;
  const parts = raw.split(',').map((x) => x.trim().replace(/_/g, ''));
  if (parts.some((x) => !/^\d{1,9}$/.test(x))) fail([`--${flag}: must be whole numbers of tokens separated by commas, got ${JSON.stringify(raw)}`]);
  return parts.map(Number);
}

const OUTCOME_TEXT: Record<Outcome, string> = {
  served: 'served from its own KV (200)',
  refused: 'refused (400)',
  leaked: "LEAKS: answered 200 from other requests' KV",
  'failed-closed': 'failed closed (500, nothing read)',
  'wrong-answer': 'no leak, wrong answer (200 over cleared pages)',
  'deployment-refused': 'the deployment is refused before it serves',
};

const CAUSE_TEXT: Record<Band['cause'], string> = {
  'within-limits': 'within every limit',
  tokenizer: 'longer than the advertised context: the tokenizer refuses it',
  'decode-admission': "longer than the decode server's pool less the 512 tokens its admission keeps for decoding (SGLang's reserved decode tokens, the model's setting): decode admission refuses it",
  'over-prefill-limit': "over prefill's limit, on separate prefill and decode servers",
  'over-limit-colocated': 'over the limit on a server that prefills and decodes: its own abort answers 400, nothing is handed over',
  'deployment-check': 'a check before serving refuses the deployment',
};

const SETTING_TEXT = (key: VersionSwitch, s: Setting) =>
  s === 'unknown' ? 'unknown (both outcomes shown)' : key === 'buggyRejectPath' ? (s === 'incident' ? 'as in the incident: forwards a one-token placeholder' : 'fixed: rejected requests retired at admission') : s === 'incident' ? 'off, as in the incident' : 'on';

function closerText(c: Closer): string {
  if (c.kind === 'behaviour') return `${SWITCH_TEXT[c.key].fix.en} (${OUTCOME_TEXT[c.outcome]}${c.sources.length ? `; public change: ${c.sources.join(', ')}` : '; no public change known'})`;
  if (c.kind === 'prefill-capacity') return `prefill KV of at least ${fmt(c.atLeast)} tokens`;
  return `advertising at most ${fmt(c.atMost)} tokens`;
}

function why(d: Deployment, a: DeploymentAnswer, band: Band, route: number): string {
  const r = a.routes[route]!;
  return (
    `prefill's limit of ${fmt(r.limits.prefill)} tokens (${d.rule === 'sglang' ? "SGLang's max_req_input_len rule" : "the report's rule: the pool"}, ${fmt(r.limits.prefillPool)} tokens in whole pages) ` +
    `is below the advertised context of ${fmt(d.contextTokens)}; the reject path ${d.behaviour.buggyRejectPath === 'unknown' ? 'may forward' : 'forwards'} a one-token placeholder, ` +
    `decode reads the ${fmt(Math.ceil(band.from / d.pageSize))} or more pages it reserved for the whole prompt, and only the first was written`
  );
}

export const LIMITS = [
  'This models one mechanism only: a prefill limit below the advertised context, a reject path that forwards a one-token placeholder, and pages that are not cleared.',
  '"No band leaks" means this path is closed on these numbers, not that the deployment is safe.',
  'A leak needs pages that earlier requests wrote and freed: on a server that has served nothing yet they read as zeros.',
  'Figures marked assumed were given nowhere: they are the incident replay\u2019s (the model\u2019s), not yours.',
];

function main(): void {
  const { values } = parseArgs({
    options: {
      args: { type: 'string' },
      log: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      rule: { type: 'string' },
      'reject-path': { type: 'string' },
      retire: { type: 'string' },
      'length-check': { type: 'string' },
      'clear-pages': { type: 'string' },
      context: { type: 'string' },
      prefill: { type: 'string' },
      decode: { type: 'string' },
      'page-size': { type: 'string' },
      chunk: { type: 'string' },
      colocated: { type: 'boolean' },
    },
    strict: true,
  });
  const servers: ServerFigures[] = [];
  const problems: InputProblem[] = [];
  if (values.args) {
    const p = parseLaunchArgs(readText(values.args), values.args);
    servers.push(...p.servers);
    problems.push(...p.problems);
  }
  for (const spec of values.log ?? []) {
    const m = /^(prefill|decode):(.+)$/.exec(spec);
    const role: Role | null = m ? (m[1] as Role) : null;
    const file = m ? m[2]! : spec;
    const p = parseStartupLog(readText(file), file, role);
    servers.push(...p.servers);
    problems.push(...p.problems);
  }
  if (problems.length > 0) fail(problems.map(describeProblem));
  const one = (flag: string, raw: string | undefined) => numberList(flag, raw)?.[0];
  const typed: TypedFigures = {};
  const set = <K extends keyof TypedFigures>(k: K, v: TypedFigures[K] | undefined) => v !== undefined && (typed[k] = v);
  set('contextTokens', one('context', values.context));
  set('prefillCapacities', numberList('prefill', values.prefill));
  set('decodeCapacities', numberList('decode', values.decode));
  set('pageSize', one('page-size', values['page-size']));
  set('chunkTokens', one('chunk', values.chunk));
  if (values.colocated) typed.disaggregated = false;
  const assembled = assembleDeployment(servers, typed);
  const d: Deployment = { ...assembled.deployment, behaviour: { ...assembled.deployment.behaviour } };
  const rule = values.rule ?? 'report';
  if (rule !== 'report' && rule !== 'sglang') fail([`--rule: must be "report" (the limit is the prefill pool) or "sglang" (SGLang's max_req_input_len), got ${JSON.stringify(rule)}`]);
  d.rule = rule;
  const flags: Record<VersionSwitch, string> = { buggyRejectPath: 'reject-path', retireWithoutSend: 'retire', transferredLengthCheck: 'length-check', clearPagesOnFree: 'clear-pages' };
  for (const key of VERSION_SWITCHES) {
    const raw = values[flags[key] as 'retire'];
    if (raw === undefined) continue;
    if (!(SETTINGS as readonly string[]).includes(raw)) fail([`--${flags[key]}: must be incident, fixed or unknown, got ${JSON.stringify(raw)}`]);
    d.behaviour[key] = raw as Setting;
  }
  const bad = deploymentProblems(d);
  if (bad.length > 0) fail(bad);

  const answer = deploymentBands(d);
  const replay = replayOf(d);
  let replayed: { promptTokens: number; outcome: Outcome | null; dataOf: string[] } | null = null;
  if (replay) {
    // The page's replay: a custom run of the one run path.
    const run = runScenario(runSpecOf({ scenario: 'custom', overrides: replay.overrides, trace: replay.trace }), { record: false });
    const leak = run.leaks.find((l) => l.id === REPLAY_REQUEST_ID);
    replayed = { promptTokens: replay.promptTokens, outcome: replayedOutcome(run), dataOf: leak?.dataOf ?? [] };
  }
  if (values.json) {
    process.stdout.write(JSON.stringify({ deployment: d, origins: assembled.origins, notes: assembled.notes, answer, replay: replayed, limits: LIMITS }, null, 2) + '\n');
  } else {
    printText(d, assembled.origins, assembled.notes, answer, replayed);
  }
  process.exit(answer.leaks ? 1 : 0);
}

function printText(d: Deployment, origins: Record<FigureField, Origin>, notes: string[], a: DeploymentAnswer, replayed: { promptTokens: number; outcome: Outcome | null; dataOf: string[] } | null): void {
  const p = (label: string, value: string) => console.log(`  ${label.padEnd(40)} ${value}`);
  const o = (f: FigureField) => `(${origins[f] === 'assumed' ? 'ASSUMED: not given' : `from the ${origins[f] === 'log' ? 'start-up log' : origins[f] === 'args' ? 'launch arguments' : 'command line'}`})`;
  console.log('Your deployment against this incident\u2019s mechanism');
  p('advertised context', `${fmt(d.contextTokens)} tokens ${o('contextTokens')}`);
  p(d.disaggregated ? 'prefill servers (KV)' : 'servers (KV)', `${d.prefillCapacities.map(fmt).join(', ')} tokens ${o('prefillCapacities')}`);
  if (d.disaggregated) p('decode servers (KV)', `${d.decodeCapacities.map(fmt).join(', ')} tokens ${o('decodeCapacities')}`);
  p('page size', `${fmt(d.pageSize)} tokens ${o('pageSize')}`);
  p('chunked prefill', `${d.chunkTokens > 0 ? `${fmt(d.chunkTokens)} tokens` : 'off'} ${o('chunkTokens')}`);
  p('prefill and decode', `${d.disaggregated ? 'disaggregated' : 'on the same servers'} ${o('disaggregated')}`);
  p('prefill limit rule', d.rule === 'sglang' ? "SGLang's max_req_input_len = min(context − 1, pool − 1) − 5, refused at or over it" : "the report's: prompts longer than the prefill pool");
  for (const k of VERSION_SWITCHES) p(SWITCH_TEXT[k].label.en, SETTING_TEXT(k, d.behaviour[k]));
  for (const n of notes) console.log(`  note: ${n}`);
  a.routes.forEach((r, i) => {
    console.log('');
    console.log(`prompt lengths, prefill ${fmt(r.route.prefillCapacity)} / decode ${fmt(r.route.decodeCapacity)} tokens of KV:`);
    for (const b of r.bands) {
      const range = `${fmt(b.from)} – ${b.to === null ? '' : fmt(b.to)}`;
      console.log(`  ${range.padEnd(26)} ${b.outcomes.map((x) => OUTCOME_TEXT[x]).join(' OR ')}  [${CAUSE_TEXT[b.cause]}]`);
      if (b.outcomes.length > 1) {
        for (const w of b.when) {
          const unknown = VERSION_SWITCHES.filter((k) => d.behaviour[k] === 'unknown').map((k) => `${SWITCH_TEXT[k].label.en} ${w.behaviour[k] === 'fixed' ? 'fixed/on' : 'as in the incident'}`);
          console.log(`      if ${unknown.join(', ')}: ${OUTCOME_TEXT[w.outcome]}`);
        }
      }
      if (b.outcomes.includes('leaked')) {
        console.log(`      why: ${why(d, a, b, i)}`);
        console.log(`      closed by any one of: ${b.closedBy.map(closerText).join('; ')}`);
      }
    }
  });
  console.log('');
  console.log(a.leaks ? `smallest prompt that leaks: ${fmt(a.smallestLeak!)} tokens` : 'no band leaks on these numbers');
  if (replayed) {
    const said = replayed.outcome === 'leaked' ? `${OUTCOME_TEXT.leaked} (data of ${replayed.dataOf.join(', ')})` : replayed.outcome ? OUTCOME_TEXT[replayed.outcome] : 'no answer';
    console.log(`engine replay (a model: three tenants' requests, then one ${fmt(replayed.promptTokens)}-token prompt, unknowns as in the incident): ${said}`);
  }
  const cited = [...new Set(a.routes.flatMap((r) => r.bands.flatMap((b) => b.closedBy.flatMap((c) => (c.kind === 'behaviour' ? c.sources : [])))))].sort();
  if (cited.length > 0) {
    console.log('');
    const background = loadBackground();
    for (const id of cited) console.log(`${id}: ${background.get(id) ?? '(not in the facts file)'}`);
  }
  console.log('');
  for (const l of LIMITS) console.log(`limits: ${l}`);
}

/** The public sources' words, from the facts file (B-ids). */
function loadBackground(): Map<string, string> {
  const file = parseFactsFile(JSON.parse(readFileSync(new URL('../../public/facts.json', import.meta.url), 'utf8')));
  return new Map(file.background.map((b) => [b.id, b.en]));
}

main();
