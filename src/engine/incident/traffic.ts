/**
 * The traffic model of the window 27 Aug 00:00 – 9 Sep 24:00 UTC. A model, not data: every choice
 * below names the assumption (assumptions.ts) it rests on. Seeded, so one seed gives one trace.
 */
import { ADVERTISED_CONTEXT_TOKENS, INCIDENT_PREFILL_CAPACITY_TOKENS } from '../config.ts';
import { Prng } from '../core/prng.ts';
import type { TenantSpec, Trace, TraceRequest } from '../trace.ts';
import { TENANT_NAMES, TOPICS } from '../core/vocab.ts';
import {
  DAY_MS,
  REPORTED_AFFECTED_RESPONSES,
  T_PRIVATE,
  T_RESEARCHER_DAY,
  T_CHECKS_DAY,
  T_WINDOW_END,
  WINDOW_START_ISO,
} from './timeline.ts';

/** Who sent a request, for the views and the audit; the engine never sees it. */
export const KIND_ORDINARY = 0;
/** A customer's prompt over the threshold (A5). */
export const KIND_LONG = 1;
export const KIND_RESEARCHER = 2;
export const KIND_REPRODUCTION = 3;
/** Part of a customer's batch job (A13). */
export const KIND_BATCH = 4;
export type RequestKind = typeof KIND_ORDINARY | typeof KIND_LONG | typeof KIND_RESEARCHER | typeof KIND_REPRODUCTION | typeof KIND_BATCH;
export const KIND_NAMES = ['ordinary', 'long-context customer', 'researcher', 'reproduction', 'batch job'] as const;

export interface TrafficOptions {
  seed: string;
  /** A1. */
  tenants: number;
  /** A2: ordinary requests per day, on average. */
  requestsPerDay: number;
  /** A1: tenant k sends in proportion to 1 / k^tenantSkew. */
  tenantSkew: number;
  /** A11: tokens generated per response. */
  outputTokens: number;
  /** A13: batch jobs per day (the first one early on 27 Aug), each of batchSize prompts at once. */
  batchesPerDay: number;
  batchSize: number;
  /** A5: prompts over the threshold before the model went private, tests included. */
  overThresholdBeforePrivate: number;
  /** A6, A7: place the researcher's and the reproduction's requests. */
  includeTests: boolean;
}

export const DEFAULT_TRAFFIC: TrafficOptions = {
  seed: 'incident-2026',
  tenants: 40, // A1
  requestsPerDay: 600, // A2
  tenantSkew: 0.5, // A1
  outputTokens: 32, // A11
  batchesPerDay: 1, // A13
  batchSize: 32, // A13
  overThresholdBeforePrivate: REPORTED_AFFECTED_RESPONSES, // A5, from F2
  includeTests: true, // A6, A7
};

/** A3: peak hour (UTC) and trough as a fraction of the peak. */
const PEAK_HOUR = 15;
const TROUGH_RATIO = 1 / 3;
/** A4. */
const PROMPT_MEDIAN = 3_000;
const PROMPT_SIGMA = 1.7;
const PROMPT_MIN = 16;
/** A5: the long prompts start after a few hours so the pools have been written at least once. */
const FIRST_LONG_NOT_BEFORE = 6 * 3_600_000;
/** A13: batch prompt lengths (uniform) and the first batch's latest start. */
const BATCH_MIN_TOKENS = 40_000;
const BATCH_MAX_TOKENS = 80_000;
const FIRST_BATCH_BEFORE = 5 * 3_600_000;

export const RESEARCHER = 'researcher';
export const VERIFY_VICTIM = 'verify-a';
export const VERIFY_PROBE = 'verify-b';
/** A6. */
const RESEARCHER_START = T_RESEARCHER_DAY + 8 * 3_600_000;
// The last one is the longest prompt the model accepted: its whole advertised context (F14).
const RESEARCHER_PROMPTS = [720_000, 900_000, ADVERTISED_CONTEXT_TOKENS];
/** A7: minutes after 12:40 on 9 Sep. */
const VERIFY_START = T_CHECKS_DAY + 12 * 3_600_000 + 40 * 60_000;

export interface IncidentTraffic {
  options: TrafficOptions;
  trace: Trace;
  /** Per request (same order as trace.requests, sorted by arrival): who sent it. */
  kinds: Uint8Array;
}

/** Relative arrival intensity at simulated time t, in (TROUGH_RATIO, 1]. */
export function dailyRhythm(t: number): number {
  const hour = (t % DAY_MS) / 3_600_000;
  const phase = Math.cos(((hour - PEAK_HOUR) / 24) * 2 * Math.PI);
  return TROUGH_RATIO + (1 - TROUGH_RATIO) * (phase + 1) / 2;
}

/** Inhomogeneous Poisson arrivals with intensity ratePerMs · dailyRhythm, by thinning. */
function poissonArrivals(rng: Prng, from: number, to: number, ratePerMs: number): number[] {
  const out: number[] = [];
  if (ratePerMs <= 0) return out;
  let t = from;
  for (;;) {
    t += -Math.log(1 - rng.next()) / ratePerMs;
    if (t >= to) return out;
    if (rng.next() < dailyRhythm(t)) out.push(t);
  }
}

/** One arrival time in [from, to) with density proportional to dailyRhythm. */
function rhythmTime(rng: Prng, from: number, to: number): number {
  for (;;) {
    const t = from + rng.next() * (to - from);
    if (rng.next() < dailyRhythm(t)) return t;
  }
}

function gaussian(rng: Prng): number {
  return Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
}

function ordinaryPromptLength(rng: Prng): number {
  const n = Math.round(PROMPT_MEDIAN * Math.exp(PROMPT_SIGMA * gaussian(rng)));
  return Math.min(INCIDENT_PREFILL_CAPACITY_TOKENS, Math.max(PROMPT_MIN, n));
}

/** A5: log-uniform over (681,280, 1,048,576]. */
function longPromptLength(rng: Prng): number {
  const lo = Math.log(INCIDENT_PREFILL_CAPACITY_TOKENS + 1);
  const hi = Math.log(ADVERTISED_CONTEXT_TOKENS);
  return Math.min(ADVERTISED_CONTEXT_TOKENS, Math.max(INCIDENT_PREFILL_CAPACITY_TOKENS + 1, Math.round(Math.exp(lo + rng.next() * (hi - lo)))));
}

/** Cumulative Zipf weights (A1), for drawing tenants. */
function tenantPicker(rng: Prng, names: readonly string[], skew: number): () => string {
  const cum: number[] = [];
  let total = 0;
  names.forEach((_, k) => cum.push((total += 1 / Math.pow(k + 1, skew))));
  return () => {
    const x = rng.next() * total;
    let lo = 0;
    let hi = cum.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cum[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return names[lo]!;
  };
}

export function trafficProblems(o: TrafficOptions): string[] {
  const p: string[] = [];
  if (!Number.isInteger(o.tenants) || o.tenants < 1 || o.tenants > TENANT_NAMES.length) p.push(`tenants must be an integer from 1 to ${TENANT_NAMES.length}, got ${o.tenants}`);
  if (!(Number.isFinite(o.tenantSkew) && o.tenantSkew >= 0 && o.tenantSkew <= 4)) p.push(`tenantSkew must be from 0 to 4, got ${o.tenantSkew}`);
  if (!Number.isInteger(o.outputTokens) || o.outputTokens < 2 || o.outputTokens > 256) p.push(`outputTokens must be an integer from 2 to 256, got ${o.outputTokens}`);
  if (!Number.isInteger(o.batchesPerDay) || o.batchesPerDay < 0 || o.batchesPerDay > 24) p.push(`batchesPerDay must be an integer from 0 to 24, got ${o.batchesPerDay}`);
  if (!Number.isInteger(o.batchSize) || o.batchSize < 0 || o.batchSize > 256) p.push(`batchSize must be an integer from 0 to 256, got ${o.batchSize}`);
  if (!(Number.isFinite(o.requestsPerDay) && o.requestsPerDay >= 0 && o.requestsPerDay <= 200_000)) p.push(`requestsPerDay must be from 0 to 200,000, got ${o.requestsPerDay}`);
  const tests = o.includeTests ? RESEARCHER_PROMPTS.length + 2 : 0;
  if (!Number.isInteger(o.overThresholdBeforePrivate) || o.overThresholdBeforePrivate < tests || o.overThresholdBeforePrivate > 10_000) {
    p.push(`overThresholdBeforePrivate must be an integer from ${tests} (the placed tests) to 10,000, got ${o.overThresholdBeforePrivate}`);
  }
  return p;
}

interface Draft extends TraceRequest {
  kind: RequestKind;
}

export function incidentTraffic(options: Partial<TrafficOptions> = {}): IncidentTraffic {
  const o: TrafficOptions = { ...DEFAULT_TRAFFIC, ...options };
  const problems = trafficProblems(o);
  if (problems.length > 0) throw new Error(`invalid traffic options: ${problems.join('; ')}`);
  const root = new Prng(`traffic:${o.seed}`);
  const customers = TENANT_NAMES.slice(0, o.tenants);
  const drafts: Draft[] = [];

  // Ordinary traffic over the whole window (A2, A3, A4); the rhythm's mean is (1 + TROUGH_RATIO) / 2.
  const arrivals = root.fork('ordinary-times');
  const lengths = root.fork('ordinary-lengths');
  const pickOrdinary = tenantPicker(root.fork('ordinary-tenants'), customers, o.tenantSkew);
  const meanRhythm = (1 + TROUGH_RATIO) / 2;
  for (const at of poissonArrivals(arrivals, 0, T_WINDOW_END, o.requestsPerDay / DAY_MS / meanRhythm)) {
    drafts.push({ at, tenant: pickOrdinary(), promptTokens: ordinaryPromptLength(lengths), kind: KIND_ORDINARY });
  }

  // Batch jobs (A13): a tenant submits batchSize documents within a second. Decode reserves pages
  // for all of them before prefill (FIFO, limited by its own pool) gets through them, so one batch
  // writes most pages of both decode pools.
  const batchRng = root.fork('batches');
  const pickBatch = tenantPicker(root.fork('batch-tenants'), customers, o.tenantSkew);
  const batchStarts: number[] = [];
  if (o.batchesPerDay > 0 && o.batchSize > 0) {
    batchStarts.push(rhythmTime(batchRng, 0, FIRST_BATCH_BEFORE));
    const days = Math.round(T_WINDOW_END / DAY_MS);
    const perDay = Math.round(o.batchesPerDay);
    for (let d = 0; d < days; d++) {
      for (let k = d === 0 ? 1 : 0; k < perDay; k++) batchStarts.push(rhythmTime(batchRng, d * DAY_MS, (d + 1) * DAY_MS));
    }
  }
  for (const start of batchStarts) {
    const tenant = pickBatch();
    for (let k = 0; k < o.batchSize; k++) {
      const promptTokens = BATCH_MIN_TOKENS + batchRng.int(BATCH_MAX_TOKENS - BATCH_MIN_TOKENS + 1);
      drafts.push({ at: start + batchRng.next() * 1_000, tenant, promptTokens, kind: KIND_BATCH });
    }
  }

  // Over-threshold prompts (A5): the tests are placed (A6, A7), the rest are customers'.
  const tests: Draft[] = [];
  if (o.includeTests) {
    RESEARCHER_PROMPTS.forEach((n, i) => tests.push({ id: `researcher-${i + 1}`, at: RESEARCHER_START + i * 12 * 60_000, tenant: RESEARCHER, promptTokens: n, kind: KIND_RESEARCHER }));
    tests.push({ id: 'verify-a-1', at: VERIFY_START, tenant: VERIFY_VICTIM, promptTokens: 400_000, kind: KIND_REPRODUCTION });
    tests.push({ id: 'verify-a-2', at: VERIFY_START + 60_000, tenant: VERIFY_VICTIM, promptTokens: 250_000, kind: KIND_REPRODUCTION });
    tests.push({ id: 'verify-b-1', at: VERIFY_START + 6 * 60_000, tenant: VERIFY_PROBE, promptTokens: 800_000, kind: KIND_REPRODUCTION });
    tests.push({ id: 'verify-b-2', at: VERIFY_START + 22 * 60_000, tenant: VERIFY_PROBE, promptTokens: 1_000_000, kind: KIND_REPRODUCTION });
  }
  const overTests = tests.filter((d) => d.promptTokens > INCIDENT_PREFILL_CAPACITY_TOKENS).length;
  const longCount = o.overThresholdBeforePrivate - overTests;
  const longTimes = root.fork('long-times');
  const longLengths = root.fork('long-lengths');
  const pickLong = tenantPicker(root.fork('long-tenants'), customers, o.tenantSkew);
  const times = Array.from({ length: longCount }, () => rhythmTime(longTimes, FIRST_LONG_NOT_BEFORE, T_PRIVATE)).sort((a, b) => a - b);
  // A5: the report's period starts on 27 Aug, so the first one falls on that day.
  if (times.length > 0 && times[0]! >= DAY_MS) times[0] = rhythmTime(longTimes, FIRST_LONG_NOT_BEFORE, DAY_MS);
  for (const at of times) drafts.push({ at, tenant: pickLong(), promptTokens: longPromptLength(longLengths), kind: KIND_LONG });
  // A10: after 14:00 they keep coming at the same average rate.
  const longRate = longCount / (T_PRIVATE - FIRST_LONG_NOT_BEFORE) / meanRhythm;
  for (const at of poissonArrivals(longTimes, T_PRIVATE, T_WINDOW_END, longRate)) {
    drafts.push({ at, tenant: pickLong(), promptTokens: longPromptLength(longLengths), kind: KIND_LONG });
  }
  drafts.push(...tests);

  // Millisecond arrivals, sorted; ties keep generation order (stable sort).
  for (const d of drafts) d.at = Math.floor(d.at);
  drafts.sort((a, b) => a.at - b.at);
  const offsets = root.fork('offsets');
  const requests: TraceRequest[] = drafts.map((d, i) => ({
    id: d.id ?? `q${String(i).padStart(6, '0')}`,
    at: d.at,
    tenant: d.tenant,
    promptTokens: d.promptTokens,
    offset: offsets.int(1 << 30),
    outputTokens: o.outputTokens,
  }));
  const tenantNames = [...customers, ...(o.includeTests ? [RESEARCHER, VERIFY_VICTIM, VERIFY_PROBE] : [])];
  const tenants: TenantSpec[] = tenantNames.map((name, i) => ({ name, topic: TOPICS[i % TOPICS.length]!, canary: true, canaryAtMentions: true }));
  return {
    options: o,
    trace: { version: 1, name: `incident window (model, seed ${o.seed})`, startTime: WINDOW_START_ISO, tenants, requests },
    kinds: Uint8Array.from(drafts.map((d) => d.kind)),
  };
}

/** Requests the model sends over the threshold before the model went private (for checks). */
export function countOverThresholdBeforePrivate(trace: Trace, threshold = INCIDENT_PREFILL_CAPACITY_TOKENS): number {
  return trace.requests.filter((r) => r.at < T_PRIVATE && r.promptTokens > threshold).length;
}

