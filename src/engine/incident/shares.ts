/**
 * How the decode model picks whose data shows: for the leaking responses of a replay, each tenant's
 * share of the stale slots they read (ground truth from the slot writers at read time) against its
 * share of their output tokens (by provenance: whose KV each token drew on most). Two extra rows: the
 * requester's own earlier KV (same-tenant reuse, not a leak) and zero memory (nobody's data).
 */
import type { LeakRecord } from '../run.ts';

export const SHARE_OWN = '(requester\'s own earlier KV)';
export const SHARE_ZERO = '(zero memory)';

export interface TenantShare {
  /** A tenant's name, SHARE_OWN or SHARE_ZERO. */
  tenant: string;
  staleSlots: number;
  staleShare: number;
  outputTokens: number;
  tokenShare: number;
  /** Leaking responses whose output drew on this tenant at least once. */
  responses: number;
}

export interface ShareTable {
  leaks: number;
  staleSlots: number;
  outputTokens: number;
  /** Sorted by stale share, then token share, then name; tenants with neither are left out. */
  rows: TenantShare[];
}

export function tenantShares(leaks: readonly LeakRecord[]): ShareTable {
  const rows = new Map<string, TenantShare>();
  const row = (tenant: string) => {
    let r = rows.get(tenant);
    if (!r) rows.set(tenant, (r = { tenant, staleSlots: 0, staleShare: 0, outputTokens: 0, tokenShare: 0, responses: 0 }));
    return r;
  };
  let slots = 0;
  let tokens = 0;
  for (const l of leaks) {
    for (const [tenant, n] of l.staleSlotsByTenant) {
      row(tenant === l.tenant ? SHARE_OWN : tenant).staleSlots += n;
      slots += n;
    }
    if (l.zeroSlotsRead > 0) {
      row(SHARE_ZERO).staleSlots += l.zeroSlotsRead;
      slots += l.zeroSlotsRead;
    }
    const seen = new Set<string>();
    for (const w of l.tokenWriters) {
      const key = w === null ? SHARE_ZERO : w === l.tenant ? SHARE_OWN : w;
      row(key).outputTokens++;
      seen.add(key);
      tokens++;
    }
    for (const key of seen) row(key).responses++;
  }
  for (const r of rows.values()) {
    r.staleShare = slots > 0 ? r.staleSlots / slots : 0;
    r.tokenShare = tokens > 0 ? r.outputTokens / tokens : 0;
  }
  const sorted = [...rows.values()].sort((a, b) => b.staleSlots - a.staleSlots || b.outputTokens - a.outputTokens || (a.tenant < b.tenant ? -1 : 1));
  return { leaks: leaks.length, staleSlots: slots, outputTokens: tokens, rows: sorted };
}
