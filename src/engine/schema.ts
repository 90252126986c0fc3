/**
 * Validation of the files a person hands the engine: a config (overrides of a base deployment) and a
 * trace. Errors name the field (`requests[3].promptTokens`) so the CLI can name file and field.
 */
import * as v from 'valibot';
import { MITIGATION_KEYS, type MitigationKey } from './switches.ts';
import { MAX_VOCABULARY, TOPICS, splitWords, traceTexts, vocabularyOverflow } from './core/vocab.ts';
import type { ConfigOverrides } from './config.ts';
import type { Trace } from './trace.ts';

const positiveInt = (max: number) => v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(max));
const positive = v.pipe(v.number(), v.finite(), v.gtValue(0));
const nonNegative = v.pipe(v.number(), v.finite(), v.minValue(0, 'must be 0 or more (milliseconds)'));
/** 0 turns chunked prefill off; otherwise tokens per chunk. */
const chunkTokens = v.pipe(
  v.number('must be a number of tokens per chunk (0: no chunked prefill)'),
  v.integer('must be a whole number of tokens per chunk (0: no chunked prefill)'),
  v.minValue(0, 'must be 0 (no chunked prefill) or a positive number of tokens per chunk'),
  v.maxValue(16_777_216, 'must be at most 16,777,216 tokens per chunk'),
);

export const ConfigFileSchema = v.strictObject({
  base: v.optional(v.picklist(['incident', 'fixed'])),
  seed: v.optional(v.string()),
  prefillNodes: v.optional(positiveInt(16)),
  decodeNodes: v.optional(positiveInt(16)),
  pageSize: v.optional(positiveInt(4096)),
  advertisedContextTokens: v.optional(positiveInt(16_777_216)),
  prefillCapacityTokens: v.optional(positiveInt(16_777_216)),
  decodeCapacityTokens: v.optional(positiveInt(16_777_216)),
  rejectPath: v.optional(v.picklist(['buggy', 'fixed'])),
  thresholdRule: v.optional(v.picklist(['report', 'sglang'])),
  tokenizerRule: v.optional(v.picklist(['report', 'sglang'], 'must be "report" (the advertised context admits it) or "sglang" (upstream\u2019s tokenizer manager)')),
  prefillChunkTokens: v.optional(chunkTokens),
  freeListPolicy: v.optional(v.picklist(['sorted', 'staged'], 'must be "sorted" (lowest free page first) or "staged" (SGLang\u2019s free list in PD mode)')),
  outputTokens: v.optional(positiveInt(4096)),
  reservedDecodeTokens: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(16_777_216))),
  decodeRequestRows: v.optional(positiveInt(1_000_000)),
  disableOverlapSchedule: v.optional(v.boolean('must be true (SGLang\u2019s --disable-overlap-schedule: T \u2212 1 decode steps) or false (its default overlap scheduler: T steps)')),
  // One optional boolean per mitigation of the registry.
  mitigations: v.optional(v.strictObject(Object.fromEntries(MITIGATION_KEYS.map((k) => [k, v.optional(v.boolean())])) as Record<MitigationKey, v.OptionalSchema<v.BooleanSchema<undefined>, undefined>>)),
  timing: v.optional(
    v.strictObject({
      prefillTokensPerSecond: v.optional(positive),
      transferTokensPerSecond: v.optional(positive),
      decodeMsPerToken: v.optional(positive),
      handshakeMs: v.optional(positive),
      decodePollMs: v.optional(nonNegative),
      abortNoticeMs: v.optional(nonNegative),
    }),
  ),
  model: v.optional(
    v.strictObject({
      dim: v.optional(positiveInt(256)),
      sharpness: v.optional(positive),
      repetitionPenalty: v.optional(v.pipe(v.number(), v.minValue(1))),
      weightsSeed: v.optional(v.string()),
    }),
  ),
});

export type ConfigFile = ConfigOverrides & { base?: 'incident' | 'fixed' };

const tenantName = v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]{0,31}$/, 'must be 1–32 lower-case letters, digits or dashes, starting with a letter'));

export const TraceSchema = v.strictObject({
  version: v.literal(1),
  name: v.optional(v.string()),
  startTime: v.optional(v.pipe(v.string(), v.isoTimestamp())),
  tenants: v.pipe(
    v.array(
      v.strictObject({
        name: tenantName,
        topic: v.optional(v.picklist(TOPICS)),
        canary: v.optional(v.boolean()),
        canaryAtMentions: v.optional(v.boolean()),
        text: v.optional(v.pipe(v.string(), v.nonEmpty())),
      }),
    ),
    v.minLength(1),
    v.maxLength(256),
  ),
  requests: v.pipe(
    v.array(
      v.strictObject({
        id: v.optional(v.string()),
        at: v.pipe(v.number(), v.finite(), v.minValue(0)),
        tenant: tenantName,
        promptTokens: positiveInt(16_777_216),
        text: v.optional(v.pipe(v.string(), v.nonEmpty())),
        offset: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
        outputTokens: v.optional(positiveInt(4096)),
        /** When the client goes away (ms from the start of the trace); at or after `at`. */
        cancelAt: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0))),
      }),
    ),
    v.maxLength(2_000_000),
  ),
});

export class InputError extends Error {
  constructor(readonly source: string, readonly problems: string[]) {
    super(`${source}: ${problems.join('; ')}`);
    this.name = 'InputError';
  }
}

function describeIssues(issues: readonly v.BaseIssue<unknown>[]): string[] {
  return issues.map((issue) => {
    const path = v.getDotPath(issue);
    return `${path ?? '(top level)'}: ${issue.message}`;
  });
}

/** Valibot's object schemas take arrays; a file must hold a JSON object, and anything else says what it held. */
function requireObject(value: unknown, source: string, what: string): void {
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) return;
  const got = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
  throw new InputError(source, [`(top level): ${what} must be a JSON object, got ${got}`]);
}

/** Parses a config file's JSON value; throws InputError naming `source` and each bad field. */
export function parseConfigFile(value: unknown, source: string): ConfigFile {
  requireObject(value, source, 'a config');
  const result = v.safeParse(ConfigFileSchema, value);
  if (!result.success) throw new InputError(source, describeIssues(result.issues));
  return result.output;
}

/**
 * What a trace that passed the schema can still get wrong, each problem naming its field, the tenant
 * and the request: a tenant listed twice, a request naming no listed tenant, texts that take the
 * vocabulary past what the decode model takes.
 */
export function traceProblems(trace: Trace): string[] {
  const problems: string[] = [];
  const firstAt = new Map<string, number>();
  trace.tenants.forEach((t, i) => {
    const earlier = firstAt.get(t.name);
    if (earlier === undefined) firstAt.set(t.name, i);
    else problems.push(`tenants.${i}.name: tenant ${JSON.stringify(t.name)} is already listed as tenants.${earlier}; tenant names must be unique`);
  });
  let unknown = 0;
  trace.requests.forEach((r, i) => {
    if (firstAt.has(r.tenant)) return;
    if (++unknown <= 5) {
      problems.push(`requests.${i}.tenant: request ${JSON.stringify(r.id ?? `r${i}`)} names tenant ${JSON.stringify(r.tenant)}, which is not in tenants`);
    }
  });
  if (unknown > 5) problems.push(`${unknown - 5} more requests name tenants that are not listed`);
  trace.requests.forEach((r, i) => {
    if (r.cancelAt !== undefined && r.cancelAt < r.at) {
      problems.push(`requests.${i}.cancelAt: request ${JSON.stringify(r.id ?? `r${i}`)} is cancelled at ${r.cancelAt} ms, before it arrives at ${r.at} ms`);
    }
  });
  for (const { field, text } of traceTexts(trace)) {
    if (splitWords(text).length === 0) problems.push(`${field}: has no words`);
  }
  if (problems.length > 0) return problems;
  const overflow = vocabularyOverflow(trace.tenants.map((t) => t.name), traceTexts(trace));
  if (overflow) {
    problems.push(
      `${overflow.field}: takes the vocabulary past the decode model's ${MAX_VOCABULARY.toLocaleString('en-US')} distinct words ` +
        `(built-in words, tenant names and canaries included); the trace's texts need ${overflow.size.toLocaleString('en-US')}`,
    );
  }
  return problems;
}

export function parseTrace(value: unknown, source: string): Trace {
  requireObject(value, source, 'a trace');
  const result = v.safeParse(TraceSchema, value);
  if (!result.success) throw new InputError(source, describeIssues(result.issues));
  const trace = result.output as Trace;
  const problems = traceProblems(trace);
  if (problems.length > 0) throw new InputError(source, problems);
  return trace;
}
