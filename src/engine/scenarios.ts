/** Built-in traces. Tenants, volumes and timings here are assumptions made for the demonstration. */
import type { Trace, TraceRequest } from './trace.ts';
import { TENANT_NAMES, TOPICS } from './core/vocab.ts';

/**
 * A warm cluster, then over-capacity prompts: twelve 200,000-token prompts from six tenants arrive
 * together, so decode reserves (and prefill then fills) most of both decode pools; five minutes
 * later one more tenant sends four prompts longer than the prefill cache, and one short one.
 */
export function matrixTrace(): Trace {
  const warmTenants = TENANT_NAMES.slice(0, 6);
  const requester = TENANT_NAMES[6]!;
  const requests: TraceRequest[] = [];
  for (let i = 0; i < 12; i++) {
    requests.push({ id: `warm-${i + 1}`, at: 0, tenant: warmTenants[i % warmTenants.length]!, promptTokens: 200_000 });
  }
  const longPrompts = [700_000, 850_000, 1_000_000, 1_048_576];
  longPrompts.forEach((n, i) => requests.push({ id: `long-${i + 1}`, at: 300_000 + i * 20_000, tenant: requester, promptTokens: n }));
  requests.push({ id: 'short-1', at: 400_000, tenant: requester, promptTokens: 3_000 });
  return {
    version: 1,
    name: 'matrix: warm cluster, then over-capacity prompts',
    tenants: [...warmTenants, requester].map((name, i) => ({ name, topic: TOPICS[i % TOPICS.length]!, canary: true })),
    requests,
  };
}

/** The demo's requests a walkthrough names: the last warm-up request, and the over-long prompt. */
/** The demo's named requests: `thirdTenantFirst` is the first warm-up request of the third tenant (cobalt). */
export const DEMO_REQUESTS = { lastWarm: 'warm-8', thirdTenantFirst: 'warm-3', overLong: 'long-1', short: 'short-1' } as const;

/**
 * The small trace the first page runs: three tenants' ordinary requests warm the pools, then one
 * over-long prompt. Small enough to simulate in the browser in well under a second.
 */
export function demoTrace(): Trace {
  const tenants = TENANT_NAMES.slice(0, 4);
  const requests: TraceRequest[] = [];
  for (let i = 0; i < 8; i++) {
    requests.push({ id: `warm-${i + 1}`, at: i * 1_000, tenant: tenants[i % 3]!, promptTokens: 120_000 + i * 10_000 });
  }
  if (requests[requests.length - 1]!.id !== DEMO_REQUESTS.lastWarm) throw new Error('demo: the last warm-up request is misnamed');
  if (requests.find((r) => r.tenant === tenants[2])?.id !== DEMO_REQUESTS.thirdTenantFirst) throw new Error('demo: the third tenant\'s first request is misnamed');
  requests.push({ id: DEMO_REQUESTS.overLong, at: 120_000, tenant: tenants[3]!, promptTokens: 800_000 });
  requests.push({ id: DEMO_REQUESTS.short, at: 125_000, tenant: tenants[3]!, promptTokens: 2_000 });
  return {
    version: 1,
    name: 'demo: three tenants warm the pools, a fourth sends an over-long prompt',
    tenants: tenants.map((name, i) => ({ name, topic: TOPICS[i % TOPICS.length]!, canary: true })),
    requests,
  };
}

/**
 * The abort-race design's timing (A15): decode notices a done message at its next step (one
 * decode step, 25 ms), and a decode-side abort takes 50 ms to reach prefill. The incident's runs
 * keep 0 and never cancel, so their logs are as they were.
 */
export const ABORT_RACE_TIMING = { decodePollMs: 25, abortNoticeMs: 50 } as const;

/**
 * Clients that cancel mid-transfer (the page-reuse race of SGLang PR #24578, closed), on the fixed reject path. Each
 * round, one tenant's 16,384-token prompt per decode node is cancelled at 650 ms, just before its
 * transfer; 5 ms later another tenant's one-page prompt reserves the pages decode has just freed.
 * Its own KV lands first; the cancelled prompt's transfer, posted before prefill hears of the abort,
 * lands next, while decode waits for its next poll. Two rounds, the second on pools already used.
 */
export function abortRaceTrace(): Trace {
  const [a, b, c, d] = TENANT_NAMES;
  const requests: TraceRequest[] = [];
  for (const [round, start] of [0, 5_000].entries()) {
    const n = round + 1;
    requests.push({ id: `cancelled-${n}a`, at: start, tenant: a!, promptTokens: 16_384, cancelAt: start + 650 });
    requests.push({ id: `cancelled-${n}b`, at: start, tenant: b!, promptTokens: 16_384, cancelAt: start + 650 });
    requests.push({ id: `next-${n}a`, at: start + 655, tenant: c!, promptTokens: 64 });
    requests.push({ id: `next-${n}b`, at: start + 655, tenant: d!, promptTokens: 64 });
  }
  return {
    version: 1,
    name: 'abort race: clients cancel mid-transfer, the next request reuses the pages',
    tenants: [a!, b!, c!, d!].map((name, i) => ({ name, topic: TOPICS[i % TOPICS.length]!, canary: true })),
    requests,
  };
}
