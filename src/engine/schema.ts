/**
 * Validation of the files a person hands the engine: a config (overrides of a base deployment) and a
 * trace. Errors name the field (`requests[3].promptTokens`) so the CLI can name file and field.
 */
import * as v from 'valibot';
import { MITIGATION_KEYS, type MitigationKey } from './switches.ts';
import { TOPICS } from './vocab.ts';
import type { ConfigOverrides } from './config.ts';
import type { Trace } from './trace.ts';

const positiveInt = (max: number) => v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(max));
const positive = v.pipe(v.number(), v.finite(), v.gtValue(0));

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
  outputTokens: v.optional(positiveInt(4096)),
  // One optional boolean per mitigation of the registry.
  mitigations: v.optional(v.strictObject(Object.fromEntries(MITIGATION_KEYS.map((k) => [k, v.optional(v.boolean())])) as Record<MitigationKey, v.OptionalSchema<v.BooleanSchema<undefined>, undefined>>)),
  timing: v.optional(
    v.strictObject({
      prefillTokensPerSecond: v.optional(positive),
      transferTokensPerSecond: v.optional(positive),
      decodeMsPerToken: v.optional(positive),
      handshakeMs: v.optional(positive),
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

export const TraceSchema = v.pipe(
  v.strictObject({
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
        }),
      ),
      v.maxLength(2_000_000),
    ),
  }),
  v.check((t) => {
    const names = new Set(t.tenants.map((x) => x.name));
    return names.size === t.tenants.length && t.requests.every((r) => names.has(r.tenant));
  }, 'tenant names must be unique and every request must name a listed tenant'),
);

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

/** Parses a config file's JSON value; throws InputError naming `source` and each bad field. */
export function parseConfigFile(value: unknown, source: string): ConfigFile {
  const result = v.safeParse(ConfigFileSchema, value);
  if (!result.success) throw new InputError(source, describeIssues(result.issues));
  return result.output;
}

export function parseTrace(value: unknown, source: string): Trace {
  const result = v.safeParse(TraceSchema, value);
  if (!result.success) throw new InputError(source, describeIssues(result.issues));
  return result.output as Trace;
}
