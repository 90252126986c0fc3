/**
 * The microscope: the incident's mechanism at a size the real transformer prefills in seconds, so
 * that every leaked token can be traced to the pages and tenants its attention read. Tenants,
 * volumes and pool sizes are assumptions made for the demonstration (as the demo's are).
 *
 * Four tenants fill one small decode pool with prompts of hundreds to about two thousand tokens;
 * then a fifth sends a prompt longer than the prefill cache: the buggy reject path computes one
 * placeholder token and decode reads the rest of its 188 pages as they were left. A short request
 * after it is served normally.
 */
import { INCIDENT_CONFIG, withOverrides, type EngineConfig } from './config.ts';
import { demoTrace } from './scenarios.ts';
import type { Trace, TraceRequest } from './trace.ts';
import { TENANT_NAMES, TOPICS } from './core/vocab.ts';

/** 16-token pages, a 2,048-token prefill cache, one 4,096-token decode pool. Model, not the incident's figures. */
export const MICROSCOPE_CONFIG: EngineConfig = withOverrides(INCIDENT_CONFIG, {
  prefillNodes: 1,
  decodeNodes: 1,
  pageSize: 16,
  advertisedContextTokens: 8192,
  prefillCapacityTokens: 2048,
  decodeCapacityTokens: 4096,
  outputTokens: 16,
  // SGLang's 512 reserved decode tokens would be a sixth of this pool: one page a request here (model).
  reservedDecodeTokens: 16,
});

export const MICROSCOPE_REQUESTS = { overLong: 'long-1', short: 'short-1' } as const;

export function microscopeTrace(): Trace {
  const [a, b, c, d, e] = TENANT_NAMES as unknown as [string, string, string, string, string];
  // Three waves; each wave's prompts are held together, so they lie side by side in the pool and
  // the next wave overwrites only part of what the last one left.
  const waves: [string, number][][] = [
    [[a, 1900], [b, 1400]],
    [[c, 1100], [d, 700], [a, 1600]],
    [[b, 500], [d, 2000]],
  ];
  const requests: TraceRequest[] = [];
  waves.forEach((wave, w) => wave.forEach(([tenant, promptTokens]) => requests.push({ id: `warm-${requests.length + 1}`, at: w * 2_000, tenant, promptTokens })));
  requests.push({ id: MICROSCOPE_REQUESTS.overLong, at: 20_000, tenant: e, promptTokens: 3000 });
  requests.push({ id: MICROSCOPE_REQUESTS.short, at: 25_000, tenant: e, promptTokens: 600 });
  return {
    version: 1,
    name: 'microscope: four tenants fill a small pool, a fifth sends an over-long prompt',
    tenants: [a, b, c, d, e].map((name, i) => ({ name, topic: TOPICS[i % TOPICS.length]!, canary: true })),
    requests,
  };
}

/**
 * The demo (scenarios.ts) at 1/`divisor` of its prompt lengths and pool sizes, with 16-token pages,
 * and prefill and the transfer 1/`divisor` as fast, so that every request takes as long as at full
 * scale: the same requests overlap in the pools, and the over-long prompt's pages hold the same
 * tenants' leftovers in the same proportions (a faster small run would finish each warm-up request
 * before the next arrived, and each would overwrite the last one's pages). Small enough for the
 * transformer's prefill; what the test holding both decoders to the same verdicts runs.
 */
export function scaledDemo(divisor = 100): { config: EngineConfig; trace: Trace } {
  const demo = demoTrace();
  const scale = (n: number) => Math.max(1, Math.round(n / divisor));
  const timing = INCIDENT_CONFIG.timing;
  return {
    trace: { ...demo, name: `${demo.name} (1/${divisor} scale)`, requests: demo.requests.map((r) => ({ ...r, promptTokens: scale(r.promptTokens) })) },
    config: withOverrides(INCIDENT_CONFIG, {
      pageSize: 16,
      advertisedContextTokens: scale(INCIDENT_CONFIG.advertisedContextTokens),
      prefillCapacityTokens: scale(INCIDENT_CONFIG.prefillCapacityTokens),
      decodeCapacityTokens: scale(INCIDENT_CONFIG.decodeCapacityTokens),
      timing: { prefillTokensPerSecond: timing.prefillTokensPerSecond / divisor, transferTokensPerSecond: timing.transferTokensPerSecond / divisor },
    }),
  };
}
