/**
 * Reading an operator's own figures from what SGLang already gives them, in every form an operator
 * has them: the launch command (a shell line, `sglang serve`, a Kubernetes `args:` list, a JSON
 * array), the start-up log (streamed line by line: a log of any size, several restarts, any number of
 * ranks) and the `/get_server_info` JSON. `parseServerText` picks the form by content.
 *
 * The start-up log's lines that matter (everything else is skipped by a plain `indexOf` of three
 * markers before any regular expression):
 *
 *   [2026-08-27 09:12:30] server_args=ServerArgs(model_path='…', context_length=1048576, …, page_size=64, disaggregation_mode='prefill', …)
 *   [2026-08-27 09:12:30] server_args={'model_path': '…', 'context_length': 1048576, …}        (newer: a dict)
 *   [2026-08-27 09:12:44 DP0 TP0] max_total_num_tokens=681280, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=48, context_len=1048576, available_gpu_mem=9.87 GB
 *
 * The launcher logs `logger.info(f"{server_args=}")` (python/sglang/srt/entrypoints/engine.py,
 * `_launch_subprocesses`); each scheduler process logs the second kind once its KV pool is allocated
 * (python/sglang/srt/managers/scheduler.py, "Print debug info"; older releases log it from every TP
 * rank and leave out `chunked_prefill_size` and the GB figure, the oldest `context_len` too; newer
 * ones only from TP rank 0). The bracket is configure_logger's `[%(asctime)s{prefix}] `
 * (python/sglang/srt/utils/common.py), the prefix built in `run_scheduler_process`: ` DP{dp_rank}`
 * when there is a DP rank, then ` PP{pp_rank}`, ` ATTN_CP{…}`, ` MOE_DP{…}`, ` TP{tp_rank}`,
 * ` EP{…}`, each only when that size is over 1, in that order.
 *
 * Which ranks are one KV pool: TP, PP, EP, attention-CP and MoE-DP ranks of one scheduler group
 * split one model over their GPUs and hold the same requests, so they are one pool (each logs the
 * same `max_total_num_tokens`; if they disagree the smallest is taken, with a note). A DP rank is a
 * scheduler of its own: without DP attention each DP rank is a whole replica; with DP attention
 * (`--enable-dp-attention`) the data-parallel controller still hands each request to one DP rank,
 * whose scheduler admits it into its own `token_to_kv_pool` (get_internal_state reports one
 * `token_capacity` per DP rank). So each DP rank is read as a server of its own (`group` "DP0",
 * "DP1", …), and ranks without a DP part are one server (`group` "").
 *
 * Every problem names the text, the line and the field; nothing here throws on what a person pasted.
 */
import { INCIDENT_DEPLOYMENT, type Deployment } from './deployment.ts';

export type Role = 'prefill' | 'decode' | 'colocated';

/** What is wrong, for a reader who words it in another language (the page's catalogue). */
export type ProblemKind =
  | 'no-value'
  | 'not-a-number'
  | 'bad-mode'
  | 'no-role'
  | 'role-conflict'
  | 'no-scheduler-line'
  | 'nothing-given'
  /** NUL bytes near the start: not a text file. */
  | 'not-text'
  /** The file could not be opened or read (the CLI's file reader). */
  | 'cannot-read'
  /** Text that starts as JSON but is not a server-info object. */
  | 'bad-json';

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

/** Where a figure came from: the scheduler's log line, the launch arguments, `/get_server_info`, typed, or assumed (the incident's). */
export type Origin = 'log' | 'args' | 'server-info' | 'typed' | 'assumed';

/** What one server's text says. */
export interface ServerFigures {
  source: string;
  /** The line the server's figures start on (the scheduler line of its first rank; the command; the JSON's field). */
  line: number;
  role: Role | null;
  contextTokens?: number;
  /** `max_total_num_tokens` (the log, the server info: the pool as allocated) or `--max-total-tokens` (the arguments: an upper bound). */
  kvTokens?: number;
  pageSize?: number;
  /** 0: no chunked prefill (SGLang's −1). */
  chunkTokens?: number;
  /** The SGLang version (`__version__`), where the text gives it. */
  version?: string;
  /** `max_req_input_len`, where the server reports it (`/get_server_info`). */
  maxReqInputLen?: number;
  /** `num_reserved_decode_tokens` / `--num-reserved-decode-tokens`. */
  reservedDecodeTokens?: number;
  /** `allow_auto_truncate` / `--allow-auto-truncate`. */
  allowAutoTruncate?: boolean;
  /** The process group: its DP rank's prefix ("DP0", …), "" for a server without DP ranks. */
  group?: string;
  /** What a reader should know about these figures (ranks that disagree, …). */
  notes?: string[];
  from: 'log' | 'args' | 'server-info';
}

export interface Parsed {
  servers: ServerFigures[];
  problems: InputProblem[];
  /** Servers of earlier start-ups in the same log (restarts): the latest start-up counts. */
  superseded: ServerFigures[];
}

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;
const ROLES: Record<string, Role> = { prefill: 'prefill', decode: 'decode', null: 'colocated' };
const fmt = (n: number) => n.toLocaleString('en-US');

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

const unquote = (v: string) => v.replace(/^(['"])(.*)\1$/, '$2');

/** NUL bytes in the first 8 KiB: what `grep` and `git` take for binary. */
export function looksBinary(text: string): boolean {
  return text.slice(0, 8192).includes('\u0000');
}

const notText = (source: string): InputProblem => ({ source, line: 1, field: '(file)', kind: 'not-text', message: 'this is not a text file (it holds NUL bytes): give the server’s log, its launch command or its /get_server_info JSON' });
const empty = (source: string): InputProblem => ({ source, line: 1, field: '(file)', kind: 'nothing-given', message: 'the text is empty' });

// ———————————————————————————————————————————— launch commands

interface Word {
  text: string;
  line: number;
}

/** Shell words with the line each starts on; backslash-newline continues a line, quotes group. */
function shellWords(text: string, firstLine = 1): Word[] {
  const words: Word[] = [];
  let line = firstLine;
  let cur = '';
  let curLine = firstLine;
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
    if (ch === '\\' && (text[i + 1] === '\n' || (text[i + 1] === '\r' && text[i + 2] === '\n'))) {
      i += text[i + 1] === '\r' ? 2 : 1;
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

/**
 * The items of a Kubernetes `command:` / `args:` list (block `- "--flag"` items or an inline
 * `["--flag", "value"]`) or of a JSON array, each item split as a shell would (an item may hold a
 * whole command, as with `command: ["/bin/sh", "-c"]`), with the line it is on.
 */
function listWords(text: string): Word[] {
  const words: Word[] = [];
  text.split('\n').forEach((raw, i) => {
    let s = raw.replace(/\r$/, '').replace(/(^|\s)#.*$/, '');
    s = s.replace(/^\s*-\s+/, ' ').replace(/^\s*[A-Za-z_][\w.-]*\s*:(?=\s|$)/, ' ');
    for (const m of s.matchAll(/"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^\s,[\]{}"']+)/g)) {
      const item = m[1] !== undefined ? m[1].replace(/\\(["\\/])/g, '$1') : m[2] !== undefined ? m[2].replace(/''/g, "'") : m[3]!;
      for (const w of shellWords(item, i + 1)) words.push({ text: w.text, line: i + 1 });
    }
  });
  return words;
}

/** A YAML args list or a JSON array rather than a shell line. */
function isList(text: string): boolean {
  return /^\s*\[/.test(text) || /^\s*(args|command)\s*:/m.test(text) || /^\s*-\s+["']?--[a-z]/m.test(text);
}

const ARG_FLAGS = ['--context-length', '--page-size', '--chunked-prefill-size', '--disaggregation-mode', '--max-total-tokens', '--num-reserved-decode-tokens', '--allow-auto-truncate'] as const;
/** Flags that take no value (argparse's store_true). */
const BOOLEAN_FLAGS = new Set<string>(['--allow-auto-truncate']);

/**
 * Launch arguments: one server per `sglang.launch_server` (or `sglang serve`) command, or the whole
 * text as one server's arguments when it names no command. `--flag value` and `--flag=value` both;
 * a shell line, a Kubernetes `args:` list or a JSON array. `role`: the kind of server the text was
 * given as (a box, `--args decode:FILE`); a command's own `--disaggregation-mode` must agree.
 */
export function parseLaunchArgs(text: string, source: string, role: Role | null = null): Parsed {
  const problems: InputProblem[] = [];
  const servers: ServerFigures[] = [];
  if (looksBinary(text)) return { servers, problems: [notText(source)], superseded: [] };
  const clean = text.replace(ANSI, '');
  const words = isList(clean) ? listWords(clean) : shellWords(clean.replace(/\r\n/g, '\n'));
  let server: ServerFigures | null = null;
  const start = (line: number) => {
    server = { source, line, role, from: 'args' };
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
    if (!server) start(w.line);
    const s = server!;
    let value = inline;
    const bad = (message: string, kind: ProblemKind = 'not-a-number') => problems.push({ source, line: w.line, field: flag, kind, ...(value ? { value } : {}), message });
    if (BOOLEAN_FLAGS.has(flag)) {
      if (value !== undefined && !/^(true|false|1|0)$/i.test(value)) bad(`${flag} takes no value, got ${JSON.stringify(value)}`, 'bad-mode');
      else s.allowAutoTruncate = value === undefined || /^(true|1)$/i.test(value);
      continue;
    }
    if (value === undefined) {
      const next = words[i + 1];
      if (next && !next.text.startsWith('--')) {
        value = next.text;
        i++;
      }
    }
    if (value === undefined || value === '') {
      bad(`${flag} has no value`, 'no-value');
      continue;
    }
    const tokens = (min: number, set: (n: number) => void) => {
      const n = wholeNumber(value!, min);
      if (n === null) bad(`${flag} must be a whole number of tokens, got ${JSON.stringify(value)}`);
      else set(n);
    };
    switch (flag) {
      case '--context-length':
        tokens(1, (n) => (s.contextTokens = n));
        break;
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
      case '--max-total-tokens':
        tokens(1, (n) => (s.kvTokens = n));
        break;
      case '--num-reserved-decode-tokens':
        tokens(0, (n) => (s.reservedDecodeTokens = n));
        break;
      case '--disaggregation-mode': {
        const r = ROLES[value];
        if (!r) bad(`${flag} must be prefill, decode or null, got ${JSON.stringify(value)}`, 'bad-mode');
        else if (role !== null && r !== role) bad(`this command says ${flag} ${value}, but it was given as the ${role} server's`, 'role-conflict');
        else s.role = r;
        break;
      }
    }
  }
  if (servers.length === 0 && problems.length === 0) {
    problems.push(text.trim() === '' ? empty(source) : { source, line: 1, field: '(arguments)', kind: 'nothing-given', message: `none of ${ARG_FLAGS.join(', ')} is given` });
  }
  return { servers, problems, superseded: [] };
}

// ———————————————————————————————————————————— start-up logs

/** `key=value` pairs of a scheduler line or a ServerArgs repr, values as written. */
function pairs(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/\b([a-z_][a-z0-9_]*)=('[^']*'|"[^"]*"|[^,()]*)/g)) if (!out.has(m[1]!)) out.set(m[1]!, m[2]!.trim());
  return out;
}

/** `'key': value` pairs of a dict repr (the newer `server_args={…}`), values as written. */
function dictPairs(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of text.matchAll(/'([a-z_][a-z0-9_]*)':\s*('[^']*'|"[^"]*"|[^,{}[\]]*)/g)) if (!out.has(m[1]!)) out.set(m[1]!, m[2]!.trim());
  return out;
}

/** The markers of the lines a start-up log is read for; a line without one is only counted. */
export const STARTUP_MARKERS = ['server_args=', 'max_total_num_tokens=', 'SGLang version'] as const;

/** What a start-up's `server_args` says, for the scheduler lines after it. */
interface ArgsFigures {
  line: number;
  role: Role | null;
  contextTokens?: number;
  pageSize?: number;
  chunkTokens?: number;
  reservedDecodeTokens?: number;
  allowAutoTruncate?: boolean;
  /** `--max-total-tokens`, an upper bound (None: SGLang sizes the pool itself). */
  maxTotalTokens?: number;
  dpSize?: number;
  dpAttention?: boolean;
}

interface RankLine {
  rank: string;
  line: number;
  kv: number;
}

interface Group {
  server: ServerFigures;
  ranks: RankLine[];
}

interface StartUp {
  /** The first line that belongs to it. */
  line: number;
  args: ArgsFigures | null;
  version?: string;
  /** One per process group, in the order of their first line. */
  groups: Map<string, Group>;
  /** Every rank seen: a rank logging its scheduler line again is a new start-up. */
  ranks: Set<string>;
}

const RANK = /\b(DP|PP|ATTN_CP|MOE_DP|TP|EP)(\d+)\b/g;

/**
 * A start-up log read one line at a time, in bounded memory: what it keeps is one record per start-up
 * and per process group, never the lines. `line` counts every line it is given (the pre-filter drops
 * most of them with three `indexOf`s); `skipLines` counts lines a caller has already found to hold
 * no marker (the file reader, which looks for the markers in the bytes).
 */
export class StartupLogReader {
  private lineNo = 0;
  private chars = 0;
  private binary = false;
  private readonly problems: InputProblem[] = [];
  private readonly startUps: StartUp[] = [];
  private current: StartUp | null = null;
  private pendingVersion: { value: string; line: number } | null = null;

  constructor(
    private readonly source: string,
    private readonly role: Role | null,
  ) {}

  /** The number of lines counted so far. */
  get lines(): number {
    return this.lineNo;
  }

  /** Count `n` lines that hold none of the markers. */
  skipLines(n: number): void {
    this.lineNo += n;
  }

  line(text: string): void {
    this.lineNo++;
    if (this.binary) return;
    if (this.chars < 8192) {
      this.chars += text.length + 1;
      if (text.includes('\u0000')) {
        this.binary = true;
        return;
      }
    }
    const a = text.indexOf('server_args=');
    const k = a >= 0 ? -1 : text.indexOf('max_total_num_tokens=');
    const v = a >= 0 || k >= 0 ? -1 : text.indexOf('SGLang version');
    if (a < 0 && k < 0 && v < 0) return;
    const raw = text.replace(ANSI, '').replace(/\r$/, '');
    if (a >= 0) this.serverArgs(raw);
    else if (k >= 0) this.scheduler(raw);
    else this.version(raw);
  }

  private bad(field: string, message: string, kind: ProblemKind = 'not-a-number', value?: string): void {
    this.problems.push({ source: this.source, line: this.lineNo, field, kind, ...(value !== undefined ? { value } : {}), message });
  }

  private begin(args: ArgsFigures | null): StartUp {
    const s: StartUp = { line: this.lineNo, args, groups: new Map(), ranks: new Set() };
    if (this.pendingVersion) s.version = this.pendingVersion.value;
    this.pendingVersion = null;
    this.startUps.push(s);
    this.current = s;
    return s;
  }

  private version(raw: string): void {
    const m = /SGLang version:?\s*v?([0-9][\w.+-]*)/.exec(raw);
    if (!m) return;
    // A version printed after a start-up's scheduler lines is the next start-up's.
    if (this.current && this.current.groups.size === 0) this.current.version = m[1]!;
    else this.pendingVersion = { value: m[1]!, line: this.lineNo };
  }

  private serverArgs(raw: string): void {
    const at = raw.indexOf('server_args=');
    const rest = raw.slice(at + 'server_args='.length);
    const p = rest.startsWith('{') ? dictPairs(rest) : pairs(rest.replace(/^ServerArgs\(/, ''));
    const figures: ArgsFigures = { line: this.lineNo, role: this.role };
    const none = (v: string | undefined) => v === undefined || v === 'None' || v === 'null';
    const num = (key: string, min: number, set: (n: number) => void) => {
      const v = p.get(key);
      if (none(v)) return;
      if (v === '') return this.bad(key, `${key} has no value`, 'no-value', v);
      const n = wholeNumber(v!, min);
      if (n === null) this.bad(key, `${key} must be a whole number or None, got ${v}`, 'not-a-number', v);
      else set(n);
    };
    num('context_length', 1, (n) => (figures.contextTokens = n));
    num('page_size', 1, (n) => (figures.pageSize = n));
    num('max_total_tokens', 1, (n) => (figures.maxTotalTokens = n));
    num('num_reserved_decode_tokens', 0, (n) => (figures.reservedDecodeTokens = n));
    num('dp_size', 1, (n) => (figures.dpSize = n));
    const chunk = p.get('chunked_prefill_size');
    if (!none(chunk)) {
      const n = chunkValue(chunk!);
      if (n === null) this.bad('chunked_prefill_size', `chunked_prefill_size must be a whole number or None, got ${chunk}`, 'not-a-number', chunk);
      else figures.chunkTokens = n;
    }
    const truncate = p.get('allow_auto_truncate');
    if (truncate === 'True' || truncate === 'true') figures.allowAutoTruncate = true;
    else if (truncate === 'False' || truncate === 'false') figures.allowAutoTruncate = false;
    const dpa = p.get('enable_dp_attention');
    if (dpa !== undefined) figures.dpAttention = dpa === 'True' || dpa === 'true';
    const mode = p.get('disaggregation_mode');
    if (mode !== undefined) {
      const m = unquote(mode);
      const r = ROLES[m];
      if (!r) this.bad('disaggregation_mode', `disaggregation_mode must be 'prefill', 'decode' or 'null', got ${mode}`, 'bad-mode', m);
      else if (this.role !== null && r !== this.role) this.bad('disaggregation_mode', `this log says disaggregation_mode=${m} (line ${this.lineNo}), but it was given as the ${this.role} server's`, 'role-conflict', m);
      else figures.role = r;
    }
    // Every server_args line starts a start-up; a version printed just before it belongs to it.
    const prev = this.current;
    const s = this.begin(figures);
    if (prev && prev.groups.size === 0 && prev.version !== undefined && s.version === undefined) s.version = prev.version;
  }

  private scheduler(raw: string): void {
    const k = raw.indexOf('max_total_num_tokens=');
    const bracket = /\[([^[\]]*)\][^[\]]*$/.exec(raw.slice(0, k));
    const ranks = bracket ? [...bracket[1]!.matchAll(RANK)].map((m) => m[0]) : [];
    const rank = ranks.join(' ');
    const group = ranks.find((r) => r.startsWith('DP')) ?? '';
    const p = pairs(raw.slice(k));
    const rawKv = p.get('max_total_num_tokens') ?? '';
    if (rawKv === '') return this.bad('max_total_num_tokens', 'max_total_num_tokens has no value', 'no-value', '');
    const kv = wholeNumber(rawKv, 1);
    if (kv === null) return this.bad('max_total_num_tokens', `max_total_num_tokens must be a whole number of tokens, got ${JSON.stringify(rawKv)}`, 'not-a-number', rawKv);
    // A rank that logs its scheduler line again has restarted (no server_args line logged between).
    let s = this.current;
    if (!s) s = this.begin(null);
    else if (s.ranks.has(rank)) s = this.begin(s.args);
    s.ranks.add(rank);
    const existing = s.groups.get(group);
    if (existing) {
      existing.ranks.push({ rank, line: this.lineNo, kv });
      return;
    }
    const args = s.args;
    const server: ServerFigures = { source: this.source, line: this.lineNo, role: args?.role ?? this.role, kvTokens: kv, group, from: 'log' };
    const ctx = p.get('context_len');
    if (ctx !== undefined) {
      const n = wholeNumber(ctx, 1);
      if (n === null) this.bad('context_len', ctx === '' ? 'context_len has no value' : `context_len must be a whole number of tokens, got ${JSON.stringify(ctx)}`, ctx === '' ? 'no-value' : 'not-a-number', ctx);
      else server.contextTokens = n;
    } else if (args?.contextTokens !== undefined) server.contextTokens = args.contextTokens;
    const chunk = p.get('chunked_prefill_size');
    if (chunk !== undefined) {
      const n = chunk === 'None' ? 0 : chunkValue(chunk);
      if (n === null) this.bad('chunked_prefill_size', `chunked_prefill_size must be a whole number of tokens, got ${JSON.stringify(chunk)}`, 'not-a-number', chunk);
      else server.chunkTokens = n;
    } else if (args?.chunkTokens !== undefined) server.chunkTokens = args.chunkTokens;
    if (args?.pageSize !== undefined) server.pageSize = args.pageSize;
    if (args?.reservedDecodeTokens !== undefined) server.reservedDecodeTokens = args.reservedDecodeTokens;
    if (args?.allowAutoTruncate !== undefined) server.allowAutoTruncate = args.allowAutoTruncate;
    if (s.version !== undefined) server.version = s.version;
    s.groups.set(group, { server, ranks: [{ rank, line: this.lineNo, kv }] });
  }

  /** The servers of one start-up: one per process group, its ranks folded in. */
  private serversOf(s: StartUp): ServerFigures[] {
    const out: ServerFigures[] = [];
    for (const g of s.groups.values()) {
      const server = g.server;
      const kvs = new Set(g.ranks.map((r) => r.kv));
      if (kvs.size > 1) {
        const least = Math.min(...kvs);
        server.kvTokens = least;
        const name = (r: RankLine) => r.rank || 'the rank without a prefix';
        server.notes = [
          ...(server.notes ?? []),
          `${this.source}: the ranks of ${server.group ? `process group ${server.group}` : 'one server'} give different max_total_num_tokens (${g.ranks.map((r) => `${name(r)} ${fmt(r.kv)} on line ${r.line}`).join(', ')}); the smallest, ${fmt(least)}, is used`,
        ];
      }
      out.push(server);
    }
    const a = s.args;
    if (a?.dpSize !== undefined && a.dpSize > 1 && s.groups.size < a.dpSize && out.length > 0) {
      out[0]!.notes = [...(out[0]!.notes ?? []), `${this.source} line ${a.line}: server_args has dp_size=${a.dpSize}, but ${s.groups.size === 1 ? 'only one DP rank logs' : `only ${s.groups.size} DP ranks log`} a scheduler line (newer releases log it from TP rank 0 only): each DP rank has a KV pool of its own, and those not logged are not counted`];
    }
    return out;
  }

  finish(): Parsed {
    if (this.binary) return { servers: [], problems: [notText(this.source)], superseded: [] };
    const problems = [...this.problems];
    const withServers = this.startUps.filter((s) => s.groups.size > 0);
    const latest = withServers[withServers.length - 1];
    const servers = latest ? this.serversOf(latest) : [];
    const superseded = withServers.slice(0, -1).flatMap((s) => this.serversOf(s));
    if (latest) {
      const later = this.startUps.slice(this.startUps.indexOf(latest) + 1);
      if (later.length > 0 && servers.length > 0) {
        servers[0]!.notes = [...(servers[0]!.notes ?? []), `${this.source} line ${later[0]!.line}: a later start-up logs no scheduler line (it may not have finished starting); the start-up at line ${latest.line} is used`];
      }
      for (const s of servers) {
        if (s.role === null) problems.push({ source: this.source, line: s.line, field: 'disaggregation_mode', kind: 'no-role', message: 'cannot tell whether this server is prefill or decode: no server_args line with disaggregation_mode before it, and none was given' });
      }
    }
    if (servers.length === 0 && problems.length === 0) {
      problems.push(this.lineNo === 0 || (this.lineNo === 1 && this.chars <= 1) ? empty(this.source) : { source: this.source, line: Math.max(1, this.lineNo), field: 'max_total_num_tokens', kind: 'no-scheduler-line', message: 'no scheduler line with max_total_num_tokens= was found' });
    }
    return { servers, problems, superseded };
  }
}

/**
 * A server's start-up log (a whole file, or the lines pasted). Each process group's scheduler lines
 * are one KV pool; its role is the `disaggregation_mode` of the `server_args` line before it, else
 * the role the caller knows (the box it was pasted in, `--log prefill:FILE`); of several start-ups
 * (restarts) the latest counts and the earlier ones come back as `superseded`.
 */
export function parseStartupLog(text: string, source: string, role: Role | null = null): Parsed {
  const reader = new StartupLogReader(source, role);
  let at = 0;
  for (;;) {
    const nl = text.indexOf('\n', at);
    reader.line(nl < 0 ? text.slice(at) : text.slice(at, nl));
    if (nl < 0) break;
    at = nl + 1;
  }
  return reader.finish();
}

// ———————————————————————————————————————————— /get_server_info

/**
 * `GET /get_server_info`'s JSON (python/sglang/srt/entrypoints/http_server.py): the server args
 * flattened (`dataclasses.asdict`), the scheduler's info (`max_total_num_tokens`,
 * `max_req_input_len`), `internal_states` (one per DP rank, each with `memory_usage.token_capacity`
 * in releases that report it) and `version`. One server per DP rank (`group` "DP0", … where there are
 * several), else one.
 */
export function parseServerInfo(text: string, source: string, role: Role | null = null): Parsed {
  const problems: InputProblem[] = [];
  if (looksBinary(text)) return { servers: [], problems: [notText(source)], superseded: [] };
  let info: unknown;
  try {
    info = JSON.parse(text);
  } catch (e) {
    const at = /position (\d+)/.exec(String(e))?.[1];
    const line = at === undefined ? 1 : text.slice(0, Number(at)).split('\n').length;
    return { servers: [], problems: [{ source, line, field: '(json)', kind: 'bad-json', message: `not valid JSON (${String((e as Error).message ?? e)})` }], superseded: [] };
  }
  if (typeof info !== 'object' || info === null || Array.isArray(info)) {
    return { servers: [], problems: [{ source, line: 1, field: '(json)', kind: 'bad-json', message: 'expected the JSON object /get_server_info answers' }], superseded: [] };
  }
  const o = info as Record<string, unknown>;
  const lineOf = (key: string) => {
    const i = text.indexOf(`"${key}"`);
    return i < 0 ? 1 : text.slice(0, i).split('\n').length;
  };
  const bad = (field: string, message: string, kind: ProblemKind = 'not-a-number', value?: unknown) =>
    problems.push({ source, line: lineOf(field), field, kind, ...(value !== undefined ? { value: String(JSON.stringify(value)) } : {}), message });
  const num = (obj: Record<string, unknown>, key: string, min: number): number | undefined => {
    const v = obj[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number' && Number.isInteger(v) && v >= min && v < 1e9) return v;
    if (typeof v === 'string' && wholeNumber(v, min) !== null) return Number(v);
    bad(key, `${key} must be a whole number, got ${JSON.stringify(v)}`, 'not-a-number', v);
    return undefined;
  };
  const base: ServerFigures = { source, line: 1, role, from: 'server-info' };
  const mode = o.disaggregation_mode;
  if (mode !== undefined && mode !== null) {
    const r = typeof mode === 'string' ? ROLES[mode] : undefined;
    if (!r) bad('disaggregation_mode', `disaggregation_mode must be "prefill", "decode" or "null", got ${JSON.stringify(mode)}`, 'bad-mode', mode);
    else if (role !== null && r !== role) bad('disaggregation_mode', `this server info says disaggregation_mode=${String(mode)} (line ${lineOf('disaggregation_mode')}), but it was given as the ${role} server's`, 'role-conflict', mode);
    else base.role = r;
  } else if (role === null) {
    // Releases before disaggregation have no such field: one server that prefills and decodes.
    if (!('disaggregation_mode' in o)) base.role = 'colocated';
  }
  const set = <K extends keyof ServerFigures>(k: K, v: ServerFigures[K] | undefined) => v !== undefined && (base[k] = v);
  set('contextTokens', num(o, 'context_length', 1));
  set('pageSize', num(o, 'page_size', 1));
  const chunk = o.chunked_prefill_size;
  if (chunk !== undefined && chunk !== null) {
    const n = chunkValue(String(chunk));
    if (n === null) bad('chunked_prefill_size', `chunked_prefill_size must be a whole number, got ${JSON.stringify(chunk)}`, 'not-a-number', chunk);
    else base.chunkTokens = n;
  }
  set('reservedDecodeTokens', num(o, 'num_reserved_decode_tokens', 0));
  set('maxReqInputLen', num(o, 'max_req_input_len', 1));
  if (typeof o.allow_auto_truncate === 'boolean') base.allowAutoTruncate = o.allow_auto_truncate;
  if (typeof o.version === 'string') base.version = o.version;
  const topKv = num(o, 'max_total_num_tokens', 1);
  const states = Array.isArray(o.internal_states) ? (o.internal_states as unknown[]).filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null) : [];
  const servers: ServerFigures[] = [];
  const kvLine = lineOf(topKv !== undefined ? 'max_total_num_tokens' : 'token_capacity');
  if (states.length === 0) {
    servers.push({ ...base, line: kvLine, group: '', ...(topKv !== undefined ? { kvTokens: topKv } : {}) });
  } else {
    states.forEach((st, i) => {
      const usage = typeof st.memory_usage === 'object' && st.memory_usage !== null ? (st.memory_usage as Record<string, unknown>) : {};
      const kv = num(usage, 'token_capacity', 1) ?? num(st, 'max_total_num_tokens', 1) ?? topKv;
      servers.push({ ...base, line: kvLine, group: states.length > 1 ? `DP${i}` : '', ...(kv !== undefined ? { kvTokens: kv } : {}) });
    });
  }
  if (servers.every((s) => s.kvTokens === undefined)) {
    problems.push({ source, line: 1, field: 'max_total_num_tokens', kind: 'no-value', message: 'this server info gives no max_total_num_tokens (nor internal_states[].memory_usage.token_capacity): is it /get_server_info’s answer?' });
    return { servers: [], problems, superseded: [] };
  }
  if (servers[0]!.role === null) problems.push({ source, line: 1, field: 'disaggregation_mode', kind: 'no-role', message: 'cannot tell whether this server is prefill or decode: its disaggregation_mode is not given, and none was given' });
  return { servers, problems, superseded: [] };
}

/**
 * Any of the three, picked by content: a JSON object is `/get_server_info`'s answer; a text with a
 * start-up log's marker is a log; anything else is launch arguments. The page's boxes and the CLI's
 * `--log` both read through this.
 */
export function parseServerText(text: string, source: string, role: Role | null = null): Parsed {
  if (looksBinary(text)) return { servers: [], problems: [notText(source)], superseded: [] };
  if (text.trim() === '') return { servers: [], problems: [empty(source)], superseded: [] };
  if (/^\s*\{/.test(text)) return parseServerInfo(text, source, role);
  if (STARTUP_MARKERS.some((m) => text.includes(m))) return parseStartupLog(text, source, role);
  return parseLaunchArgs(text, source, role);
}

// ———————————————————————————————————————————— the deployment

/** Figures the operator typed (each overrides what the texts say). */
export interface TypedFigures {
  contextTokens?: number;
  prefillCapacities?: number[];
  decodeCapacities?: number[];
  pageSize?: number;
  chunkTokens?: number;
  disaggregated?: boolean;
  reservedDecodeTokens?: number;
  decodeContextTokens?: number;
  version?: string;
  allowAutoTruncate?: boolean;
  maxReqInputLen?: number;
}

export type FigureField = keyof TypedFigures;

/** The figures the answer needs: given nowhere, they are the incident's (`missing`). The others have SGLang's default or "not known". */
export const NEEDED_FIGURES: readonly FigureField[] = ['contextTokens', 'prefillCapacities', 'decodeCapacities', 'pageSize', 'chunkTokens', 'disaggregated'];

export interface Assembled {
  /** The deployment's numbers (behaviours and rule as the caller sets them: the incident's here). */
  deployment: Deployment;
  origins: Record<FigureField, Origin>;
  /** What a reader should know: an upper bound taken for a capacity, figures that disagree. */
  notes: string[];
  /** Needed figures given nowhere (origin 'assumed'), in NEEDED_FIGURES' order. */
  missing: FigureField[];
}

type TextOrigin = 'log' | 'args' | 'server-info';

/**
 * The deployment the texts and the typed figures describe. A figure given nowhere is the incident's
 * (or SGLang's default, or "not known"), and marked assumed. The scheduler's log line and the server
 * info beat the arguments (they are the pool as allocated; `--max-total-tokens` is only an upper
 * bound); what is typed beats both.
 */
export function assembleDeployment(servers: readonly ServerFigures[], typed: TypedFigures = {}): Assembled {
  const notes: string[] = [...new Set(servers.flatMap((s) => s.notes ?? []))];
  const origins = {} as Record<FigureField, Origin>;
  const where = (s: ServerFigures) => `${s.source} line ${s.line}`;
  const pick = <T>(field: FigureField, typedValue: T | undefined, fromTexts: { value: T; origin: TextOrigin } | undefined, assumed: T): T => {
    if (typedValue !== undefined) return (origins[field] = 'typed'), typedValue;
    if (fromTexts) return (origins[field] = fromTexts.origin), fromTexts.value;
    origins[field] = 'assumed';
    return assumed;
  };
  const ordered = [...servers.filter((s) => s.from === 'log'), ...servers.filter((s) => s.from === 'server-info'), ...servers.filter((s) => s.from === 'args')];
  const first = <K extends keyof ServerFigures>(key: K, prefer: (s: ServerFigures) => boolean = () => true, only = false) => {
    const s = ordered.find((x) => x[key] !== undefined && prefer(x)) ?? (only ? undefined : ordered.find((x) => x[key] !== undefined));
    return s ? { value: s[key] as NonNullable<ServerFigures[K]>, origin: s.from, server: s } : undefined;
  };
  const notDecode = (s: ServerFigures) => s.role !== 'decode';
  const roles = new Set(servers.map((s) => s.role).filter((r): r is Role => r !== null));
  const roleOrigin = (['log', 'server-info', 'args'] as const).find((o) => servers.some((s) => s.from === o && s.role)) ?? 'args';
  const disaggregated = pick('disaggregated', typed.disaggregated, roles.size > 0 ? { value: roles.has('prefill') || roles.has('decode'), origin: roleOrigin } : undefined, INCIDENT_DEPLOYMENT.disaggregated);
  // The tokenizer that refuses over-long prompts is the prefill (or only) server's.
  const ctx = first('contextTokens', notDecode);
  const contextTokens = pick('contextTokens', typed.contextTokens, ctx, INCIDENT_DEPLOYMENT.contextTokens);
  const contexts = new Set(servers.filter(notDecode).map((s) => s.contextTokens).filter((x) => x !== undefined));
  if (contexts.size > 1 && typed.contextTokens === undefined) notes.push(`the servers give different context lengths (${[...contexts].map((x) => fmt(x!)).join(', ')}); the prefill server's ${fmt(contextTokens)} is used`);
  const decodeCtx = disaggregated ? first('contextTokens', (s) => s.role === 'decode', true) : undefined;
  const decodeContextTokens = pick<number | null>('decodeContextTokens', typed.decodeContextTokens, decodeCtx, INCIDENT_DEPLOYMENT.decodeContextTokens);
  const page = first('pageSize');
  const pageSize = pick('pageSize', typed.pageSize, page, INCIDENT_DEPLOYMENT.pageSize);
  const chunk = first('chunkTokens', notDecode);
  const chunkTokens = pick('chunkTokens', typed.chunkTokens, chunk, INCIDENT_DEPLOYMENT.chunkTokens);
  const reserved = first('reservedDecodeTokens', (s) => s.role === 'decode');
  const reservedDecodeTokens = pick('reservedDecodeTokens', typed.reservedDecodeTokens, reserved, INCIDENT_DEPLOYMENT.reservedDecodeTokens);
  // On either server auto-truncation replaces the placeholder path (each keeps its own limit's worth): any one counts.
  const truncations = [first('allowAutoTruncate', notDecode, true), first('allowAutoTruncate', (s) => s.role === 'decode', true)].filter((x) => x !== undefined);
  const truncate = truncations.find((x) => x.value) ?? truncations[0];
  const allowAutoTruncate = pick('allowAutoTruncate', typed.allowAutoTruncate, truncate, INCIDENT_DEPLOYMENT.allowAutoTruncate);
  const maxReq = first('maxReqInputLen', notDecode, true);
  const maxReqInputLen = pick<number | null>('maxReqInputLen', typed.maxReqInputLen, maxReq, INCIDENT_DEPLOYMENT.maxReqInputLen);
  const ver = first('version');
  const version = pick<string | null>('version', typed.version, ver, INCIDENT_DEPLOYMENT.version);
  const versions = new Set(servers.map((s) => s.version).filter((x) => x !== undefined));
  if (versions.size > 1 && typed.version === undefined) notes.push(`the servers report different SGLang versions (${[...versions].join(', ')}); ${version} is shown`);
  const capacities = (role: Role[], field: 'prefillCapacities' | 'decodeCapacities', assumed: number[], typedValue: number[] | undefined) => {
    const has = (from: TextOrigin) => servers.filter((s) => s.from === from && s.role !== null && role.includes(s.role) && s.kvTokens !== undefined);
    const logs = has('log');
    const info = has('server-info');
    const args = has('args');
    if (logs.length === 0 && info.length === 0 && args.length > 0 && typedValue === undefined) {
      notes.push(`${field}: taken from --max-total-tokens (${args.map(where).join(', ')}), an upper bound: the pool SGLang allocates can be smaller, and its scheduler's max_total_num_tokens line gives the real figure`);
    }
    const real = logs.length > 0 ? logs : info;
    const fromTexts = real.length > 0 ? { value: real.map((s) => s.kvTokens!), origin: real[0]!.from } : args.length > 0 ? { value: args.map((s) => s.kvTokens!), origin: 'args' as const } : undefined;
    return pick(field, typedValue, fromTexts, assumed);
  };
  const prefillCapacities = capacities(disaggregated ? ['prefill'] : ['colocated', 'prefill'], 'prefillCapacities', INCIDENT_DEPLOYMENT.prefillCapacities, typed.prefillCapacities);
  const decodeCapacities = disaggregated ? capacities(['decode'], 'decodeCapacities', INCIDENT_DEPLOYMENT.decodeCapacities, typed.decodeCapacities) : ((origins.decodeCapacities = origins.prefillCapacities), prefillCapacities);
  const missing = NEEDED_FIGURES.filter((f) => origins[f] === 'assumed' && (disaggregated || f !== 'decodeCapacities'));
  return {
    deployment: { ...INCIDENT_DEPLOYMENT, contextTokens, prefillCapacities, decodeCapacities, pageSize, chunkTokens, disaggregated, reservedDecodeTokens, decodeContextTokens, version, allowAutoTruncate, maxReqInputLen },
    origins,
    notes,
    missing,
  };
}

/** One problem as the CLI and the page print it: `source line N, field: message`. */
export function describeProblem(p: InputProblem): string {
  return `${p.source} line ${p.line}, ${p.field}: ${p.message}`;
}
