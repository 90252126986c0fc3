/**
 * The configurations `npm run verify` checks, each with the verdict it is expected to reach.
 * Sizes are the smallest that still show the mechanism: prefill holds 2 pages, the advertised
 * context is 3, decode holds 3 (larger than prefill, as in the incident).
 */
import { NO_MITIGATIONS, type Mitigations } from '../config.ts';
import { SWITCHES, designOf, type Switch } from '../switches.ts';
import type { ProtocolConfig, RequestSpec } from './model.ts';
import type { PropertyId } from './explore.ts';

/**
 * Two 2-page requests of tenant 1 and an over-limit 3-page request of tenant 2. Every request B
 * could follow wrote whole decode pages, so a leak shows both ways stale KV reaches B: the
 * placeholder page's stale slots and the pages behind it.
 */
export const REQUESTS: RequestSpec[] = [
  { name: 'A', tenant: 1, pages: 2 },
  { name: 'B', tenant: 2, pages: 3 },
  { name: 'C', tenant: 1, pages: 2 },
];

/**
 * For the decode-abort race: two 1-page requests of different tenants, so prefill (2 pages) can work
 * on the next request while an aborted one still has writes to post. With 2-page requests the
 * small prefill pool would serialise them and hide the race.
 */
export const RACE_REQUESTS: RequestSpec[] = [
  { name: 'A', tenant: 1, pages: 1 },
  { name: 'B', tenant: 2, pages: 3 },
  { name: 'C', tenant: 2, pages: 1 },
];

/** Advertised context 3 pages, prefill cache 2: the gap the report says was known before launch. */
const GAP = { advertisedPages: 3, prefillPages: 2, decodePages: 3 } as const;

function config(id: string, title: string, over: Partial<Omit<ProtocolConfig, 'mitigations'>> & { mitigations?: Mitigations }): ProtocolConfig {
  return {
    id,
    title,
    rejectPath: 'buggy',
    ...GAP,
    requests: REQUESTS,
    decodeAbort: false,
    mutation: 'none',
    ...over,
    mitigations: { ...NO_MITIGATIONS, ...over.mitigations },
  };
}

export interface CheckedConfig {
  config: ProtocolConfig;
  /** Properties expected to hold; the rest are expected to be violated. */
  expectHolds: Record<PropertyId, boolean>;
  /** Why this configuration is here, in a sentence. */
  note: string;
}

const SAFE = { confidentiality: true, integrity: true, exclusiveOwnership: true } as const;
const LEAKS = { confidentiality: false, integrity: false, exclusiveOwnership: true } as const;

/**
 * The incident, then each switch of the registry set to its fix (its protocol counterpart), then the
 * upstream mechanics that are not switches of the simulation.
 */
export const CHECKED_CONFIGS: CheckedConfig[] = [
  {
    config: config('incident', 'Buggy reject path, capacity gap (the incident)', {}),
    expectHolds: LEAKS,
    note: 'Both defects: the over-limit request is forwarded with a placeholder and decode reads stale pages.',
  },
  ...(SWITCHES as readonly Switch[]).map((s) => ({
    // The abort-race design has its own requests: see RACE_REQUESTS.
    config: config(s.protocol.id, s.protocol.title, designOf(s.key) === 'abort-race' ? { requests: RACE_REQUESTS, ...s.protocol.overrides } : s.protocol.overrides),
    expectHolds: s.protocol.expectHolds,
    note: s.protocol.note,
  })),
  {
    config: config('unchunked', 'Buggy reject path, capacity gap, each prompt computed and sent in one step', { chunkPages: 'whole' }),
    expectHolds: LEAKS,
    note: 'The engine\'s default without chunked prefill: prefill sends a prompt\'s pages at once when it has computed them all.',
  },
  {
    config: config('abort-race', 'Fixed path + gap + decode abort, late writes not fenced', { rejectPath: 'fixed', decodeAbort: true, requests: RACE_REQUESTS }),
    expectHolds: LEAKS,
    note: 'A client cancels mid-transfer; decode frees the pages at once and late RDMA writes land in their next owner (the page-reuse race of SGLang PR #24578, closed; we have not checked how it fences late writes).',
  },
  {
    config: config('abort-race-per-read', 'Fixed path + gap + unfenced decode abort + per-read check', {
      rejectPath: 'fixed',
      decodeAbort: true,
      requests: RACE_REQUESTS,
      mitigations: { perReadIntegrityCheck: true },
    }),
    expectHolds: SAFE,
    note: 'A late write re-tags the page it lands in, so the victim\'s per-read check fails closed.',
  },
];

export function checkedConfig(id: string): CheckedConfig | undefined {
  return CHECKED_CONFIGS.find((c) => c.config.id === id);
}
