import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FIXED_CONFIG, INCIDENT_CONFIG, INCIDENT_PREFILL_CAPACITY_TOKENS, withOverrides } from '../config.ts';
import type { TraceRequest } from '../trace.ts';
import { FLAG_INTEGRITY_BREACH, FLAG_LEAK_CANARY, FLAG_LEAK_PROVENANCE, FLAG_WRONG_OUTPUT } from '../run.ts';
import { PRIVATE_WINDOW_STATUS, replayIncident, type IncidentReplayResult } from './replay.ts';
import { SHARE_OWN, SHARE_ZERO, tenantShares } from './shares.ts';
import { T_PRIVATE, T_PUBLIC, T_WINDOW_END } from './timeline.ts';
import { KIND_LONG, KIND_ORDINARY, KIND_REPRODUCTION, KIND_RESEARCHER, incidentTraffic, type IncidentTraffic, type TrafficOptions } from './traffic.ts';

const THRESHOLD = INCIDENT_PREFILL_CAPACITY_TOKENS;

/** A small window: few requests, few long prompts, small batches; every mechanism still present. */
const SMALL: Partial<TrafficOptions> = { requestsPerDay: 60, overThresholdBeforePrivate: 24, batchSize: 12, seed: 'small' };

/** Rebuilds a traffic with its requests changed, re-sorted by arrival (kinds follow their request). */
function alter(traffic: IncidentTraffic, change: (rows: { r: TraceRequest; kind: number }[]) => void): IncidentTraffic {
  const rows = traffic.trace.requests.map((r, i) => ({ r: { ...r }, kind: traffic.kinds[i]! }));
  change(rows);
  rows.sort((a, b) => a.r.at - b.r.at);
  return { options: traffic.options, trace: { ...traffic.trace, requests: rows.map((x) => x.r) }, kinds: Uint8Array.from(rows.map((x) => x.kind)) };
}

function leakedIds(r: IncidentReplayResult): string[] {
  return r.leaks.map((l) => l.id).sort();
}

function overBeforePrivate(t: IncidentTraffic): string[] {
  return t.trace.requests.filter((r) => r.at < T_PRIVATE && r.promptTokens > THRESHOLD).map((r) => r.id!).sort();
}

describe('incident replay, default traffic (the whole window)', () => {
  const result = replayIncident({ record: false });
  const c = result.counts;

  it('measures 155 leaked responses, found by the provenance audit and by the canary scan', () => {
    expect(c.overThresholdBeforePrivate).toBe(155);
    expect(c.leakedByProvenance).toBe(155);
    expect(c.leakedByCanary).toBe(155);
    expect(c.leakedByBoth).toBe(155);
    expect(result.leaks).toHaveLength(155);
  });

  it('every leak is an over-threshold prompt answered 200 before 14:00; none after 19:40', () => {
    for (const l of result.leaks) {
      expect(l.promptTokens).toBeGreaterThan(THRESHOLD);
      expect(l.status).toBe(200);
      expect(l.arrivedAt).toBeLessThan(T_PRIVATE);
      expect(l.dataOf.length).toBeGreaterThan(0);
      expect(l.dataOf).not.toContain(l.tenant);
    }
    expect(c.leakedAfterPublic).toBe(0);
    expect(c.leakedAtOrUnderThreshold).toBe(0);
  });

  it('fails every request of 14:00–19:40 at the gateway, and serves long prompts after 19:40 without a leak', () => {
    expect(c.privateWindowRequests).toBeGreaterThan(0);
    expect(c.privateWindowFailed).toBe(c.privateWindowRequests);
    const t = result.requests;
    for (let i = 0; i < t.count; i++) {
      const at = t.arrivedAt[i]!;
      if (at >= T_PRIVATE && at < T_PUBLIC) expect(t.status[i]).toBe(PRIVATE_WINDOW_STATUS);
      else expect(t.status[i]).toBe(200);
    }
    expect(c.overThresholdAfterPublic).toBeGreaterThan(0);
  });

  it("includes the researcher's and the reproduction's requests among the 155 (A6, A7)", () => {
    expect(result.leaks.filter((l) => l.kind === KIND_RESEARCHER)).toHaveLength(3);
    expect(result.leaks.filter((l) => l.kind === KIND_REPRODUCTION)).toHaveLength(2);
  });

  it('docs/MODEL.md\u2019s whole-window table says what this replay measures (its default column, read from the file)', () => {
    // The engine's side of Node's file system is the test's: the engine itself reads nothing.
    const doc = readFileSync(new URL('../../../docs/MODEL.md', import.meta.url), 'utf8');
    const cell = (row: string) => {
      const line = doc.split('\n').find((l) => l.trimStart().startsWith(`| ${row} |`));
      expect(line, row).toBeDefined();
      // Columns: before | T − 1 steps | default (T steps) | sorted.
      return line!.split('|').map((x) => x.trim())[4]!;
    };
    const num = (x: string) => Number(x.replace(/,/g, ''));
    const stale = result.leaks.reduce((n, l) => n + l.staleSlotsByTenant.reduce((m, [, k]) => m + k, 0) + l.zeroSlotsRead, 0);
    const zeros = result.leaks.reduce((n, l) => n + l.zeroSlotsRead, 0);
    const tenants = new Set(result.leaks.flatMap((l) => l.dataOf));
    expect({
      leaked: num(cell('leaked (provenance; the same 155 requests)')),
      stale: num(cell('stale slots the 155 read')),
      zeros: num(cell('of them zeros (never written)')),
      tenants: cell('tenants whose data leaked'),
    }).toEqual({ leaked: result.leaks.length, stale, zeros, tenants: `${tenants.size} of ${result.tenantNames.length}` });
    // And its "whose data shows" table (what `simulate --scenario incident` prints), row by row as written.
    const shares = tenantShares(result.leaks);
    const written = doc
      .split('\n')
      .map((l) => /^ {2}(\S+)\s+([\d,]+)\s+([\d.]+)%\s+([\d,]+)\s+([\d.]+)%\s+([\d,]+)\s*$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ tenant: m[1]!, staleSlots: num(m[2]!), outputTokens: num(m[4]!), responses: num(m[6]!) }));
    expect(written.length).toBeGreaterThanOrEqual(5);
    for (const w of written) {
      const row = shares.rows.find((r) => r.tenant === w.tenant);
      expect(row && { tenant: row.tenant, staleSlots: row.staleSlots, outputTokens: row.outputTokens, responses: row.responses }, w.tenant).toEqual(w);
    }
  });

  it('keeps the decode pools warm: long reads see other requests\u2019 pages, rarely zeros', () => {
    for (const l of result.leaks) expect(l.zeroPages / l.pagesReserved).toBeLessThan(0.25);
  });

  it('counts every slot a leaking read did not write: all of them but the placeholder\u2019s', () => {
    for (const l of result.leaks) {
      const stale = l.staleSlotsByTenant.reduce((n, [, k]) => n + k, 0);
      expect(stale + l.zeroSlotsRead).toBe(l.promptTokens - 1);
      expect(l.tokenWriters).toHaveLength(32);
      for (const [tenant] of l.staleSlotsByTenant) expect(result.tenantNames).toContain(tenant);
    }
  });

  it('whose data shows follows what memory held: each tenant\u2019s share of leaked tokens is within 5 points of its share of the stale slots read', () => {
    const table = tenantShares(result.leaks);
    expect(table.leaks).toBe(155);
    expect(table.outputTokens).toBe(155 * 32);
    expect(table.staleSlots).toBe(result.leaks.reduce((n, l) => n + l.promptTokens - 1, 0));
    expect(table.rows.reduce((n, r) => n + r.staleShare, 0)).toBeCloseTo(1, 9);
    expect(table.rows.reduce((n, r) => n + r.tokenShare, 0)).toBeCloseTo(1, 9);
    for (const r of table.rows) expect(Math.abs(r.tokenShare - r.staleShare), r.tenant).toBeLessThan(0.05);
    // The busiest tenant's leftovers are the most read, and the most shown.
    expect(table.rows[0]!.tenant).toBe('acme');
    expect([...table.rows].sort((a, b) => b.outputTokens - a.outputTokens)[0]!.tenant).toBe('acme');
    expect(table.rows.map((r) => r.tenant)).toEqual(expect.arrayContaining([SHARE_OWN, SHARE_ZERO]));
  });
});

describe('incident replay follows the mechanism when the trace changes', () => {
  const base = incidentTraffic(SMALL);
  const baseResult = replayIncident({ traffic: base, record: false });

  it('leaks exactly the over-threshold prompts sent before 14:00', () => {
    expect(baseResult.counts.overThresholdBeforePrivate).toBe(24);
    expect(leakedIds(baseResult)).toEqual(overBeforePrivate(base));
  });

  it('moving long prompts into the private window removes their leaks: they fail 403', () => {
    const moved: string[] = [];
    const changed = alter(base, (rows) => {
      for (const x of rows.filter((x) => x.kind === KIND_LONG && x.r.at < T_PRIVATE).slice(0, 5)) {
        x.r.at = T_PRIVATE + 60_000 * (moved.length + 1);
        moved.push(x.r.id!);
      }
    });
    const r = replayIncident({ traffic: changed, record: false });
    expect(r.leaks).toHaveLength(baseResult.leaks.length - 5);
    expect(leakedIds(r)).toEqual(overBeforePrivate(changed));
    for (const id of moved) expect(r.requests.status[r.requestIds.indexOf(id)]).toBe(PRIVATE_WINDOW_STATUS);
  });

  it('making a short prompt long adds a leak; making a long one short removes one', () => {
    let grown = '';
    let shrunk = '';
    const changed = alter(base, (rows) => {
      const short = rows.find((x) => x.kind === KIND_ORDINARY && x.r.at > 3 * 86_400_000 && x.r.at < T_PRIVATE)!;
      short.r.promptTokens = 900_000;
      grown = short.r.id!;
      const long = rows.find((x) => x.kind === KIND_LONG && x.r.at > 5 * 86_400_000 && x.r.at < T_PRIVATE)!;
      long.r.promptTokens = 500_000;
      shrunk = long.r.id!;
    });
    const r = replayIncident({ traffic: changed, record: false });
    const ids = leakedIds(r);
    expect(ids).toContain(grown);
    expect(ids).not.toContain(shrunk);
    expect(ids).toEqual(overBeforePrivate(changed));
  });

  it('a long prompt after 19:40 is served correctly by the fixed deployment', () => {
    const changed = alter(base, (rows) => {
      const long = rows.find((x) => x.kind === KIND_LONG && x.r.at < T_PRIVATE)!;
      long.r.at = T_PUBLIC + 30 * 60_000;
    });
    const r = replayIncident({ traffic: changed, record: false });
    expect(r.leaks).toHaveLength(baseResult.leaks.length - 1);
    expect(r.counts.leakedAfterPublic).toBe(0);
    expect(r.counts.overThresholdAfterPublic).toBe(baseResult.counts.overThresholdAfterPublic + 1);
  });

  it('another seed gives another trace, and the count still follows the prompts', () => {
    const other = incidentTraffic({ ...SMALL, seed: 'another seed', overThresholdBeforePrivate: 17 });
    const r = replayIncident({ traffic: other, record: false });
    expect(r.eventLogHashes.incident).not.toBe(baseResult.eventLogHashes.incident);
    expect(leakedIds(r)).toEqual(overBeforePrivate(other));
    expect(r.leaks).toHaveLength(17);
  });

  it('with cold pools (no other traffic at all) the long prompts are wrong, and show no data but what an earlier long prompt\'s answer wrote', () => {
    const cold = alter(base, (rows) => rows.splice(0, rows.length, ...rows.filter((x) => x.r.promptTokens > THRESHOLD && x.kind === KIND_LONG).slice(0, 3)));
    const r = replayIncident({ traffic: cold, record: false });
    // The first reads zeros and its own placeholder; a later one may read the pages where an earlier
    // one's decode steps wrote its (garbage) answer, freed with it: that tenant's, and nobody else's.
    const sent = cold.trace.requests;
    expect(r.leaks.map((l) => l.id)).not.toContain(sent[0]!.id);
    for (const l of r.leaks) {
      const earlier = sent.slice(0, sent.findIndex((x) => x.id === l.id)).map((x) => x.tenant);
      for (const owner of l.dataOf) expect(earlier).toContain(owner);
    }
    expect(r.counts.wrongOutput).toBe(3);
    // Zeros are memory the requests did not write: each is a breach, apart from its wrong text.
    expect(r.counts.integrityBreaches).toBe(3);
  });

  it('is deterministic, and the engine shortcuts change nothing', () => {
    const again = replayIncident({ traffic: base, record: false });
    expect(again.eventLogHashes).toEqual(baseResult.eventLogHashes);
    const exact = replayIncident({ traffic: alter(base, (rows) => rows.splice(0, rows.length, ...rows.filter((x) => x.r.at < 2 * 86_400_000))), record: false, shortcuts: false });
    const fast = replayIncident({ traffic: alter(base, (rows) => rows.splice(0, rows.length, ...rows.filter((x) => x.r.at < 2 * 86_400_000))), record: false, shortcuts: true });
    expect(fast.eventLogHashes).toEqual(exact.eventLogHashes);
    expect(fast.leaks.length).toBeGreaterThan(0);
    expect(fast.leaks).toEqual(exact.leaks);
    expect(fast.counts).toEqual(exact.counts);
    expect(Array.from(fast.requests.flags)).toEqual(Array.from(exact.requests.flags));
  });

  it("the lowest-id-first simplification: the same requests leak as under SGLang's free list, over other pages (docs/MODEL.md measures the whole window)", () => {
    const sorted = (c: typeof INCIDENT_CONFIG) => withOverrides(c, { freeListPolicy: 'sorted' });
    const r = replayIncident({ traffic: base, record: false, incidentConfig: sorted(INCIDENT_CONFIG), fixedConfig: sorted(FIXED_CONFIG) });
    expect(leakedIds(r)).toEqual(leakedIds(baseResult));
    expect(r.counts.integrityBreaches).toBe(baseResult.counts.integrityBreaches);
    expect(r.eventLogHashes.incident).not.toBe(baseResult.eventLogHashes.incident);
    // Which pages a request gets changes, and with them whose data it reads.
    const pagesOf = (x: IncidentReplayResult) => x.leaks.map((l) => `${l.id}:${l.foreignPages}:${l.zeroPages}:${l.dataOf.join()}`);
    expect(pagesOf(r)).not.toEqual(pagesOf(baseResult));
  });

  it('counts breaches and wrong texts apart: every leak and every wrong text is a breach', () => {
    const c = baseResult.counts;
    expect(c.integrityBreaches).toBeGreaterThanOrEqual(c.leakedByProvenance);
    expect(c.integrityBreaches).toBeGreaterThanOrEqual(c.wrongOutput);
    baseResult.requests.flags.forEach((f) => {
      if (f & (FLAG_LEAK_PROVENANCE | FLAG_WRONG_OUTPUT)) expect(f & FLAG_INTEGRITY_BREACH).toBe(FLAG_INTEGRITY_BREACH);
    });
  });

  it('flags agree with the leak list', () => {
    const flagged = Array.from(baseResult.requests.flags).filter((f) => (f & (FLAG_LEAK_CANARY | FLAG_LEAK_PROVENANCE)) !== 0).length;
    expect(flagged).toBe(baseResult.leaks.length);
    expect(T_WINDOW_END).toBe(14 * 86_400_000);
  });
});
