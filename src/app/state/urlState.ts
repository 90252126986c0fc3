/**
 * The whole situation in one versioned URL query: `?v=1&s=demo&t=…&req=…&page=decode-0:42&view=…`,
 * plus the walkthrough chapter (`ch`, 1-based) and presenter mode (`pm=1`).
 * Parsing never throws: each bad or unknown parameter is dropped, named in a notice, and its default
 * kept. Version 0 (no `v`) is read as version 1.
 */
import * as v from 'valibot';
import { DEFAULT_STATE, type AppState, type FixChoice, type Language, type ViewName } from './store.ts';
import { TENANT_NAMES } from '../../engine/vocab.ts';
import type { ScenarioName } from '../protocol.ts';
import { CHAPTER_COUNT } from '../walkthrough/chapterCount.ts';

export const URL_VERSION = 1;

const MITIGATION_CODES = { clear: 'clearPagesOnFree', integrity: 'perReadIntegrityCheck', length: 'transferredLengthCheck', deploy: 'deploymentCapacityCheck' } as const;
type MitigationCode = keyof typeof MITIGATION_CODES;
const FIX_CODES: Record<string, FixChoice> = { path: 'fixed-path', capacity: 'capacity', clear: 'clearPagesOnFree', integrity: 'perReadIntegrityCheck', length: 'transferredLengthCheck', deploy: 'deploymentCapacityCheck' };

const scenarioSchema = v.picklist(['incident', 'demo', 'matrix'] satisfies ScenarioName[]);
const viewSchema = v.picklist(['cluster', 'transfer', 'response'] satisfies ViewName[]);
const langSchema = v.picklist(['en', 'fr'] satisfies Language[]);
const timeSchema = v.pipe(v.string(), v.regex(/^\d{1,13}(\.\d{1,3})?$/), v.transform(Number), v.number(), v.maxValue(1e13));
const indexSchema = v.pipe(v.string(), v.regex(/^\d{1,9}$/), v.transform(Number));
const pageSchema = v.pipe(v.string(), v.regex(/^(prefill|decode)-\d{1,2}:\d{1,8}$/));
const flagListSchema = <T extends string>(allowed: readonly T[]) =>
  v.pipe(v.string(), v.transform((s) => (s === '' ? [] : s.split(','))), v.array(v.picklist(allowed)));
const chapterSchema = v.pipe(v.string(), v.regex(/^\d{1,3}$/), v.transform(Number), v.minValue(1), v.maxValue(CHAPTER_COUNT));
const presenterSchema = v.picklist(['1']);
const speedSchema = v.pipe(v.string(), v.regex(/^\d{1,6}$/), v.transform(Number), v.minValue(1), v.maxValue(100_000));

export interface ParsedUrl {
  state: Partial<AppState>;
  ignored: string[];
}

export function parseUrlState(search: string): ParsedUrl {
  const params = new URLSearchParams(search);
  const state: Partial<AppState> = {};
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
  take('s', scenarioSchema, (s) => (state.scenario = s));
  take('t', timeSchema, (t) => (state.time = t));
  take('req', indexSchema, (r) => (state.selectedRequest = r));
  take('page', pageSchema, (p) => {
    const [node, page] = p.split(':') as [string, string];
    state.selectedPage = { node, page: Number(page) };
  });
  take('view', viewSchema, (view) => (state.view = view));
  take('lang', langSchema, (lang) => (state.lang = lang));
  take('speed', speedSchema, (speed) => (state.speed = speed));
  take('d', flagListSchema(['gap', 'buggy'] as const), (flags) => {
    state.capacityGap = flags.includes('gap');
    state.rejectPath = flags.includes('buggy') ? 'buggy' : 'fixed';
  });
  take('m', flagListSchema(Object.keys(MITIGATION_CODES) as MitigationCode[]), (codes) => {
    state.mitigations = { ...DEFAULT_STATE.mitigations };
    for (const c of codes) state.mitigations[MITIGATION_CODES[c]] = true;
  });
  take('cmp', v.picklist(Object.keys(FIX_CODES)), (c) => (state.compare = FIX_CODES[c] ?? null));
  take('backend', v.picklist(['webgpu', 'js']), (b) => (state.backend = b));
  take('gpu-fault', v.picklist(['no-adapter', 'shader', 'lost']), (f) => (state.gpuFault = f));
  take('vol', v.pipe(v.string(), v.regex(/^\d{1,6}$/), v.transform(Number), v.maxValue(20_000)), (n) => (state.requestsPerDay = n));
  take('tenants', v.pipe(v.string(), v.regex(/^\d{1,2}$/), v.transform(Number), v.minValue(1), v.maxValue(TENANT_NAMES.length)), (n) => (state.tenants = n));
  take('ch', chapterSchema, (ch) => (state.chapter = ch));
  take('pm', presenterSchema, () => (state.presenter = true));
  // `bench` only switches on a measuring hook; it carries no state.
  const known = new Set(['v', 's', 't', 'req', 'page', 'view', 'lang', 'speed', 'd', 'm', 'cmp', 'backend', 'gpu-fault', 'bench', 'vol', 'tenants', 'ch', 'pm']);
  for (const key of params.keys()) if (!known.has(key)) ignored.push(`${key.slice(0, 20)} (unknown parameter)`);
  return { state, ignored };
}

export function serializeUrlState(s: AppState): string {
  const params = new URLSearchParams();
  params.set('v', String(URL_VERSION));
  params.set('s', s.scenario);
  params.set('t', String(Math.round(s.time)));
  if (s.selectedRequest !== null) params.set('req', String(s.selectedRequest));
  if (s.selectedPage) params.set('page', `${s.selectedPage.node}:${s.selectedPage.page}`);
  params.set('view', s.view);
  params.set('d', [s.capacityGap ? 'gap' : '', s.rejectPath === 'buggy' ? 'buggy' : ''].filter(Boolean).join(','));
  params.set('m', (Object.entries(MITIGATION_CODES) as [MitigationCode, keyof AppState['mitigations']][]).filter(([, name]) => s.mitigations[name]).map(([code]) => code).join(','));
  if (s.compare) params.set('cmp', Object.entries(FIX_CODES).find(([, f]) => f === s.compare)![0]);
  if (s.lang !== 'en') params.set('lang', s.lang);
  if (s.speed !== DEFAULT_STATE.speed) params.set('speed', String(s.speed));
  if (s.backend !== DEFAULT_STATE.backend) params.set('backend', s.backend);
  if (s.gpuFault) params.set('gpu-fault', s.gpuFault);
  if (s.requestsPerDay !== DEFAULT_STATE.requestsPerDay) params.set('vol', String(s.requestsPerDay));
  if (s.tenants !== DEFAULT_STATE.tenants) params.set('tenants', String(s.tenants));
  if (s.chapter !== null) params.set('ch', String(s.chapter));
  if (s.presenter) params.set('pm', '1');
  return `?${params.toString()}`;
}
