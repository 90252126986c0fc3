import { describe, expect, it } from 'vitest';
import type { LeakRecord } from '../run.ts';
import { SHARE_OWN, SHARE_ZERO, tenantShares } from './shares.ts';

const leak = (tenant: string, stale: [string, number][], zero: number, writers: (string | null)[]): LeakRecord => ({
  request: 0, id: 'x', tenant, kind: 0, arrivedAt: 0, finishedAt: 0, promptTokens: 0, status: 200, dataOf: [], canaries: [], text: '',
  stalePages: 0, foreignPages: 0, zeroPages: 0, pagesReserved: 0, staleSlotsByTenant: stale, zeroSlotsRead: zero, tokenWriters: writers,
});

describe('tenantShares', () => {
  it('sets each tenant\u2019s share of stale slots beside its share of output tokens, the requester\u2019s own and zeros apart', () => {
    const table = tenantShares([
      leak('cobalt', [['acme', 600], ['cobalt', 100]], 300, ['acme', 'acme', 'cobalt', null]),
      leak('acme', [['acme', 200], ['borealis', 800]], 0, ['borealis', 'borealis', 'borealis', 'acme']),
    ]);
    expect(table).toMatchObject({ leaks: 2, staleSlots: 2000, outputTokens: 8 });
    expect(table.rows.map((r) => [r.tenant, r.staleSlots, r.staleShare, r.outputTokens, r.tokenShare, r.responses])).toEqual([
      ['borealis', 800, 0.4, 3, 0.375, 1],
      ['acme', 600, 0.3, 2, 0.25, 1],
      [SHARE_OWN, 300, 0.15, 2, 0.25, 2],
      [SHARE_ZERO, 300, 0.15, 1, 0.125, 1],
    ]);
  });

  it('is empty without leaks', () => {
    expect(tenantShares([])).toEqual({ leaks: 0, staleSlots: 0, outputTokens: 0, rows: [] });
  });
});
