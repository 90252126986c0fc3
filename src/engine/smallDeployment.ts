/**
 * A scaled-down incident deployment (same shape, small numbers) for property tests, so that they
 * run many workloads fast: one definition for every test that needs it.
 */
import { INCIDENT_CONFIG, withOverrides, type ConfigOverrides, type EngineConfig } from './config.ts';

export const SMALL: EngineConfig = withOverrides(INCIDENT_CONFIG, {
  pageSize: 16,
  advertisedContextTokens: 4096,
  prefillCapacityTokens: 2048,
  decodeCapacityTokens: 6144,
  outputTokens: 10,
  // SGLang's 512 reserved decode tokens would be a sixth of this pool: one page a request here (model).
  reservedDecodeTokens: 16,
});

export const small = (o: ConfigOverrides = {}): EngineConfig => withOverrides(SMALL, o);

/** The small deployment's prefill cache in tokens: a prompt longer than this is over-long. */
export const OVER = SMALL.prefillCapacityTokens;
