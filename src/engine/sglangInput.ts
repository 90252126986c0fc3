/**
 * Reading an operator's own figures from what SGLang already gives them: the launch arguments
 * (`--context-length`, `--page-size`, `--chunked-prefill-size`, `--disaggregation-mode`,
 * `--max-total-tokens`) and the start-up log — the scheduler's line
 *
 *   [2026-08-27 09:12:44 TP0] max_total_num_tokens=681280, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=48, context_len=1048576, available_gpu_mem=9.87 GB
 *
 * (python/sglang/srt/managers/scheduler.py logs it once its KV pool is allocated: `[%(asctime)s{prefix}] %(message)s`,
 * the prefix naming the ranks, ` TP0`, ` DP0 TP0`, …; newer versions date it `%m-%d %H:%M:%S`; older
 * ones leave out `chunked_prefill_size` and `context_len`) and the launcher's `server_args=ServerArgs(…)`
 * line, whose `disaggregation_mode` says which kind of server the log is from. Every problem names
 * the text, the line and the field; nothing here throws on what a person pasted.
 */
import { INCIDENT_DEPLOYMENT, type Deployment } from './deployment.ts';

export type Role = 'prefill' | 'decode' | 'colocated';

/** What is wrong, for a reader who words it in another language (the page's catalogue). */
export type ProblemKind = 'no-value' | 'not-a-number' | 'bad-mode' | 'no-role' | 'role-conflict' | 'no-scheduler-line' | 'nothing-given';

export interface InputProblem {
  /** The file or box the text came from. */
  source: string;
  /** 1-based. */
  line: number;
  field: string;
  kind: ProblemKind;
  /** The value as written, where one was. */
  value?: string;
  /** In English, as the command line prints it. */
  message: string;
}

/** Where a figure came from: the scheduler's log line, the launch arguments, typed, or assumed (the incident's). */
export type Origin = 'log' | 'args' | 'typed' | 'assumed';

/** What one server's text says. */
export interface ServerFigures {
  source: string;
  line: number;
  role: Role | null;
  contextTokens?: number;
  /** `max_total_num_tokens` (the log: the pool as allocated) or `--max-total-tokens` (the arguments: an upper bound). */
  kvTokens?: number;
  pageSize?: number;
  /** 0: no chunked prefill (SGLang's −1). */
  chunkTokens?: number;
  from: 'log' | 'args';
}

export interface Parsed {
  servers: ServerFigures[];
  problems: InputProblem[];
}

const ANSI = /\u001b\[[0-9;]*m/g;
const ROLES: Record<string, Role> = { prefill: 'prefill', decode: 'decode', null: 'colocated' };

function wholeNumber(raw: string, min: number): number | null {
  const t = raw.trim();
  if (!/^-?\d{1,9}$/.test(t)) return null;
  const n = Number(t);
  return n >= min ? n : null;
}

/** Chunked prefill as SGLang takes it: −1 (or 0) turns it off, else tokens per chunk. */
function chunkValue(raw: string): number | null {
  const n = wholeNumber(raw, -1);
  if (n === null) return null;
  return n <= 0 ? 0 : n;
}

interface Word {
  text: string;
  line: number;
}

/** Shell words with the line each starts on; backslash-newline continues a line, quotes group. */
function shellWords(text: string): Word[] {
  const words: Word[] = [];
  let line = 1;
  let cur = '';
  let curLine = 1;
  let quote: string | null = null;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '\n') line++;
    if (quote) {
      if (ch === quote) quote = null;
      else cur += ch;
      continue;
    }
    if (ch === '\\' && text[i + 1] === '\n') {
      i++;
      line++;
      continue;
    }
    if (ch === '#' && !inWord) {
      while (i + 1 < text.length && text[i + 1] !== '\n') i++;
      continue;
    }
    if (/\s/.test(ch) || ch === ';' || ch === '&' || ch === '|') {
      if (inWord) words.push({ text: cur, line: curLine });
      cur = '';
      inWord = false;
      continue;
    }
    if (!inWord) {
      inWord = true;
      curLine = line;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else cur += ch;
  }
  if (inWord) words.push({ text: cur, line: curLine });
  return words;
}

const ARG_FLAGS = ['--context-length', '--page-size', '--chunked-prefill-size', '--disaggregation-mode', '--max-total-tokens'] as const;

/**
 * Launch arguments: one server per `sglang.launch_server` (or `sglang serve`) command, or the whole
 * text as one server's arguments when it names no command. `--flag value` and `--flag=value` both.
 */
export function parseLaunchArgs(text: string, source: string): Parsed {
  const problems: InputProblem[] = [];
  const servers: ServerFigures[] = [];
  const words = shellWords(text.replace(ANSI, ''));
  let server: ServerFigures | null = null;
  const start = (line: number) => {
    server = { source, line, role: null, from: 'args' };
    servers.push(server);
  };
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (/(^|[./])launch_server(\.py)?$/.test(w.text) || (w.text === 'serve' && /(^|\/)sglang$/.test(words[i - 1]?.text ?? ''))) {
      start(w.line);
      continue;
    }
    const [flag, inline] = w.text.startsWith('--') && w.text.includes('=') ? [w.text.slice(0, w.text.indexOf('=')), w.text.slice(w.text.indexOf('=') + 1)] : [w.text, undefined];
    if (!(ARG_FLAGS as readonly string[]).includes(flag)) continue;
    let value = inline;
    if (value === undefined) {
      const next = words[i + 1];
      if (next && !next.text.startsWith('--')) {
        value = next.text;
        i++;
      }
    }
    if (!server) start(w.line);
    const s = server!;
    const bad = (message: string, kind: ProblemKind = 'not-a-number') => problems.push({ source, line: w.line, field: flag, kind, ...(value ? { value } : {}), message });
    if (value === undefined || value === '') {
      bad(`${flag} has no value`, 'no-value');
      continue;
    }
    switch (flag) {
      case '--context-length': {
        const n = wholeNumber(value, 1);
        if (n === null) bad(`${flag} must be a whole number of tokens, got ${JSON.stringify(value)}`);
        else s.contextTokens = n;
        break;
      }
      case '--page-size': {
        const n = wholeNumber(value, 1);
        if (n === null || n > 4096) bad(`${flag} must be a whole number of tokens from 1 to 4096, got ${JSON.stringify(value)}`);
        else s.pageSize = n;
        break;
      }
      case '--chunked-prefill-size': {
        const n = chunkValue(value);
        if (n === null) bad(`${flag} must be a whole number of tokens (−1 turns it off), got ${JSON.stringify(value)}`);
        else s.chunkTokens = n;
        break;
      }
      case '--max-total-tokens': {
        const n = wholeNumber(value, 1);
        if (n === null) bad(`${flag} must be a whole number of tokens, got ${JSON.stringify(value)}`);
        else s.kvTokens = n;
        break;
      }
      case '--disaggregation-mode': {
        const role = ROLES[value];
        if (!role) bad(`${flag} must be prefill, decode or null, got ${JSON.stringify(value)}`, 'bad-mode');
        else s.role = role;
        break;
      }
    }
  }
  if (servers.length === 0 && problems.length === 0) {
    problems.push({ source, line: 1, field: '(arguments)', kind: 'nothing-given', message: `none of ${ARG_FLAGS.join(', ')} is given` });
  }
  return { servers, problems };
}

/** `key=value` pairs of a scheduler line or a ServerArgs repr, values as written. */
function pairs(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/\b([a-z_][a-z0-9_]*)=('[^']*'|"[^"]*"|[^,()]*)/g)) if (!out.has(m[1]!)) out.set(m[1]!, m[2]!.trim());
  return out;
}

/**
 * A server's start-up log (a whole file, or the lines pasted). Each scheduler line is one KV pool;
 * its role is the `disaggregation_mode` of the `server_args=ServerArgs(…)` line before it, else the
 * role the caller knows (the box it was pasted in, `--log prefill:FILE`).
 */
export function parseStartupLog(text: string, source: string, role: Role | null = null): Parsed {
  const problems: InputProblem[] = [];
  const servers: ServerFigures[] = [];
  let args: Omit<ServerFigures, 'line' | 'source' | 'from' | 'kvTokens'> & { line: number } | null = null;
  const lines = text.replace(ANSI, '').split(/\r?\n/);
  lines.forEach((raw, i) => {
    const line = i + 1;
    const bad = (field: string, message: string, kind: ProblemKind = 'not-a-number', value?: string) => problems.push({ source, line, field, kind, ...(value !== undefined ? { value } : {}), message });
    const at = raw.indexOf('server_args=ServerArgs(');
    if (at >= 0) {
      const p = pairs(raw.slice(at + 'server_args=ServerArgs('.length));
      const figures: NonNullable<typeof args> = { line, role };
      const num = (key: string, min: number, set: (n: number) => void) => {
        const v = p.get(key);
        if (v === undefined || v === 'None') return;
        const n = wholeNumber(v, min);
        if (n === null) bad(key, `${key} must be a whole number or None, got ${v}`, 'not-a-number', v);
        else set(n);
      };
      num('context_length', 1, (n) => (figures.contextTokens = n));
      num('page_size', 1, (n) => (figures.pageSize = n));
      const chunk = p.get('chunked_prefill_size');
      if (chunk !== undefined && chunk !== 'None') {
        const n = chunkValue(chunk);
        if (n === null) bad('chunked_prefill_size', `chunked_prefill_size must be a whole number or None, got ${chunk}`, 'not-a-number', chunk);
        else figures.chunkTokens = n;
      }
      const mode = p.get('disaggregation_mode')?.replace(/^['"]|['"]$/g, '');
      if (mode !== undefined) {
        const r = ROLES[mode];
        if (!r) bad('disaggregation_mode', `disaggregation_mode must be 'prefill', 'decode' or 'null', got ${mode}`, 'bad-mode', mode);
        else if (role !== null && r !== role) bad('disaggregation_mode', `this log says disaggregation_mode=${mode}, but it was given as the ${role} server's`, 'role-conflict', mode);
        else figures.role = r;
      }
      args = figures;
      return;
    }
    const k = raw.indexOf('max_total_num_tokens=');
    if (k < 0) return;
    const p = pairs(raw.slice(k));
    const kv = wholeNumber(p.get('max_total_num_tokens') ?? '', 1);
    if (kv === null) {
      bad('max_total_num_tokens', `max_total_num_tokens must be a whole number of tokens, got ${JSON.stringify(p.get('max_total_num_tokens') ?? '')}`, 'not-a-number', p.get('max_total_num_tokens') ?? '');
      return;
    }
    const server: ServerFigures = { source, line, role: args?.role ?? role, kvTokens: kv, from: 'log' };
    const ctx = p.get('context_len');
    if (ctx !== undefined) {
      const n = wholeNumber(ctx, 1);
      if (n === null) bad('context_len', `context_len must be a whole number of tokens, got ${JSON.stringify(ctx)}`, 'not-a-number', ctx);
      else server.contextTokens = n;
    } else if (args?.contextTokens !== undefined) server.contextTokens = args.contextTokens;
    const chunk = p.get('chunked_prefill_size');
    if (chunk !== undefined) {
      const n = chunk === 'None' ? 0 : chunkValue(chunk);
      if (n === null) bad('chunked_prefill_size', `chunked_prefill_size must be a whole number of tokens, got ${JSON.stringify(chunk)}`, 'not-a-number', chunk);
      else server.chunkTokens = n;
    } else if (args?.chunkTokens !== undefined) server.chunkTokens = args.chunkTokens;
    if (args?.pageSize !== undefined) server.pageSize = args.pageSize;
    if (server.role === null) bad('disaggregation_mode', 'cannot tell whether this server is prefill or decode: no server_args line with disaggregation_mode before it, and none was given', 'no-role');
    servers.push(server);
  });
  if (servers.length === 0 && problems.length === 0) {
    problems.push({ source, line: lines.length, field: 'max_total_num_tokens', kind: 'no-scheduler-line', message: 'no scheduler line with max_total_num_tokens= was found' });
  }
  return { servers, problems };
}

/** Figures the operator typed (each overrides what the texts say). */
export interface TypedFigures {
  contextTokens?: number;
  prefillCapacities?: number[];
  decodeCapacities?: number[];
  pageSize?: number;
  chunkTokens?: number;
  disaggregated?: boolean;
}

export type FigureField = keyof TypedFigures;

export interface Assembled {
  /** The deployment's numbers (behaviours and rule as the caller sets them: the incident's here). */
  deployment: Deployment;
  origins: Record<FigureField, Origin>;
  /** What a reader should know: an upper bound taken for a capacity, figures that disagree. */
  notes: string[];
}

/**
 * The deployment the texts and the typed figures describe. A figure given nowhere is the incident's,
 * and marked assumed. The scheduler's log line beats the arguments (it is the pool as allocated;
 * `--max-total-tokens` is only an upper bound); what is typed beats both.
 */
export function assembleDeployment(servers: readonly ServerFigures[], typed: TypedFigures = {}): Assembled {
  const notes: string[] = [];
  const origins = {} as Record<FigureField, Origin>;
  const fmt = (n: number) => n.toLocaleString('en-US');
  const where = (s: ServerFigures) => `${s.source} line ${s.line}`;
  const pick = <T>(field: FigureField, typedValue: T | undefined, fromTexts: { value: T; origin: 'log' | 'args' } | undefined, assumed: T): T => {
    if (typedValue !== undefined) return (origins[field] = 'typed'), typedValue;
    if (fromTexts) return (origins[field] = fromTexts.origin), fromTexts.value;
    origins[field] = 'assumed';
    return assumed;
  };
  const first = <K extends keyof ServerFigures>(key: K, prefer: (s: ServerFigures) => boolean = () => true) => {
    const ordered = [...servers.filter((s) => s.from === 'log'), ...servers.filter((s) => s.from === 'args')];
    const s = ordered.find((x) => x[key] !== undefined && prefer(x)) ?? ordered.find((x) => x[key] !== undefined);
    return s ? { value: s[key] as NonNullable<ServerFigures[K]>, origin: s.from, server: s } : undefined;
  };
  const roles = new Set(servers.map((s) => s.role).filter((r): r is Role => r !== null));
  const disaggregated = pick('disaggregated', typed.disaggregated, roles.size > 0 ? { value: roles.has('prefill') || roles.has('decode'), origin: servers.some((s) => s.from === 'log' && s.role) ? 'log' : 'args' } : undefined, INCIDENT_DEPLOYMENT.disaggregated);
  // The tokenizer that refuses over-long prompts is the prefill (or only) server's.
  const ctx = first('contextTokens', (s) => s.role !== 'decode');
  const contextTokens = pick('contextTokens', typed.contextTokens, ctx, INCIDENT_DEPLOYMENT.contextTokens);
  const contexts = new Set(servers.map((s) => s.contextTokens).filter((x) => x !== undefined));
  if (contexts.size > 1 && typed.contextTokens === undefined) notes.push(`the servers give different context lengths (${[...contexts].map((x) => fmt(x!)).join(', ')}); the prefill server's ${fmt(contextTokens)} is used`);
  const page = first('pageSize');
  const pageSize = pick('pageSize', typed.pageSize, page, INCIDENT_DEPLOYMENT.pageSize);
  const chunk = first('chunkTokens', (s) => s.role !== 'decode');
  const chunkTokens = pick('chunkTokens', typed.chunkTokens, chunk, INCIDENT_DEPLOYMENT.chunkTokens);
  const capacities = (role: Role[], field: 'prefillCapacities' | 'decodeCapacities', assumed: number[], typedValue: number[] | undefined) => {
    const logs = servers.filter((s) => s.from === 'log' && s.role !== null && role.includes(s.role) && s.kvTokens !== undefined);
    const args = servers.filter((s) => s.from === 'args' && s.role !== null && role.includes(s.role) && s.kvTokens !== undefined);
    if (logs.length === 0 && args.length > 0 && typedValue === undefined) {
      notes.push(`${field}: taken from --max-total-tokens (${args.map(where).join(', ')}), an upper bound: the pool SGLang allocates can be smaller, and its scheduler's max_total_num_tokens line gives the real figure`);
    }
    const fromTexts = logs.length > 0 ? { value: logs.map((s) => s.kvTokens!), origin: 'log' as const } : args.length > 0 ? { value: args.map((s) => s.kvTokens!), origin: 'args' as const } : undefined;
    return pick(field, typedValue, fromTexts, assumed);
  };
  const prefillCapacities = capacities(disaggregated ? ['prefill'] : ['colocated', 'prefill'], 'prefillCapacities', INCIDENT_DEPLOYMENT.prefillCapacities, typed.prefillCapacities);
  const decodeCapacities = disaggregated ? capacities(['decode'], 'decodeCapacities', INCIDENT_DEPLOYMENT.decodeCapacities, typed.decodeCapacities) : ((origins.decodeCapacities = origins.prefillCapacities), prefillCapacities);
  return {
    deployment: { ...INCIDENT_DEPLOYMENT, contextTokens, prefillCapacities, decodeCapacities, pageSize, chunkTokens, disaggregated },
    origins,
    notes,
  };
}

/** One problem as the CLI and the page print it: `source line N, field: message`. */
export function describeProblem(p: InputProblem): string {
  return `${p.source} line ${p.line}, ${p.field}: ${p.message}`;
}
