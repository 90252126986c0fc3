/**
 * The one URL codec: the whole situation and the person's settings in a versioned query string,
 * `?v=1&s=demo&t=…&req=…&page=decode-0:42&view=…&d=gap,buggy&m=clear&cmp=path&lang=fr&…`.
 * Every parameter is declared once, in URL_PARAMS: its name, how it is read into the state and how
 * the state writes it; the parser, the serialiser and the list of known names derive from that table.
 * Switch codes come from the registry of switches (engine/switches.ts). Parsing never throws: each
 * bad or unknown parameter is dropped, named in the result (the notice's words are the catalogue's,
 * i18n/linkNotice.ts), and its default kept. Version 0 (no `v`) is read as version 1.
 */
import * as v from 'valibot';
import { MECHANISMS, MITIGATIONS, DEFECTS, SWITCHES, type Switch, type SwitchKey } from '../../engine/switches.ts';
import { SCENARIO_NAMES } from '../../engine/runs/index.ts';
import { TENANT_NAMES } from '../../engine/core/vocab.ts';
import { GPU_FAULTS } from '../../gpu/reports.ts';
import { HANDOFF_SPEEDS } from './handoffSpeeds.ts';
import { DEFAULT_STATE, type Language, type UrlState, type ViewName } from './store.ts';
import type { Deployment, Setting } from '../../engine/deployment.ts';
import { INCIDENT_CONFIG } from '../../engine/config.ts';

export const URL_VERSION = 1;

/**
 * The longest query string this page writes or reads. Servers refuse a request whose line and
 * headers pass their limit (Node's 16 KB, many hosts' 8 KB) with HTTP 431 before the page can say a
 * word, and a link pasted into a chat or a slide should stay short: state that does not fit is kept
 * out of the link (serializeUrlChecked names it, the page's link notice says so), and a longer link
 * opened (typed, or cut by hand) is read as no settings at all, with the notice naming its length.
 */
export const LINK_MAX_CHARS = 2000;

const ALL = SWITCHES as readonly Switch[];
const byCode = (list: readonly Switch[]) => new Map(list.map((s) => [s.code, s.key]));
const DEFECT_CODES = byCode(DEFECTS as readonly Switch[]);
const MITIGATION_CODES = byCode(MITIGATIONS as readonly Switch[]);
const MECHANISM_CODES = byCode(MECHANISMS as readonly Switch[]);
const FIX_CODES = new Map(ALL.map((s) => [s.fixCode, s.key]));

const viewSchema = v.picklist(['cluster', 'transfer', 'response', 'stage'] satisfies ViewName[]);
const langSchema = v.picklist(['en', 'fr'] satisfies Language[]);
const timeSchema = v.pipe(v.string(), v.regex(/^\d{1,13}(\.\d{1,3})?$/), v.transform(Number), v.number(), v.maxValue(1e13));
/** Seconds on the handoff clock, to the hundredth. */
const handoffSchema = v.pipe(v.string(), v.regex(/^\d{1,4}(\.\d{1,2})?$/), v.transform(Number), v.number(), v.maxValue(3600));
const indexSchema = v.pipe(v.string(), v.regex(/^\d{1,9}$/), v.transform(Number));
const pageSchema = v.pipe(v.string(), v.regex(/^(prefill|decode)-\d{1,2}:\d{1,8}$/));
const codeListSchema = (allowed: readonly string[]) => v.pipe(v.string(), v.transform((s) => (s === '' ? [] : s.split(','))), v.array(v.picklist(allowed)));
/** Any chapter number: the walkthrough clamps it to the chapters it has. */
const chapterSchema = v.pipe(v.string(), v.regex(/^\d{1,3}$/), v.transform(Number), v.minValue(1));
const speedSchema = v.pipe(v.string(), v.regex(/^\d{1,7}$/), v.transform(Number), v.minValue(1), v.maxValue(1_000_000));
const smallInt = (digits: number, min: number, max: number) => v.pipe(v.string(), v.regex(new RegExp(`^\\d{1,${digits}}$`)), v.transform(Number), v.minValue(min), v.maxValue(max));

/** Something a link had that the page did not take, for the notice that names it. */
export type IgnoredParam =
  | { kind: 'malformed'; name: string; value: string }
  | { kind: 'unknown'; name: string }
  | { kind: 'version'; value: string; current: number }
  /** Well formed, but meaningless without another parameter (a beat without its chapter). */
  | { kind: 'needs'; name: string; value: string; needs: string }
  /** The whole link is longer than this page's links are (LINK_MAX_CHARS): nothing of it was read. */
  | { kind: 'too-long'; length: number; max: number }
  /** Kept out of the link being written: the link with it would pass LINK_MAX_CHARS. */
  | { kind: 'not-written'; name: string; length: number; max: number };

export interface ParsedUrl {
  state: Partial<UrlState>;
  ignored: IgnoredParam[];
}

type Patch = Partial<UrlState>;

/** One parameter of the query string. */
interface UrlParam {
  name: string;
  /** Reads a present value into the patch; false when it is malformed (then it is named and dropped). */
  read(raw: string, into: Patch): boolean;
  /** The value to write for a state, or null to leave the parameter out. */
  write(s: UrlState): string | null;
  /** Written as a bare name (`&bench`), read whatever its value. */
  flag?: true;
  /** Read only when this other parameter was read too. */
  needs?: string;
}

/** A parameter read through a schema: `apply` puts the parsed value into the patch. */
function param<T>(name: string, schema: v.GenericSchema<string, T>, apply: (value: T, into: Patch) => void, write: (s: UrlState) => string | null, extra: Partial<UrlParam> = {}): UrlParam {
  return {
    name,
    read: (raw, into) => {
      const r = v.safeParse(schema, raw);
      if (r.success) apply(r.output, into);
      return r.success;
    },
    write,
    ...extra,
  };
}

/**
 * `d`, `m`, `u`: the switches of one kind that are on; a list given replaces the defaults of its kind.
 * `writeEmpty` false: written only when it differs from the defaults (an empty list included).
 */
function switchList(name: string, codes: Map<string, SwitchKey>, writeEmpty: boolean): UrlParam {
  return param(
    name,
    codeListSchema([...codes.keys()]),
    (on, into) => {
      const switches = { ...(into.switches ?? DEFAULT_STATE.switches) };
      for (const [code, key] of codes) switches[key] = on.includes(code);
      into.switches = switches;
    },
    (s) => {
      const on = [...codes].filter(([, key]) => s.switches[key]).map(([code]) => code);
      const asDefault = [...codes].every(([, key]) => s.switches[key] === DEFAULT_STATE.switches[key]);
      return writeEmpty || !asDefault ? on.join(',') : null;
    },
  );
}

const unlessDefault = <K extends keyof UrlState>(key: K, show: (value: UrlState[K]) => string = String) => (s: UrlState) => (s[key] === DEFAULT_STATE[key] ? null : show(s[key]));

/**
 * `dep`: an operator's deployment, `context.prefill.decode.page.chunk.d|c.r|s.behaviours`: servers'
 * capacities joined by `_`, `d` disaggregated or `c` not, `r` the report's limit rule or `s`
 * SGLang's, and each behaviour a version decides as its switch's code (the registry's) and `i`
 * (as in the incident), `f` (fixed) or `u` (unknown): `1048576.681280.1310720.64.0.d.r.buggy-i_retire-i_length-i_clear-i`.
 * Only the format is read here; the deployment view checks the numbers (engine/deployment.ts).
 */
const SETTING_CODES: Record<Setting, string> = { incident: 'i', fixed: 'f', unknown: 'u' };
const SWITCH_CODES = byCode(ALL);
const capacities = '\\d{1,8}(?:_\\d{1,8}){0,63}';
const deploymentSchema = v.pipe(
  v.string(),
  v.regex(new RegExp(`^\\d{1,8}\\.${capacities}\\.(?:${capacities})?\\.\\d{1,4}\\.\\d{1,8}\\.[dc]\\.[rs]\\.[a-z]{1,16}-[ifu](?:_[a-z]{1,16}-[ifu]){0,7}(?:\\.(?:[rxmqn]\\d{1,8}|t)(?:_(?:[rxmqn]\\d{1,8}|t)){0,5})?$`)),
  v.transform((raw): Deployment | null => {
    const [ctx, pre, dec, page, chunk, mode, rule, behaviours, extras] = raw.split('.') as [string, string, string, string, string, string, string, string, string | undefined];
    const extra = new Map((extras ? extras.split('_') : []).map((x) => [x[0]!, x.slice(1)]));
    if (extras && extra.size !== extras.split('_').length) return null;
    const num = (k: string) => (extra.has(k) ? Number(extra.get(k)) : null);
    const list = (x: string) => (x === '' ? [] : x.split('_').map(Number));
    const behaviour: Record<string, Setting> = {};
    for (const pair of behaviours.split('_')) {
      const [code, setting] = pair.split('-') as [string, string];
      const key = SWITCH_CODES.get(code);
      const value = (Object.keys(SETTING_CODES) as Setting[]).find((k) => SETTING_CODES[k] === setting);
      if (!key || !value || key in behaviour) return null;
      behaviour[key] = value;
    }
    return {
      contextTokens: Number(ctx),
      prefillCapacities: list(pre),
      decodeCapacities: list(dec),
      pageSize: Number(page),
      chunkTokens: Number(chunk),
      disaggregated: mode === 'd',
      rule: rule === 's' ? 'sglang' : 'report',
      behaviour: behaviour as Deployment['behaviour'],
      reservedDecodeTokens: num('r') ?? INCIDENT_CONFIG.reservedDecodeTokens,
      decodeContextTokens: num('x'),
      version: null,
      allowAutoTruncate: extra.has('t'),
      maxReqInputLen: num('q'),
      inputLimitMargin: num('m'),
      maxNewTokens: num('n'),
    };
  }),
  v.check((x) => x !== null),
);

function writeDeployment(d: Deployment): string {
  const behaviours = Object.entries(d.behaviour).map(([key, setting]) => `${ALL.find((s) => s.key === key)!.code}-${SETTING_CODES[setting]}`);
  // Figures beyond the first eight only when they differ from the incident's (older links read the same).
  const extras = [
    d.reservedDecodeTokens !== INCIDENT_CONFIG.reservedDecodeTokens ? `r${d.reservedDecodeTokens}` : '',
    d.decodeContextTokens !== null ? `x${d.decodeContextTokens}` : '',
    d.inputLimitMargin !== null ? `m${d.inputLimitMargin}` : '',
    d.maxReqInputLen !== null ? `q${d.maxReqInputLen}` : '',
    d.maxNewTokens !== null ? `n${d.maxNewTokens}` : '',
    d.allowAutoTruncate ? 't' : '',
  ].filter(Boolean);
  return [d.contextTokens, d.prefillCapacities.join('_'), d.decodeCapacities.join('_'), d.pageSize, d.chunkTokens, d.disaggregated ? 'd' : 'c', d.rule === 'sglang' ? 's' : 'r', behaviours.join('_'), ...(extras.length ? [extras.join('_')] : [])].join('.');
}

/** The parameters, in the order a link writes them. */
export const URL_PARAMS: readonly UrlParam[] = [
  // The version is checked apart (an outdated one is read as this one, with a notice).
  { name: 'v', read: () => true, write: () => String(URL_VERSION) },
  param('s', v.picklist(SCENARIO_NAMES), (x, p) => (p.scenario = x), (s) => s.scenario),
  // To the microsecond: the stage's steps that share one engine instant sit microseconds apart.
  param('t', timeSchema, (x, p) => (p.time = x), (s) => String(Math.round(s.time * 1000) / 1000)),
  param('req', indexSchema, (x, p) => (p.selectedRequest = x), (s) => (s.selectedRequest === null ? null : String(s.selectedRequest))),
  param('h', handoffSchema, (x, p) => (p.handoff = x), (s) => (s.handoff === null ? null : String(Math.round(s.handoff * 100) / 100))),
  param('hs', v.picklist(HANDOFF_SPEEDS.map(String)), (x, p) => (p.handoffSpeed = Number(x)), unlessDefault('handoffSpeed')),
  param(
    'page',
    pageSchema,
    (x, p) => {
      const [node, page] = x.split(':') as [string, string];
      p.selectedPage = { node, page: Number(page) };
    },
    (s) => (s.selectedPage ? `${s.selectedPage.node}:${s.selectedPage.page}` : null),
  ),
  param('view', viewSchema, (x, p) => (p.view = x), (s) => s.view),
  switchList('d', DEFECT_CODES, true),
  switchList('m', MITIGATION_CODES, true),
  // `u`, the upstream mechanisms on, only when one is: links written before they existed read the same.
  switchList('u', MECHANISM_CODES, false),
  param('cmp', v.picklist([...FIX_CODES.keys()]), (x, p) => (p.compare = FIX_CODES.get(x) ?? null), (s) => (s.compare ? ALL.find((x) => x.key === s.compare)!.fixCode : null)),
  param('lang', langSchema, (x, p) => (p.lang = x), unlessDefault('lang')),
  // The lens on the evidence (only what the report says), written only when on.
  param('lens', v.picklist(['report']), (_, p) => (p.lens = 'report'), (s) => (s.lens === 'report' ? 'report' : null)),
  param('speed', speedSchema, (x, p) => (p.speed = x), unlessDefault('speed')),
  param('backend', v.picklist(['webgpu', 'js']), (x, p) => (p.backend = x), unlessDefault('backend')),
  param('gpu-fault', v.picklist(GPU_FAULTS), (x, p) => (p.gpuFault = x), (s) => s.gpuFault),
  param('vol', smallInt(6, 0, 20_000), (x, p) => (p.requestsPerDay = x), unlessDefault('requestsPerDay')),
  param('tenants', smallInt(2, 1, TENANT_NAMES.length), (x, p) => (p.tenants = x), unlessDefault('tenants')),
  param('dep', deploymentSchema, (x, p) => (p.deployment = x), (s) => (s.deployment ? writeDeployment(s.deployment) : null)),
  param('ch', chapterSchema, (x, p) => (p.chapter = x), (s) => (s.chapter === null ? null : String(s.chapter))),
  // A beat of that chapter (the walkthrough says when a link names one past its last).
  param('beat', smallInt(3, 0, 999), (x, p) => (p.beat = x), (s) => (s.chapter === null || s.beat === null ? null : String(s.beat)), { needs: 'ch' }),
  param('pm', v.picklist(['1']), (_, p) => (p.presenter = true), (s) => (s.presenter ? '1' : null)),
  // `?screen` (empty or 1): the stage layout live; `?screen=render`: the video renderer drives it.
  param('screen', v.picklist(['', '1', 'render']), (x, p) => (p.screen = x === 'render' ? 'render' : 'live'), (s) => (s.screen === 'off' ? null : s.screen === 'render' ? 'render' : '1')),
  // `?room=NAME`: a workshop room to follow (its presenter key, if any, stays in the fragment, never sent).
  param('room', v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{1,32}$/)), (x, p) => (p.room = x), (s) => s.room),
  // `?bench`: a hook for the benchmarks; last, bare.
  { name: 'bench', flag: true, read: (_, p) => ((p.bench = true), true), write: (s) => (s.bench ? '' : null) },
];

/** Every parameter name this page reads. */
export const URL_PARAM_NAMES: readonly string[] = URL_PARAMS.map((p) => p.name);

export function parseUrl(search: string): ParsedUrl {
  const length = search.startsWith('?') ? search.length - 1 : search.length;
  if (length > LINK_MAX_CHARS) return { state: {}, ignored: [{ kind: 'too-long', length, max: LINK_MAX_CHARS }] };
  const params = new URLSearchParams(search);
  const state: Patch = {};
  const ignored: IgnoredParam[] = [];
  const version = params.get('v');
  if (version !== null && version !== String(URL_VERSION)) ignored.push({ kind: 'version', value: version.slice(0, 10), current: URL_VERSION });
  const read = new Set<string>();
  for (const p of URL_PARAMS) {
    const raw = params.get(p.name);
    if (raw === null) continue;
    if (p.needs !== undefined && !read.has(p.needs)) ignored.push({ kind: 'needs', name: p.name, value: raw.slice(0, 10), needs: p.needs });
    else if (p.read(raw, state)) read.add(p.name);
    else ignored.push({ kind: 'malformed', name: p.name, value: raw.slice(0, 40) });
  }
  const known = new Set(URL_PARAM_NAMES);
  for (const name of params.keys()) if (!known.has(name)) ignored.push({ kind: 'unknown', name: name.slice(0, 20) });
  return { state, ignored };
}

/** The query string for a state, never longer than LINK_MAX_CHARS (what did not fit is left out: serializeUrlChecked). */
export function serializeUrl(s: UrlState): string {
  return serializeUrlChecked(s).search;
}

/**
 * The query string for a state and the parameters kept out of it: while it is longer than
 * LINK_MAX_CHARS, the longest parameter's value is left out (its default then reads back), so a
 * link never carries state that cannot fit and never grows past what servers accept.
 */
export function serializeUrlChecked(s: UrlState): { search: string; left: IgnoredParam[] } {
  const entries: [string, string][] = [];
  const flags: string[] = [];
  for (const p of URL_PARAMS) {
    const value = p.write(s);
    if (value === null) continue;
    if (p.flag) flags.push(p.name);
    else entries.push([p.name, value]);
  }
  const join = (list: [string, string][]) => `?${[new URLSearchParams(list).toString(), ...flags].join('&')}`;
  let search = join(entries);
  const left: IgnoredParam[] = [];
  while (search.length - 1 > LINK_MAX_CHARS && entries.length > 1) {
    let longest = 1;
    for (let i = 2; i < entries.length; i++) if (entries[i]![1].length > entries[longest]![1].length) longest = i;
    const [name, value] = entries.splice(longest, 1)[0]!;
    left.push({ kind: 'not-written', name, length: value.length, max: LINK_MAX_CHARS });
    search = join(entries);
  }
  return { search, left };
}
