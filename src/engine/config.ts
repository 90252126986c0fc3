/**
 * Engine configuration and its defaults.
 *
 * The three incident figures below are the only place the engine states them; each names its fact id
 * in shared/incident/FACTS.md. Everything else here is a model parameter or an assumption, and says so.
 */

import type { Mitigations } from './switches.ts';

export type { Mitigations };

/** F14: context length the model advertised. */
export const ADVERTISED_CONTEXT_TOKENS = 1_048_576;
/** F14: tokens the prefill KV cache could actually hold. */
export const INCIDENT_PREFILL_CAPACITY_TOKENS = 681_280;
/** F23: "environ 2,04 millions de jetons" after the fix (the report rounds; 2,040,000 is our reading). */
export const FIXED_PREFILL_CAPACITY_TOKENS = 2_040_000;

export type RejectPath = 'buggy' | 'fixed';
/**
 * `report`: reject prompts longer than the prefill capacity (the report's 681,280: the capacity, F14, and the threshold every affected request exceeded, F4).
 * `sglang`: SGLang's `max_req_input_len = min(context − 1, capacity − 1) − 5`, rejecting at or over it.
 */
export type ThresholdRule = 'report' | 'sglang';
/**
 * What the tokenizer refuses before any node sees the request.
 * `report`: prompts longer than the advertised context (N > context): the model's choice, since the
 *   article never mentions a tokenizer (the name `report` is kept for configs and URLs).
 * `sglang`: upstream's tokenizer manager (`_validate_one_request`): N ≥ context, or N plus the
 * requested output tokens over the context (older versions refused the total at ≥ too).
 */
export type TokenizerRule = 'report' | 'sglang';
/**
 * The order in which a pool hands out free pages (docs/MODEL.md, "Where the engine differs from SGLang").
 * `staged` (the default): SGLang's free list in PD mode (`need_sort`), as its allocator's code does
 * it: freed pages are staged, pages are taken from the front of the current free list, and the
 * staged ones are merged in and the whole list sorted when SGLang's rule says the list is short
 * (`KvPool.allocateBatch`, `allocateDecode`); the engine hands out the same page ids as SGLang's code
 * on every sequence tried (src/engine/allocatorTrace.test.ts). `sorted`: a simplification, lowest
 * free id first, always (SGLang's order right after a merge). Either way page 0 is never handed out.
 */
export type FreeListPolicy = 'sorted' | 'staged';

/** Model of time; none of these figures is in the report. */
export interface TimingModel {
  /** Prefill compute speed per prefill node. */
  prefillTokensPerSecond: number;
  /** RDMA page copy speed, in tokens of KV per second. */
  transferTokensPerSecond: number;
  /** One decode step. */
  decodeMsPerToken: number;
  /** Bootstrap handshake between prefill and decode; also how long a control message takes. */
  handshakeMs: number;
  /**
   * How long after the last KV write decode notices "done" (its next poll). 0: at once, as the
   * engine always did; the abort-race rows of the matrix use a decode step (A15).
   */
  decodePollMs?: number;
  /** How long a decode-side abort takes to reach prefill (A15). Used only when a client cancels. */
  abortNoticeMs?: number;
}

/** The toy decode model (a single induction head); see attention.ts. */
export interface DecodeModelConfig {
  /** Embedding width of the random unit token vectors. */
  dim: number;
  /** Inverse temperature of attention: higher means sharper matching of keys. */
  sharpness: number;
  /** Divides the logit of a token each time it was already generated (as samplers do). */
  repetitionPenalty: number;
  /** Seed of the model's weights; independent of the workload seed. */
  weightsSeed: string;
}

export interface EngineConfig {
  /** Seed of every random choice the engine makes (routing, prompt offsets). */
  seed: string;
  prefillNodes: number;
  decodeNodes: number;
  /** Tokens per KV page. Assumption: the report does not give it. */
  pageSize: number;
  advertisedContextTokens: number;
  prefillCapacityTokens: number;
  /** Per decode node. Assumption: larger than the advertised context, as decode accepted such prompts (F19). */
  decodeCapacityTokens: number;
  rejectPath: RejectPath;
  thresholdRule: ThresholdRule;
  tokenizerRule: TokenizerRule;
  /**
   * The decode server's own context length (its tokenizer and its scheduler check the prompt
   * against it as prefill's do against theirs). Absent: the advertised context.
   */
  decodeContextTokens?: number;
  /**
   * The margin SGLang's scheduler takes off `max_req_input_len` (`min(context_len − 1, pool − 1) − 5`
   * in current releases, no margin in older ones: docs/MODEL.md cites both). Absent: 5.
   */
  inputLimitMargin?: number;
  /**
   * Chunked prefill: tokens per chunk, 0 for none. Each chunk's whole pages are sent as soon as it is
   * computed; the last chunk sends the partial page (shared/design/sglang-pd-mechanics.md).
   */
  prefillChunkTokens: number;
  /** Order of reuse of free pages in every pool (`FreeListPolicy`). */
  freeListPolicy: FreeListPolicy;
  /**
   * Decode's admission budget (`disaggregation/decode.py`): a request is pre-allocated only when its
   * prompt plus these tokens fits in the free pool less these tokens for every request decode already
   * holds (`num_reserved_decode_tokens`, SGLang's default 512), so running requests can grow.
   */
  reservedDecodeTokens: number;
  /** Requests a decode node holds at once (its request-table rows: running, in transfer, waiting). Model. */
  decodeRequestRows: number;
  /**
   * SGLang's `--disable-overlap-schedule`. Absent or false, SGLang's default: the overlap scheduler
   * (`event_loop_overlap_disagg_decode`) prepares and runs a request's next step before it learns
   * that the request has its last token, so a request of T output tokens runs T decode steps (the
   * T-th writes its last token's KV, in a page of its own when that slot starts one) and gives the
   * over-allocated slot back with the rest. True: the plain loop, T − 1 steps.
   */
  disableOverlapSchedule?: boolean;
  mitigations: Mitigations;
  /** Tokens generated per response unless a request says otherwise. Model. */
  outputTokens: number;
  timing: TimingModel;
  model: DecodeModelConfig;
}

/** No mitigation on (each one is declared in switches.ts; an absent key is off). */
export const NO_MITIGATIONS: Mitigations = {};

/** The deployment as it ran during the incident: both defects on, no mitigation. */
export const INCIDENT_CONFIG: EngineConfig = {
  seed: 'stale-pages',
  prefillNodes: 1,
  decodeNodes: 2,
  pageSize: 64,
  advertisedContextTokens: ADVERTISED_CONTEXT_TOKENS,
  prefillCapacityTokens: INCIDENT_PREFILL_CAPACITY_TOKENS,
  decodeCapacityTokens: 1_310_720,
  rejectPath: 'buggy',
  thresholdRule: 'report',
  tokenizerRule: 'report',
  prefillChunkTokens: 0,
  freeListPolicy: 'staged',
  reservedDecodeTokens: 512,
  decodeRequestRows: 1024,
  mitigations: NO_MITIGATIONS,
  outputTokens: 24,
  timing: {
    prefillTokensPerSecond: 25_000,
    transferTokensPerSecond: 900_000,
    decodeMsPerToken: 25,
    handshakeMs: 2,
  },
  model: { dim: 32, sharpness: 8, repetitionPenalty: 2.5, weightsSeed: 'stale-pages-model-v1' },
};

/** The final deployment (F23, F24; A9: the replay serves it from 19:40, F13, a time the report does not give it). */
export const FIXED_CONFIG: EngineConfig = {
  ...INCIDENT_CONFIG,
  prefillCapacityTokens: FIXED_PREFILL_CAPACITY_TOKENS,
  decodeCapacityTokens: 2_097_152,
  rejectPath: 'fixed',
  mitigations: { ...NO_MITIGATIONS, deploymentCapacityCheck: true },
};

export interface ConfigOverrides extends Partial<Omit<EngineConfig, 'mitigations' | 'timing' | 'model'>> {
  mitigations?: Partial<Mitigations>;
  timing?: Partial<TimingModel>;
  model?: Partial<DecodeModelConfig>;
}

export function withOverrides(base: EngineConfig, o: ConfigOverrides): EngineConfig {
  return {
    ...base,
    ...o,
    mitigations: { ...base.mitigations, ...o.mitigations },
    timing: { ...base.timing, ...o.timing },
    model: { ...base.model, ...o.model },
  };
}

/**
 * Decode steps a request of `outputTokens` output tokens runs (its first token is prefill's): T − 1
 * under `disableOverlapSchedule`; T under SGLang's default overlap scheduler, whose last step is the
 * one it launched before processing the step that finished the request (none when prefill's token
 * was the only one: the request finishes when its prebuilt batch is processed, before any step).
 * Step j writes the j-th output token's KV at position prompt + j − 1.
 */
export function decodeStepCount(config: Pick<EngineConfig, 'disableOverlapSchedule'>, outputTokens: number): number {
  if (outputTokens <= 1) return 0;
  return config.disableOverlapSchedule === true ? outputTokens - 1 : outputTokens;
}

/**
 * Tokens a pool configured for `capacityTokens` really holds: whole pages only. SGLang does the same
 * (`max_total_num_tokens` is rounded down to a multiple of the page size), and every limit below is
 * taken from this figure, never from the configured one: a limit the pool cannot honour would admit a
 * prompt whose allocation can never succeed.
 */
export function poolTokens(capacityTokens: number, pageSize: number): number {
  return Math.floor(capacityTokens / pageSize) * pageSize;
}

/**
 * The longest prompt decode admission takes: its pool in whole pages less the tokens SGLang's budget
 * keeps for a held request's decode steps (`reservedDecodeTokens`). SGLang would leave a longer one
 * queued for ever; the engine refuses it (docs/MODEL.md). The simulation and the deployment bands
 * both read it here.
 */
export function decodeAdmissionLimit(config: Pick<EngineConfig, 'decodeCapacityTokens' | 'pageSize' | 'reservedDecodeTokens'>, maxNewTokens: number | null = null): number {
  // The budget also needs the prompt plus its (clipped) max_new_tokens: the larger term decides.
  const kept = Math.max(config.reservedDecodeTokens, maxNewTokens === null ? 0 : Math.min(maxNewTokens, CLIP_MAX_NEW_TOKENS));
  return Math.max(0, poolTokens(config.decodeCapacityTokens, config.pageSize) - kept);
}

/** SGLang's clip of max_new_tokens in decode's budget (`SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION`, default 4096). */
export const CLIP_MAX_NEW_TOKENS = 4096;

/** SGLang's default `--chunked-prefill-size` on large GPUs; the chunked-prefill switch uses it. */
export const DEFAULT_PREFILL_CHUNK_TOKENS = 8_192;

/**
 * Why a tokenizer refuses a request, or null when it lets it through. `report`: longer than the
 * advertised context. `sglang` (TokenizerManager `_validate_one_request`, docs/MODEL.md): an input
 * not shorter than the context, or, when the request declares `max_new_tokens`, input plus those not
 * shorter than it. `context` defaults to the advertised one (prefill's); decode's tokenizer passes its own.
 */
export function tokenizerRefusal(config: Pick<EngineConfig, 'tokenizerRule' | 'advertisedContextTokens'>, prompt: number, maxNewTokens: number | null, context = config.advertisedContextTokens): string | null {
  const fmt = (n: number) => n.toLocaleString('en-US');
  if (config.tokenizerRule === 'report') {
    return prompt > context ? `prompt of ${fmt(prompt)} tokens exceeds the advertised context length of ${fmt(context)} tokens` : null;
  }
  if (prompt >= context) return `prompt of ${fmt(prompt)} tokens is not shorter than the context length of ${fmt(context)} tokens`;
  if (maxNewTokens !== null && prompt + maxNewTokens >= context) return `prompt of ${fmt(prompt)} tokens plus ${fmt(maxNewTokens)} requested output tokens is not shorter than the context length of ${fmt(context)} tokens`;
  return null;
}

/**
 * SGLang's `max_req_input_len` (the scheduler): `min(context_len − 1, pool − 1) − margin`; a prompt
 * at or over it is refused (`validate_input_length`, `>=`). `pool` is `max_total_num_tokens`.
 */
export function maxReqInputLen(contextTokens: number, poolTokensHeld: number, margin: number): number {
  return Math.min(contextTokens - 1, poolTokensHeld - 1) - margin;
}

/** SGLang's margin unless the config states another (older releases: 0). */
export const SGLANG_INPUT_LIMIT_MARGIN = 5;

/** The longest prompt the prefill scheduler admits; longer ones are rejected (or, buggy, aborted). */
export function prefillInputLimit(config: EngineConfig): number {
  const pool = poolTokens(config.prefillCapacityTokens, config.pageSize);
  if (config.thresholdRule === 'report') return pool;
  // SGLang rejects at or over max_req_input_len, so the longest admitted prompt is one less.
  return maxReqInputLen(config.advertisedContextTokens, pool, config.inputLimitMargin ?? SGLANG_INPUT_LIMIT_MARGIN) - 1;
}

/**
 * The longest prompt the decode server's own checks let through: its tokenizer against its own
 * context and, by SGLang's rule, its scheduler's `max_req_input_len` from its own context and pool.
 * By the report's rule decode has only its context (its pool is decode admission's, below).
 */
export function decodeInputLimit(config: EngineConfig): number {
  const context = config.decodeContextTokens ?? config.advertisedContextTokens;
  if (config.thresholdRule === 'report') return context;
  const pool = poolTokens(config.decodeCapacityTokens, config.pageSize);
  return Math.min(context - 1, maxReqInputLen(context, pool, config.inputLimitMargin ?? SGLANG_INPUT_LIMIT_MARGIN) - 1);
}

/**
 * What the engine does with a config that a reader might not expect: today, capacities that are not a
 * multiple of the page size, which are rounded down to whole pages (the CLI prints these notes).
 */
export function configNotes(c: EngineConfig): string[] {
  const notes: string[] = [];
  const fmt = (n: number) => n.toLocaleString('en-US');
  const round = (field: string, capacity: number, what: string) => {
    const held = poolTokens(capacity, c.pageSize);
    if (held === capacity) return;
    notes.push(
      `${field} ${fmt(capacity)} is not a multiple of pageSize ${fmt(c.pageSize)}: ${what} holds ` +
        `${fmt(held / c.pageSize)} whole pages = ${fmt(held)} tokens, and its limits use that figure (as SGLang rounds max_total_num_tokens down)`,
    );
  };
  round('prefillCapacityTokens', c.prefillCapacityTokens, 'each prefill pool');
  round('decodeCapacityTokens', c.decodeCapacityTokens, 'each decode pool');
  return notes;
}

export function pagesFor(tokens: number, pageSize: number): number {
  return Math.ceil(tokens / pageSize);
}

/** Thrown when the deployment capacity check refuses a configuration (capacity: the page-aligned pool). */
export class DeploymentRefused extends Error {
  constructor(readonly advertised: number, readonly capacity: number) {
    super(
      `deployment refused: advertised context of ${advertised.toLocaleString('en-US')} tokens exceeds ` +
        `the prefill KV cache of ${capacity.toLocaleString('en-US')} tokens`,
    );
    this.name = 'DeploymentRefused';
  }
}

/** Structural sanity of a config; returns the problems, each naming its field. */
export function configProblems(c: EngineConfig): string[] {
  const problems: string[] = [];
  const positiveInt = (field: string, v: number, max = Number.MAX_SAFE_INTEGER) => {
    if (!Number.isInteger(v) || v < 1 || v > max) problems.push(`${field} must be an integer from 1 to ${max}, got ${v}`);
  };
  positiveInt('prefillNodes', c.prefillNodes, 16);
  positiveInt('decodeNodes', c.decodeNodes, 16);
  positiveInt('pageSize', c.pageSize, 4096);
  positiveInt('advertisedContextTokens', c.advertisedContextTokens, 16_777_216);
  positiveInt('prefillCapacityTokens', c.prefillCapacityTokens, 16_777_216);
  positiveInt('decodeCapacityTokens', c.decodeCapacityTokens, 16_777_216);
  positiveInt('outputTokens', c.outputTokens, 4096);
  if (!Number.isInteger(c.reservedDecodeTokens) || c.reservedDecodeTokens < 0 || c.reservedDecodeTokens > 16_777_216) problems.push(`reservedDecodeTokens must be an integer from 0 to 16777216, got ${c.reservedDecodeTokens}`);
  positiveInt('decodeRequestRows', c.decodeRequestRows, 1_000_000);
  if (c.prefillCapacityTokens < c.pageSize) problems.push('prefillCapacityTokens must hold at least one page');
  if (c.decodeCapacityTokens < c.pageSize) problems.push('decodeCapacityTokens must hold at least one page');
  for (const [k, v] of Object.entries(c.timing)) {
    if (v === undefined) continue;
    // Latencies may be 0 (at once); speeds and the handshake must be positive.
    const zeroOk = k === 'decodePollMs' || k === 'abortNoticeMs';
    if (!(typeof v === 'number' && Number.isFinite(v) && (v > 0 || (zeroOk && v === 0)))) problems.push(`timing.${k} must be a ${zeroOk ? 'non-negative' : 'positive'} number, got ${v}`);
  }
  if (!Number.isInteger(c.prefillChunkTokens) || c.prefillChunkTokens < 0 || c.prefillChunkTokens > 16_777_216) {
    problems.push(`prefillChunkTokens must be 0 (no chunked prefill) or an integer from 1 to 16777216, got ${c.prefillChunkTokens}`);
  }
  if (c.freeListPolicy !== 'sorted' && c.freeListPolicy !== 'staged') problems.push(`freeListPolicy must be "sorted" or "staged", got ${JSON.stringify(c.freeListPolicy)}`);
  if (c.decodeContextTokens !== undefined && (!Number.isInteger(c.decodeContextTokens) || c.decodeContextTokens < 1 || c.decodeContextTokens > 16_777_216)) problems.push(`decodeContextTokens must be an integer from 1 to 16777216, got ${c.decodeContextTokens}`);
  if (c.inputLimitMargin !== undefined && (!Number.isInteger(c.inputLimitMargin) || c.inputLimitMargin < 0 || c.inputLimitMargin > 4096)) problems.push(`inputLimitMargin must be an integer from 0 to 4096, got ${c.inputLimitMargin}`);
  if (c.disableOverlapSchedule !== undefined && typeof c.disableOverlapSchedule !== 'boolean') problems.push(`disableOverlapSchedule must be true or false, got ${JSON.stringify(c.disableOverlapSchedule)}`);
  if (c.tokenizerRule !== 'report' && c.tokenizerRule !== 'sglang') problems.push(`tokenizerRule must be "report" or "sglang", got ${JSON.stringify(c.tokenizerRule)}`);
  positiveInt('model.dim', c.model.dim, 256);
  if (!(c.model.sharpness > 0)) problems.push(`model.sharpness must be positive, got ${c.model.sharpness}`);
  if (!(c.model.repetitionPenalty >= 1)) problems.push(`model.repetitionPenalty must be at least 1, got ${c.model.repetitionPenalty}`);
  return problems;
}
