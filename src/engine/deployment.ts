/**
 * "Your deployment": an operator's own numbers (advertised context, each prefill and decode server's
 * KV capacity, page size, chunked prefill, disaggregated or not) and the behaviours a SGLang version
 * decides, turned into prompt-length bands and what each band gets on those numbers. The page's form
 * and `npm run check-deployment` share this one module.
 *
 * Nothing here restates an admission rule: the limits are the engine's (`tokenizerRefusal`,
 * `prefillInputLimit`, the decode pool's whole pages), the deployment is an ordinary EngineConfig
 * built from the registry of switches (`overridesOf`), and what an over-limit prompt gets on the
 * buggy reject path is the registry's own expectation of each mitigation switched on. A property
 * test (deployment.test.ts) holds the bands to the engine's replay at every band edge ± 1 token.
 */
import {
  FIXED_CONFIG,
  INCIDENT_CONFIG,
  decodeAdmissionLimit,
  decodeInputLimit,
  poolTokens,
  prefillInputLimit,
  tokenizerRefusal,
  withOverrides,
  type ConfigOverrides,
  type EngineConfig,
  type ThresholdRule,
} from './config.ts';
import type { Expectation } from './matrix.ts';
import { INCIDENT_SWITCHES, MITIGATIONS, overridesOf, switchesOf, switchSpec, type Switch, type SwitchKey, type Switches } from './switches.ts';
import { TENANT_NAMES, TOPICS } from './core/vocab.ts';
import type { Trace, TraceRequest } from './trace.ts';
import { FLAG_INTEGRITY_BREACH, FLAG_LEAK_PROVENANCE, type RunResult } from './run.ts';

/**
 * The behaviours a SGLang version decides, each a switch of the registry: the reject path (a defect:
 * on as the incident ran), retiring aborted prefill results without a KV send, decode's check of the
 * transferred length, and clearing pages when freed (mitigations: off as the incident ran).
 */
export const VERSION_SWITCHES = ['buggyRejectPath', 'retireWithoutSend', 'transferredLengthCheck', 'clearPagesOnFree'] as const satisfies readonly SwitchKey[];
export type VersionSwitch = (typeof VERSION_SWITCHES)[number];

/** `incident`: as the incident ran; `fixed`: the switch's fix; `unknown`: both are shown. */
export type Setting = 'incident' | 'fixed' | 'unknown';
export const SETTINGS: readonly Setting[] = ['incident', 'fixed', 'unknown'];

export interface Deployment {
  /** The context length the model advertises (SGLang's `context_len`; the tokenizer's limit). */
  contextTokens: number;
  /** Each prefill server's KV capacity in tokens (`max_total_num_tokens`). */
  prefillCapacities: number[];
  /** Each decode server's KV capacity in tokens. */
  decodeCapacities: number[];
  pageSize: number;
  /** Chunked prefill: tokens per chunk, 0 for none. */
  chunkTokens: number;
  /** Prefill and decode on separate servers (`--disaggregation-mode prefill|decode`). */
  disaggregated: boolean;
  /** Which prefill limit: the report's (the capacity) or SGLang's `max_req_input_len`. */
  rule: ThresholdRule;
  behaviour: Record<VersionSwitch, Setting>;
  /** Decode's `num_reserved_decode_tokens` (`--num-reserved-decode-tokens`; SGLang's default 512). */
  reservedDecodeTokens: number;
  /** The decode server's own `context_len`, when it differs or is known; null: not known (taken as the prefill's). */
  decodeContextTokens: number | null;
  /** The SGLang version the servers report (`__version__`), null when not given. */
  version: string | null;
  /** `--allow-auto-truncate`: an over-long prompt is cut to the limit instead of refused. */
  allowAutoTruncate: boolean;
  /** Prefill's `max_req_input_len` when a server reports it (`/get_server_info`), else null (computed). */
  maxReqInputLen: number | null;
  /** The margin off `max_req_input_len` (5 in current SGLang, 0 in older releases); null: not known, 5 taken. */
  inputLimitMargin: number | null;
  /** The `max_new_tokens` requests declare (the tokenizer adds it to the prompt); null: none declared. */
  maxNewTokens: number | null;
}

/** Every behaviour as the incident ran. */
export const INCIDENT_BEHAVIOUR: Record<VersionSwitch, Setting> = { buggyRejectPath: 'incident', retireWithoutSend: 'incident', transferredLengthCheck: 'incident', clearPagesOnFree: 'incident' };

/** The incident's deployment (F14): the numbers the replay ran on, one prefill and one decode server. */
export const INCIDENT_DEPLOYMENT: Deployment = {
  contextTokens: INCIDENT_CONFIG.advertisedContextTokens,
  prefillCapacities: [INCIDENT_CONFIG.prefillCapacityTokens],
  decodeCapacities: [INCIDENT_CONFIG.decodeCapacityTokens],
  pageSize: INCIDENT_CONFIG.pageSize,
  chunkTokens: INCIDENT_CONFIG.prefillChunkTokens,
  disaggregated: true,
  rule: INCIDENT_CONFIG.thresholdRule,
  behaviour: INCIDENT_BEHAVIOUR,
  reservedDecodeTokens: INCIDENT_CONFIG.reservedDecodeTokens,
  decodeContextTokens: null,
  version: null,
  allowAutoTruncate: false,
  maxReqInputLen: null,
  inputLimitMargin: null,
  maxNewTokens: null,
};

/** The final deployment (F23): about 2.04 M tokens of prefill KV, the reject path fixed. */
export const FIXED_DEPLOYMENT: Deployment = {
  ...INCIDENT_DEPLOYMENT,
  prefillCapacities: [FIXED_CONFIG.prefillCapacityTokens],
  decodeCapacities: [FIXED_CONFIG.decodeCapacityTokens],
  behaviour: { ...INCIDENT_BEHAVIOUR, buggyRejectPath: 'fixed' },
};

/** The public sources (B-ids of the facts file) the registry gives for a version switch's change. */
export function sourcesOf(key: VersionSwitch): string[] {
  const s = switchSpec(key) as Switch;
  const ids = new Set<string>();
  if ('background' in s.evidence) ids.add(s.evidence.background);
  for (const id of s.protocol.sources ?? []) ids.add(id);
  return [...ids];
}

/** What a prompt gets. */
export type Outcome = 'served' | 'refused' | 'leaked' | 'failed-closed' | 'wrong-answer' | 'deployment-refused' | 'waits';

/** Where a prompt's fate is decided. */
export type Cause =
  /** Within every limit. */
  | 'within-limits'
  /** Longer than the advertised context: the tokenizer refuses it. */
  | 'tokenizer'
  /** Longer than a decode server's pool: decode refuses it when adding it. */
  | 'decode-admission'
  /** Over the decode server's own context or `max_req_input_len`: its own checks refuse it. */
  | 'decode-limit'
  /** Within decode's pool but never within its admission budget: it waits for ever. */
  | 'decode-budget'
  /** Over the prefill limit, on separate prefill and decode servers: the reject path decides. */
  | 'over-prefill-limit'
  /** Over the prefill limit on one server: its own abort answers 400; nothing is handed over. */
  | 'over-limit-colocated'
  /** A check before serving refuses the whole deployment. */
  | 'deployment-check';

/** The registry's expectations for over-limit prompts, as a band's outcome. */
const OUTCOME_OF: Record<Expectation, Outcome> = {
  'served-correctly': 'served',
  'rejected-400': 'refused',
  'leaked-200': 'leaked',
  'leaked-200-unless-tokenizer-400': 'leaked',
  'wrong-output-200': 'wrong-answer',
  'failed-closed': 'failed-closed',
  'deployment-refused': 'deployment-refused',
};

/**
 * When several mitigations are on, the one that acts first decides: a check before serving, then a
 * check that fails the request closed before decode reads (retire at prefill, length and per-read
 * checks at decode), then cleared pages (read, but as zeros). Each mitigation's expectation is the
 * registry's; only their order is stated here.
 */
const ACTS_FIRST: readonly Expectation[] = ['deployment-refused', 'failed-closed', 'wrong-output-200'];

/** The switches a resolved behaviour stands for (every other switch as the incident ran). */
export function switchesFor(behaviour: Record<VersionSwitch, 'incident' | 'fixed'>): Switches {
  const switches = { ...INCIDENT_SWITCHES };
  for (const key of VERSION_SWITCHES) switches[key] = behaviour[key] === 'fixed' ? !INCIDENT_SWITCHES[key] : INCIDENT_SWITCHES[key];
  return switches;
}

/** One (prefill, decode) pair of capacities a request can be routed over. */
export interface Route {
  prefillCapacity: number;
  decodeCapacity: number;
}

/** The distinct routes of a deployment, smallest prefill first. */
export function routesOf(d: Deployment): Route[] {
  const out: Route[] = [];
  const decodes = d.disaggregated ? d.decodeCapacities : d.prefillCapacities;
  for (const p of [...new Set(d.prefillCapacities)].sort((a, b) => a - b)) {
    for (const dc of [...new Set(decodes)].sort((a, b) => a - b)) {
      if (!d.disaggregated && dc !== p) continue;
      out.push({ prefillCapacity: p, decodeCapacity: dc });
    }
  }
  return out;
}

/** The engine's deployment for one route and one resolution of the behaviours: one prefill and one decode server. */
export function configFor(d: Deployment, route: Route, behaviour: Record<VersionSwitch, 'incident' | 'fixed'>): EngineConfig {
  return withOverrides(INCIDENT_CONFIG, overridesFor(d, route, behaviour));
}

/** The same as overrides of the incident's deployment (what a custom run carries). */
export function overridesFor(d: Deployment, route: Route, behaviour: Record<VersionSwitch, 'incident' | 'fixed'>): ConfigOverrides {
  const fromSwitches = overridesOf(switchesFor(behaviour));
  return {
    ...fromSwitches,
    prefillNodes: 1,
    decodeNodes: 1,
    advertisedContextTokens: d.contextTokens,
    prefillCapacityTokens: route.prefillCapacity,
    decodeCapacityTokens: route.decodeCapacity,
    pageSize: d.pageSize,
    prefillChunkTokens: d.chunkTokens,
    thresholdRule: d.rule,
    tokenizerRule: d.rule,
    reservedDecodeTokens: d.reservedDecodeTokens,
    ...(d.decodeContextTokens !== null ? { decodeContextTokens: d.decodeContextTokens } : {}),
    ...(marginOf(d) !== null ? { inputLimitMargin: marginOf(d)! } : {}),
  };
}

/**
 * The margin off `max_req_input_len` for a deployment: a reported `max_req_input_len` gives it
 * exactly (`min(context − 1, pool − 1)` less it, on the smallest prefill pool); else the one stated;
 * else null (the engine takes current SGLang's 5).
 */
export function marginOf(d: Deployment): number | null {
  if (d.maxReqInputLen !== null && d.prefillCapacities.length > 0) {
    const pool = poolTokens(Math.min(...d.prefillCapacities), d.pageSize);
    return Math.max(0, Math.min(d.contextTokens - 1, pool - 1) - d.maxReqInputLen);
  }
  return d.inputLimitMargin;
}

/** Every way to resolve the unknown behaviours (one way when none is unknown). */
export function resolutions(behaviour: Record<VersionSwitch, Setting>): Record<VersionSwitch, 'incident' | 'fixed'>[] {
  let out: Record<VersionSwitch, 'incident' | 'fixed'>[] = [{} as Record<VersionSwitch, 'incident' | 'fixed'>];
  for (const key of VERSION_SWITCHES) {
    const choices: ('incident' | 'fixed')[] = behaviour[key] === 'unknown' ? ['incident', 'fixed'] : [behaviour[key]];
    out = out.flatMap((r) => choices.map((c) => ({ ...r, [key]: c })));
  }
  return out;
}

/** The leaking resolution of the behaviours: every unknown as the incident ran. */
export function worstCase(behaviour: Record<VersionSwitch, Setting>): Record<VersionSwitch, 'incident' | 'fixed'> {
  return Object.fromEntries(VERSION_SWITCHES.map((k) => [k, behaviour[k] === 'fixed' ? 'fixed' : 'incident'])) as Record<VersionSwitch, 'incident' | 'fixed'>;
}

/** The limits of one engine deployment, every one the engine's own. */
export interface Limits {
  /** The longest prompt the (prefill's) tokenizer lets through. */
  tokenizer: number;
  /** The longest prompt prefill admits (longer ones take the reject path). */
  prefill: number;
  /** The longest prompt the decode server's own tokenizer and scheduler let through (its context, its `max_req_input_len`). */
  decodeInput: number;
  /** The decode pool in whole pages: a longer prompt is refused when decode adds it (`_check_if_req_exceed_kv_capacity`). */
  decodePool: number;
  /** The longest prompt decode admission's budget ever takes (its pool less the reserved decode tokens): a longer one waits. */
  decode: number;
  /** Tokens the prefill pool holds in whole pages. */
  prefillPool: number;
}

export function limitsOf(config: EngineConfig, maxNewTokens: number | null = null): Limits {
  // The tokenizer's rule, found from the engine's own refusal (monotone in the prompt's length).
  let lo = 0;
  let hi = config.advertisedContextTokens + 1;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (tokenizerRefusal(config, mid, maxNewTokens) === null) lo = mid;
    else hi = mid;
  }
  return {
    tokenizer: lo,
    prefill: prefillInputLimit(config),
    decodeInput: decodeInputLimit(config),
    decodePool: poolTokens(config.decodeCapacityTokens, config.pageSize),
    decode: decodeAdmissionLimit(config, maxNewTokens),
    prefillPool: poolTokens(config.prefillCapacityTokens, config.pageSize),
  };
}

/** One step of SGLang's path for a prompt: where it is, what the code does, and the code that does it. */
export interface ChainStep {
  at: 'deployment' | 'tokenizer' | 'decode-check' | 'prefill-scheduler' | 'placeholder' | 'decode-add' | 'decode-budget' | 'handoff';
  /** `pass`: on to the next step; `stop`: the prompt's fate is decided here. */
  result: 'pass' | 'stop';
  /** What happens, in English, with the numbers. */
  says: string;
  /** SGLang's file and function (docs/MODEL.md gives the lines and releases). */
  code: string;
}

/**
 * SGLang's decision chain for one prompt of `n` tokens on one engine deployment, step by step as
 * its code takes it (docs/MODEL.md, "Your deployment's chain"): the prefill server's tokenizer; on
 * separate servers, the decode server's own tokenizer and scheduler; prefill's scheduler limit; the
 * reject path; decode adding the request against its pool, then its admission budget; the handoff
 * and the read. Every limit is the engine's (config.ts), so the simulation, the bands, the page and
 * the CLI take one path.
 */
export function chainAt(config: EngineConfig, n: number, disaggregated = true, maxNewTokens: number | null = null): { outcome: Outcome; cause: Cause; steps: ChainStep[] } {
  const switches = switchesOf(config);
  const limits = limitsOf(config, maxNewTokens);
  const f = (x: number) => x.toLocaleString('en-US');
  const steps: ChainStep[] = [];
  const end = (outcome: Outcome, cause: Cause) => ({ outcome, cause, steps });
  if (switches.deploymentCapacityCheck && config.advertisedContextTokens > limits.prefillPool) {
    steps.push({ at: 'deployment', result: 'stop', says: `a check before serving refuses a context of ${f(config.advertisedContextTokens)} over a prefill pool of ${f(limits.prefillPool)}`, code: '(a deployment check: not in SGLang)' });
    return end('deployment-refused', 'deployment-check');
  }
  const sglang = config.thresholdRule !== 'report';
  if (n > limits.tokenizer) {
    steps.push({ at: 'tokenizer', result: 'stop', says: `${f(n)} tokens: over the longest the tokenizer passes (${f(limits.tokenizer)}): 400`, code: 'managers/tokenizer_manager.py _validate_one_request' });
    return end('refused', 'tokenizer');
  }
  steps.push({ at: 'tokenizer', result: 'pass', says: `${f(n)} ≤ ${f(limits.tokenizer)}: the tokenizer passes it`, code: 'managers/tokenizer_manager.py _validate_one_request' });
  if (disaggregated && n > limits.decodeInput) {
    steps.push({ at: 'decode-check', result: 'stop', says: `over the decode server's own input limit (${f(limits.decodeInput)}: its context${sglang ? ' and its max_req_input_len' : ''}): decode refuses it too${sglang ? ', keeping only a one-token placeholder, so it reserves no page for the prompt and reads nothing stale' : ''}: 400`, code: sglang ? 'managers/scheduler.py max_req_input_len; managers/utils.py validate_input_length (on the decode server)' : 'managers/tokenizer_manager.py (on the decode server)' });
    return end('refused', 'decode-limit');
  }
  if (disaggregated) steps.push({ at: 'decode-check', result: 'pass', says: `≤ ${f(limits.decodeInput)}: the decode server's own checks pass it`, code: 'managers/utils.py validate_input_length (on the decode server)' });
  const overPrefill = n > limits.prefill;
  if (!overPrefill) {
    steps.push({ at: 'prefill-scheduler', result: 'pass', says: `≤ ${f(limits.prefill)}: prefill admits it`, code: sglang ? 'managers/utils.py validate_input_length' : "the report's rule: the prefill pool" });
  } else if (!disaggregated) {
    steps.push({ at: 'prefill-scheduler', result: 'stop', says: `over the limit of ${f(limits.prefill)} on a server that prefills and decodes: its abort answers 400, nothing is handed over`, code: 'managers/utils.py validate_input_length' });
    return end('refused', 'over-limit-colocated');
  } else if (!switches.buggyRejectPath) {
    steps.push({ at: 'prefill-scheduler', result: 'stop', says: `over prefill's limit of ${f(limits.prefill)}: rejected at admission on both sides`, code: 'PR #38935 (retire intake-rejected requests before the handoff)' });
    return end(OUTCOME_OF[switchSpec('capacityGap').expect], 'over-prefill-limit');
  } else {
    steps.push({ at: 'prefill-scheduler', result: 'pass', says: `over prefill's limit of ${f(limits.prefill)}: marked aborted (400 pending)`, code: 'managers/utils.py validate_input_length → Req.set_finish_with_abort' });
    steps.push({ at: 'placeholder', result: 'pass', says: 'its input replaced by one placeholder token, still queued: prefill computes and sends one page', code: 'managers/schedule_batch.py Req.set_finish_with_abort' });
  }
  if (!disaggregated) return end('served', 'within-limits');
  if (n > limits.decodePool) {
    steps.push({ at: 'decode-add', result: 'stop', says: `over the decode pool of ${f(limits.decodePool)}: decode refuses it when adding it: 400`, code: 'disaggregation/decode.py _check_if_req_exceed_kv_capacity' });
    return end('refused', 'decode-admission');
  }
  steps.push({ at: 'decode-add', result: 'pass', says: `≤ the decode pool of ${f(limits.decodePool)}`, code: 'disaggregation/decode.py _check_if_req_exceed_kv_capacity' });
  if (n > limits.decode) {
    steps.push({ at: 'decode-budget', result: 'stop', says: `over the pool less ${f(config.reservedDecodeTokens)} reserved decode tokens (${f(limits.decode)}): the admission budget never takes it, and SGLang leaves it waiting for ever (the engine's simulation ends it with a 400)`, code: 'disaggregation/decode.py _allocatable_tokens, pop_preallocated' });
    return end('waits', 'decode-budget');
  }
  steps.push({ at: 'decode-budget', result: 'pass', says: `≤ ${f(limits.decode)}: decode pre-allocates ${f(Math.ceil(n / config.pageSize))} pages for the whole prompt`, code: 'disaggregation/decode.py pop_preallocated' });
  if (!overPrefill) {
    steps.push({ at: 'handoff', result: 'stop', says: 'prefill sends every page it computed: served from its own KV', code: 'disaggregation/prefill.py send_kv_chunk' });
    return end('served', 'within-limits');
  }
  const on = (MITIGATIONS as readonly Switch[]).filter((m) => switches[m.key] && (m as { design?: string }).design === undefined).map((m) => m.expect);
  const first = ACTS_FIRST.find((e) => on.includes(e));
  const outcome = OUTCOME_OF[first ?? 'leaked-200'];
  steps.push({
    at: 'handoff',
    result: 'stop',
    says:
      outcome === 'leaked'
        ? `prefill sends one page and reports the transfer complete; decode reads all ${f(Math.ceil(n / config.pageSize))} pages it reserved, and only the first was written: 200 from other requests' KV`
        : outcome === 'failed-closed'
          ? 'a check fails the request before decode reads: 500, nothing read'
          : outcome === 'wrong-answer'
            ? 'decode reads pages cleared when freed: 200, a wrong answer, no one else\'s data'
            : outcome,
    code: 'disaggregation/prefill.py send_kv_chunk; disaggregation/decode.py (poll: Success)',
  });
  return end(outcome, 'over-prefill-limit');
}

/** What a prompt of `n` tokens gets on one engine deployment (the chain's last step). */
export function outcomeAt(config: EngineConfig, n: number, disaggregated = true, maxNewTokens: number | null = null): { outcome: Outcome; cause: Cause } {
  const { outcome, cause } = chainAt(config, n, disaggregated, maxNewTokens);
  return { outcome, cause };
}

/** A range of prompt lengths that all get the same thing. `to` null: and every longer prompt. */
export interface Band {
  from: number;
  to: number | null;
  cause: Cause;
  /** What it gets: one outcome, or several when a behaviour is unknown (one per resolution). */
  outcomes: Outcome[];
  /** For each outcome, the unknown behaviours' resolutions that give it. */
  when: { outcome: Outcome; cause: Cause; behaviour: Record<VersionSwitch, 'incident' | 'fixed'> }[];
  /** The changes that close a band that may leak: each alone makes no prompt of the band leak. */
  closedBy: Closer[];
}

export type Closer =
  | { kind: 'behaviour'; key: VersionSwitch; outcome: Outcome; sources: string[] }
  | { kind: 'prefill-capacity'; atLeast: number }
  | { kind: 'context'; atMost: number };

export interface RouteAnswer {
  route: Route;
  limits: Limits;
  bands: Band[];
  /** The smallest prompt that may leak on this route, or null. */
  smallestLeak: number | null;
}

export interface DeploymentAnswer {
  routes: RouteAnswer[];
  leaks: boolean;
  smallestLeak: number | null;
  /** The route whose leak starts lowest (the replay's), or the first. */
  worstRoute: number;
}

const mayLeak = (b: Pick<Band, 'outcomes'>) => b.outcomes.includes('leaked');

/** The bands of one route: what each prompt length from 1 up gets, under every resolution of the unknowns. */
export function routeBands(d: Deployment, route: Route, withClosers = true): RouteAnswer {
  const res = resolutions(d.behaviour);
  const configs = res.map((r) => configFor(d, route, r));
  const limits = limitsOf(configs[0]!, d.maxNewTokens);
  // Every outcome changes only at a limit: evaluate each stretch between them once.
  const edges = [...new Set([limits.tokenizer, limits.prefill, limits.decodeInput, limits.decodePool, limits.decode].filter((x) => x >= 1))].sort((a, b) => a - b);
  const starts = [1, ...edges.map((e) => e + 1)];
  const bands: Band[] = [];
  for (let i = 0; i < starts.length; i++) {
    const from = starts[i]!;
    const to = i + 1 < starts.length ? starts[i + 1]! - 1 : null;
    if (to !== null && to < from) continue;
    const at = configs.map((c) => outcomeAt(c, from, d.disaggregated, d.maxNewTokens));
    const outcomes = [...new Set(at.map((a) => a.outcome))];
    const when = at.map((a, k) => ({ outcome: a.outcome, cause: a.cause, behaviour: res[k]! }));
    const last = bands[bands.length - 1];
    // One band while every resolution's answer (outcome and where it is decided) stays the same.
    if (last && last.when.every((w, k) => w.outcome === when[k]!.outcome && w.cause === when[k]!.cause)) {
      last.to = to;
      continue;
    }
    bands.push({ from, to, cause: at[0]!.cause, outcomes, when, closedBy: [] });
  }
  if (withClosers) for (const b of bands) if (mayLeak(b)) b.closedBy = closersOf(d, route, b);
  const leak = bands.find(mayLeak);
  return { route, limits, bands, smallestLeak: leak ? leak.from : null };
}

/** Whether no prompt in [from, to] may leak on a deployment (under every resolution of its unknowns). */
function closedOver(d: Deployment, route: Route, from: number, to: number): boolean {
  const r = routeBands(d, route, false);
  return !r.bands.some((b) => mayLeak(b) && b.from <= to && (b.to === null || b.to >= from));
}

/**
 * Each single change that closes a leaking band: one behaviour set to its fix, prefill KV raised to
 * the smallest whole-page capacity whose limit covers the band, or the advertised context lowered to
 * the prefill limit. Each is checked by computing the bands again with it, not assumed.
 */
function closersOf(d: Deployment, route: Route, band: Band): Closer[] {
  const to = band.to ?? d.contextTokens;
  const out: Closer[] = [];
  for (const key of VERSION_SWITCHES) {
    if (d.behaviour[key] === 'fixed') continue;
    const changed: Deployment = { ...d, behaviour: { ...d.behaviour, [key]: 'fixed' } };
    if (!closedOver(changed, route, band.from, to)) continue;
    const outcome = outcomeAt(configFor(changed, route, worstCase(changed.behaviour)), band.from, d.disaggregated, d.maxNewTokens).outcome;
    out.push({ kind: 'behaviour', key, outcome, sources: sourcesOf(key) });
  }
  // The smallest whole-page prefill capacity whose limit reaches the band's top (the limit grows with it).
  const limitWith = (cap: number) => prefillInputLimit(configFor(d, { ...route, prefillCapacity: cap }, worstCase(d.behaviour)));
  let lo = route.prefillCapacity;
  let hi = Math.max(route.prefillCapacity, d.pageSize);
  while (limitWith(hi) < to && hi < 1 << 30) hi *= 2;
  if (limitWith(hi) >= to) {
    while (hi - lo > d.pageSize) {
      const mid = Math.floor((lo + hi) / 2 / d.pageSize) * d.pageSize;
      if (mid <= lo) break;
      if (limitWith(mid) >= to) hi = mid;
      else lo = mid;
    }
    const atLeast = Math.ceil(hi / d.pageSize) * d.pageSize;
    const raised = { ...d, prefillCapacities: d.prefillCapacities.map((p) => (p === route.prefillCapacity ? atLeast : p)) };
    if (closedOver(raised, { ...route, prefillCapacity: atLeast }, band.from, to)) out.push({ kind: 'prefill-capacity', atLeast });
  }
  // The largest context, set on both servers, under which no prompt of the band leaks (leaking needs
  // a context above prefill's limit, so the answer is monotone: search it, then check it).
  const withContext = (c: number): Deployment => ({ ...d, contextTokens: c, decodeContextTokens: d.decodeContextTokens === null ? null : Math.min(c, d.decodeContextTokens), maxReqInputLen: null, inputLimitMargin: marginOf(d) });
  let ok = 0;
  let bad = d.contextTokens;
  while (bad - ok > 1) {
    const mid = Math.floor((ok + bad) / 2);
    if (closedOver(withContext(mid), route, band.from, to)) ok = mid;
    else bad = mid;
  }
  if (ok >= 1 && closedOver(withContext(ok), route, band.from, to)) out.push({ kind: 'context', atMost: ok });
  return out;
}

/** The whole answer: the bands of every route, whether any may leak, and the smallest prompt that may. */
export function deploymentBands(d: Deployment): DeploymentAnswer {
  const routes = routesOf(d).map((r) => routeBands(d, r));
  const leaking = routes.map((r, i) => [r.smallestLeak, i] as const).filter((x): x is readonly [number, number] => x[0] !== null);
  leaking.sort((a, b) => a[0] - b[0]);
  return { routes, leaks: leaking.length > 0, smallestLeak: leaking[0]?.[0] ?? null, worstRoute: leaking[0]?.[1] ?? 0 };
}

/** Problems with a deployment's numbers, each naming its field (the engine's own limits where it has them). */
export function deploymentProblems(d: Deployment): string[] {
  const problems: string[] = [];
  const int = (field: string, v: number, min: number, max = 16_777_216) => {
    if (!Number.isInteger(v) || v < min || v > max) problems.push(`${field} must be a whole number from ${min} to ${max.toLocaleString('en-US')}, got ${v}`);
  };
  int('contextTokens', d.contextTokens, 1);
  int('pageSize', d.pageSize, 1, 4096);
  int('chunkTokens', d.chunkTokens, 0);
  if (d.prefillCapacities.length === 0) problems.push('prefillCapacities: give at least one prefill server');
  if (d.disaggregated && d.decodeCapacities.length === 0) problems.push('decodeCapacities: give at least one decode server');
  if (d.prefillCapacities.length > 64 || d.decodeCapacities.length > 64) problems.push('at most 64 servers of each kind (one per process group, not per rank)');
  d.prefillCapacities.forEach((c, i) => int(`prefillCapacities[${i}]`, c, Math.max(1, d.pageSize)));
  d.decodeCapacities.forEach((c, i) => int(`decodeCapacities[${i}]`, c, Math.max(1, d.pageSize)));
  for (const k of VERSION_SWITCHES) if (!SETTINGS.includes(d.behaviour[k])) problems.push(`behaviour.${k} must be incident, fixed or unknown`);
  return problems;
}

/**
 * What each behaviour is when the operator does not say: what SGLang's public history says of it. The
 * reject path and retiring aborted results are unknown (PRs #38935 and #36988 are merged, but no source
 * read names the release that first carries them); the length check is as in the incident (PR #38704 is
 * open) and so is page clearing (no SGLang code read clears a freed page). The CLI and the page start here.
 */
export const UNSTATED_BEHAVIOUR: Record<VersionSwitch, Setting> = { buggyRejectPath: 'unknown', retireWithoutSend: 'unknown', transferredLengthCheck: 'incident', clearPagesOnFree: 'incident' };

/** What the verdict needs before it can be told. */
export type Need =
  | { kind: 'figure'; field: 'disaggregated' | 'contextTokens' | 'prefillCapacities' | 'decodeCapacities' }
  | { kind: 'behaviour'; key: VersionSwitch }
  /** The margin off max_req_input_len (5, or 0 in older releases), when the verdict turns on it. */
  | { kind: 'margin' }
  /** Auto-truncation: each server cuts to its own limit instead of the placeholder, a path not modelled. */
  | { kind: 'auto-truncate' };

/** `closed`: no prompt leaks on the figures given; `open`: some prompt does; `unknown`: it cannot be told (`needs` says why). */
export type Verdict = 'closed' | 'open' | 'unknown';

const VERDICT_FIGURES = ['disaggregated', 'contextTokens', 'prefillCapacities', 'decodeCapacities'] as const;

/**
 * The verdict on these figures, for the CLI's exit code and the page's sentence alike: open when a band
 * leaks under every resolution of the unknown behaviours, unknown when one may (or when a figure the
 * verdict turns on was given nowhere: `missing`), closed otherwise. The figures do not matter when no
 * band leaks even with prefill's pool at its smallest and decode's at its largest (a behaviour then
 * closes every over-limit prompt).
 */
export function verdictOf(d: Deployment, answer: DeploymentAnswer, missing: readonly string[]): { verdict: Verdict; needs: Need[] } {
  const needs: Need[] = [];
  // Each figure given nowhere at the value that leaks most (a context as long as any, the smallest
  // prefill pool, the largest decode pool, prefill and decode apart): no leak even then, and the
  // figures given already close the path.
  const absent = VERDICT_FIGURES.filter((f) => missing.includes(f));
  if (absent.length > 0) {
    const context = absent.includes('contextTokens') ? 16_777_216 : d.contextTokens;
    const worst: Deployment = {
      ...d,
      contextTokens: context,
      disaggregated: absent.includes('disaggregated') ? true : d.disaggregated,
      prefillCapacities: absent.includes('prefillCapacities') ? [Math.max(1, d.pageSize) * 2] : d.prefillCapacities,
      decodeCapacities: absent.includes('decodeCapacities') || d.decodeCapacities.length === 0 ? [Math.min(16_777_216, Math.max(context + 1, d.pageSize * 2))] : d.decodeCapacities,
      maxReqInputLen: absent.includes('contextTokens') || absent.includes('prefillCapacities') ? null : d.maxReqInputLen,
    };
    if (deploymentBands(worst).leaks) for (const field of absent) needs.push({ kind: 'figure', field });
  }
  if (d.allowAutoTruncate && d.disaggregated) needs.push({ kind: 'auto-truncate' });
  const surely = answer.routes.some((r) => r.bands.some((b) => b.outcomes.length === 1 && b.outcomes[0] === 'leaked'));
  if (answer.leaks && !surely) for (const key of VERSION_SWITCHES) if (d.behaviour[key] === 'unknown') needs.push({ kind: 'behaviour', key });
  // The margin moves prefill's limit by 5 tokens: a need only when the verdict turns on it.
  if (d.rule === 'sglang' && marginOf(d) === null && deploymentBands({ ...d, inputLimitMargin: 0 }).leaks !== answer.leaks) needs.push({ kind: 'margin' });
  if (needs.length > 0) return { verdict: 'unknown', needs };
  return { verdict: surely ? 'open' : 'closed', needs };
}

/** The id of the replayed request in the replay's trace. */
export const REPLAY_REQUEST_ID = 'yours';

/**
 * One request of `promptTokens` on a route's numbers, after three tenants' ordinary requests have
 * used decode's pages and freed them (a server that has been serving; on a fresh one the pages are
 * zeros, and nobody's data is there to read). Each earlier request is as long as the prefill limit
 * lets one be, and together they write every page of decode's pool at least once: SGLang's free
 * list hands out pages never used before ahead of freed ones (which wait, staged, until the list
 * runs short), so a pool only partly used would give yours zeros. They arrive together, so that
 * they hold different pages; yours arrives after they are answered.
 */
export function replayTrace(d: Deployment, route: Route, promptTokens: number): Trace {
  const config = configFor(d, route, worstCase(d.behaviour));
  const limits = limitsOf(config);
  const warmLength = Math.max(1, Math.min(limits.prefill, limits.decode, limits.tokenizer, limits.decodeInput));
  // Every page of the pool written once, and one request more, whose allocation merges the staged pages back.
  const cover = poolTokens(config.decodeCapacityTokens, config.pageSize);
  const warmCount = Math.max(3, Math.min(48, Math.ceil(cover / warmLength) + 1));
  const tenants = TENANT_NAMES.slice(0, 4);
  const requests: TraceRequest[] = [];
  for (let i = 0; i < warmCount; i++) requests.push({ id: `warm-${i + 1}`, at: 0, tenant: tenants[i % 3]!, promptTokens: warmLength, maxNewTokens: null });
  // Each earlier request at most: prefill, a copy and its answer, one after another.
  const t = config.timing;
  const each = (warmLength / t.prefillTokensPerSecond) * 1000 + (warmLength / t.transferTokensPerSecond) * 1000 + config.outputTokens * t.decodeMsPerToken + 4 * t.handshakeMs;
  requests.push({ id: REPLAY_REQUEST_ID, at: Math.ceil(warmCount * each) + 60_000, tenant: tenants[3]!, promptTokens, maxNewTokens: d.maxNewTokens });
  return {
    version: 1,
    name: `your deployment: a ${promptTokens}-token prompt after three tenants' requests`,
    tenants: tenants.map((name, i) => ({ name, topic: TOPICS[i % TOPICS.length]!, canary: true })),
    requests,
  };
}

/**
 * What the page and the CLI replay: one prompt of the smallest leaking length (else the smallest
 * past the prefill limit) on the route it starts lowest on, the unknowns as the incident ran. Null
 * when no prompt reaches the reject path on these numbers.
 */
export function replayOf(d: Deployment): { route: Route; promptTokens: number; overrides: ConfigOverrides; trace: Trace } | null {
  if (!d.disaggregated || deploymentProblems(d).length > 0) return null;
  const answer = deploymentBands(d);
  let route = answer.routes[answer.worstRoute]?.route;
  let prompt = answer.smallestLeak;
  if (prompt === null) {
    const over = answer.routes.map((r) => ({ r, b: r.bands.find((b) => b.cause === 'over-prefill-limit') })).find((x) => x.b);
    if (!over) return null;
    route = over.r.route;
    prompt = over.b!.from;
  }
  if (!route) return null;
  return { route, promptTokens: prompt, overrides: overridesFor(d, route, worstCase(d.behaviour)), trace: replayTrace(d, route, prompt) };
}

/**
 * What a replayed request got, read from the run's request columns as every view reads them: its
 * status, the provenance audit's leak flag, and the integrity breach (answered 200 from memory it did
 * not write). A refused deployment answers nothing.
 */
export function replayedOutcome(run: Pick<RunResult, 'refused' | 'requests' | 'requestIds'>, id = REPLAY_REQUEST_ID): Outcome | null {
  if (run.refused !== null) return 'deployment-refused';
  const i = run.requestIds.indexOf(id);
  if (i < 0) return null;
  const status = run.requests.status[i]!;
  const flags = run.requests.flags[i]!;
  if (status === 400) return 'refused';
  if (status === 500) return 'failed-closed';
  if (status !== 200) return null;
  if (flags & FLAG_LEAK_PROVENANCE) return 'leaked';
  if (flags & FLAG_INTEGRITY_BREACH) return 'wrong-answer';
  return 'served';
}
