/**
 * The one URL codec: the whole situation and the person's settings in a versioned query string,
 * `?v=1&s=demo&t=…&req=…&page=decode-0:42&view=…&d=gap,buggy&m=clear&cmp=path&lang=fr&…`.
 * Switch codes come from the registry of switches (engine/switches.ts). Parsing never throws: each
 * bad or unknown parameter is dropped, named in the result, and its default kept. Version 0 (no `v`)
 * is read as version 1.
 */
import * as v from 'valibot';
import { MECHANISMS, MITIGATIONS, DEFECTS, SWITCHES, type Switch } from '../../engine/switches.ts';
import { SCENARIO_NAMES } from '../../engine/runs/index.ts';
import { TENANT_NAMES } from '../../engine/vocab.ts';
import { GPU_FAULTS } from '../../gpu/reports.ts';
import { HANDOFF_SPEEDS } from './handoffSpeeds.ts';
import { DEFAULT_STATE, type Language, type UrlState, type ViewName } from './store.ts';

export const URL_VERSION = 1;

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

export interface ParsedUrl {
  state: Partial<UrlState>;
  ignored: string[];
}

export function parseUrl(search: string): ParsedUrl {
  const params = new URLSearchParams(search);
  const state: Partial<UrlState> = {};
  const ignored: string[] = [];
  const take = <T>(key: string, schema: v.GenericSchema<string, T>, apply: (value: T) => void) => {
    const raw = params.get(key);
    if (raw === null) return;
    const r = v.safeParse(schema, raw);
    if (r.success) apply(r.output);
    else ignored.push(`${key}=${raw.slice(0, 40)}`);
  };
  const version = params.get('v');
  if (version !== null && version !== String(URL_VERSION)) {
    ignored.push(`v=${version.slice(0, 10)} (this page reads version ${URL_VERSION}; the rest was read as version ${URL_VERSION})`);
  }
  take('s', v.picklist(SCENARIO_NAMES), (s) => (state.scenario = s));
  take('t', timeSchema, (t) => (state.time = t));
  take('req', indexSchema, (r) => (state.selectedRequest = r));
  take('h', handoffSchema, (h) => (state.handoff = h));
  take('hs', v.picklist(HANDOFF_SPEEDS.map(String)), (x) => (state.handoffSpeed = Number(x)));
  take('page', pageSchema, (p) => {
    const [node, page] = p.split(':') as [string, string];
    state.selectedPage = { node, page: Number(page) };
  });
  take('view', viewSchema, (view) => (state.view = view));
  take('lang', langSchema, (lang) => (state.lang = lang));
  take('speed', speedSchema, (speed) => (state.speed = speed));
  // `d` lists the defects on, `m` the mitigations on; a list given replaces the defaults of its kind.
  const switches = { ...DEFAULT_STATE.switches };
  let switched = false;
  take('d', codeListSchema([...DEFECT_CODES.keys()]), (codes) => {
    for (const [code, key] of DEFECT_CODES) switches[key] = codes.includes(code);
    switched = true;
  });
  take('m', codeListSchema([...MITIGATION_CODES.keys()]), (codes) => {
    for (const [code, key] of MITIGATION_CODES) switches[key] = codes.includes(code);
    switched = true;
  });
  // `u` lists the upstream mechanisms on (chunked prefill, the tokenizer's upstream rule).
  take('u', codeListSchema([...MECHANISM_CODES.keys()]), (codes) => {
    for (const [code, key] of MECHANISM_CODES) switches[key] = codes.includes(code);
    switched = true;
  });
  if (switched) state.switches = switches;
  take('cmp', v.picklist([...FIX_CODES.keys()]), (c) => (state.compare = FIX_CODES.get(c) ?? null));
  take('backend', v.picklist(['webgpu', 'js']), (b) => (state.backend = b));
  take('gpu-fault', v.picklist(GPU_FAULTS), (f) => (state.gpuFault = f));
  take('vol', smallInt(6, 0, 20_000), (n) => (state.requestsPerDay = n));
  take('tenants', smallInt(2, 1, TENANT_NAMES.length), (n) => (state.tenants = n));
  take('ch', chapterSchema, (ch) => (state.chapter = ch));
  // A beat of the chapter (walkthrough/timeline.ts); the walkthrough notices one past its beats.
  take('beat', smallInt(3, 0, 999), (b) => (state.beat = b));
  if (state.beat !== undefined && state.chapter === undefined) {
    delete state.beat;
    ignored.push(`beat=${params.get('beat')!.slice(0, 10)}`);
  }
  take('pm', v.picklist(['1']), () => (state.presenter = true));
  if (params.has('bench')) state.bench = true;
  // `?screen` (empty or 1): the stage layout live; `?screen=render`: the video renderer drives it.
  take('screen', v.picklist(['', '1', 'render']), (m) => (state.screen = m === 'render' ? 'render' : 'live'));
  const known = new Set(['v', 's', 't', 'h', 'hs', 'req', 'page', 'view', 'lang', 'speed', 'd', 'm', 'u', 'cmp', 'backend', 'gpu-fault', 'bench', 'vol', 'tenants', 'ch', 'beat', 'pm', 'screen']);
  for (const key of params.keys()) if (!known.has(key)) ignored.push(`${key.slice(0, 20)} (unknown parameter)`);
  return { state, ignored };
}

export function serializeUrl(s: UrlState): string {
  const params = new URLSearchParams();
  params.set('v', String(URL_VERSION));
  params.set('s', s.scenario);
  // To the microsecond: the stage's steps that share one engine instant sit microseconds apart.
  params.set('t', String(Math.round(s.time * 1000) / 1000));
  if (s.selectedRequest !== null) params.set('req', String(s.selectedRequest));
  if (s.handoff !== null) params.set('h', String(Math.round(s.handoff * 100) / 100));
  if (s.handoffSpeed !== DEFAULT_STATE.handoffSpeed) params.set('hs', String(s.handoffSpeed));
  if (s.selectedPage) params.set('page', `${s.selectedPage.node}:${s.selectedPage.page}`);
  params.set('view', s.view);
  params.set('d', [...DEFECT_CODES].filter(([, key]) => s.switches[key]).map(([code]) => code).join(','));
  params.set('m', [...MITIGATION_CODES].filter(([, key]) => s.switches[key]).map(([code]) => code).join(','));
  // Only when one is on, so links written before the mechanisms existed read the same.
  const mechanisms = [...MECHANISM_CODES].filter(([, key]) => s.switches[key]).map(([code]) => code);
  if (mechanisms.length > 0) params.set('u', mechanisms.join(','));
  if (s.compare) params.set('cmp', ALL.find((x) => x.key === s.compare)!.fixCode);
  if (s.lang !== 'en') params.set('lang', s.lang);
  if (s.speed !== DEFAULT_STATE.speed) params.set('speed', String(s.speed));
  if (s.backend !== DEFAULT_STATE.backend) params.set('backend', s.backend);
  if (s.gpuFault) params.set('gpu-fault', s.gpuFault);
  if (s.requestsPerDay !== DEFAULT_STATE.requestsPerDay) params.set('vol', String(s.requestsPerDay));
  if (s.tenants !== DEFAULT_STATE.tenants) params.set('tenants', String(s.tenants));
  if (s.chapter !== null) params.set('ch', String(s.chapter));
  if (s.chapter !== null && s.beat !== null) params.set('beat', String(s.beat));
  if (s.presenter) params.set('pm', '1');
  if (s.screen !== 'off') params.set('screen', s.screen === 'render' ? 'render' : '1');
  const query = `?${params.toString()}`;
  return s.bench ? `${query}&bench` : query;
}
