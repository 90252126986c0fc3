import { describe, expect, it } from 'vitest';
import { ADVERTISED_CONTEXT_TOKENS, INCIDENT_PREFILL_CAPACITY_TOKENS } from '../config.ts';
import { parseTrace } from '../schema.ts';
import { ASSUMPTIONS } from './assumptions.ts';
import { DAY_MS, T_PRIVATE, T_PUBLIC, T_WINDOW_END } from './timeline.ts';
import { DEFAULT_TRAFFIC, KIND_REPRODUCTION, KIND_RESEARCHER, countOverThresholdBeforePrivate, incidentTraffic } from './traffic.ts';

describe('incident traffic model', () => {
  const traffic = incidentTraffic();
  const reqs = traffic.trace.requests;

  it('is a valid, sorted trace over 27 Aug 00:00 – 9 Sep 24:00', () => {
    expect(() => parseTrace(traffic.trace, 'incident')).not.toThrow();
    for (let i = 1; i < reqs.length; i++) expect(reqs[i]!.at).toBeGreaterThanOrEqual(reqs[i - 1]!.at);
    expect(reqs[0]!.at).toBeGreaterThanOrEqual(0);
    expect(reqs[reqs.length - 1]!.at).toBeLessThan(T_WINDOW_END);
    expect(traffic.trace.tenants.length).toBe(DEFAULT_TRAFFIC.tenants + 3);
  });

  it('sends exactly 155 prompts between 681,280 and 1,048,576 tokens before 14:00 on 9 Sep, the first on 27 Aug', () => {
    expect(countOverThresholdBeforePrivate(traffic.trace)).toBe(155);
    const long = reqs.filter((r) => r.promptTokens > INCIDENT_PREFILL_CAPACITY_TOKENS);
    for (const r of long) expect(r.promptTokens).toBeLessThanOrEqual(ADVERTISED_CONTEXT_TOKENS);
    expect(long[0]!.at).toBeLessThan(DAY_MS);
    const days = new Set(long.filter((r) => r.at < T_PRIVATE).map((r) => Math.floor(r.at / DAY_MS)));
    expect(days.size).toBeGreaterThanOrEqual(12);
  });

  it("places the researcher's requests on 8 Sep and the reproduction before 13:22 on 9 Sep, under 25 minutes", () => {
    const researcher = reqs.filter((_, i) => traffic.kinds[i] === KIND_RESEARCHER);
    expect(researcher.map((r) => Math.floor(r.at / DAY_MS))).toEqual([12, 12, 12]);
    const repro = reqs.filter((_, i) => traffic.kinds[i] === KIND_REPRODUCTION);
    const span = repro[repro.length - 1]!.at - repro[0]!.at;
    expect(span).toBeLessThan(25 * 60_000);
    for (const r of repro) expect(r.at).toBeLessThan(13 * DAY_MS + (13 * 60 + 22) * 60_000);
  });

  it('follows a daily rhythm and the requested volume', () => {
    const byHour = new Array(24).fill(0);
    for (const r of reqs) byHour[Math.floor((r.at % DAY_MS) / 3_600_000)]++;
    expect(byHour[15]).toBeGreaterThan(2 * byHour[3]);
    const double = incidentTraffic({ requestsPerDay: DEFAULT_TRAFFIC.requestsPerDay * 2 });
    expect(double.trace.requests.length / reqs.length).toBeGreaterThan(1.7);
    expect(incidentTraffic({ tenants: 10 }).trace.tenants).toHaveLength(13);
  });

  it('is seeded', () => {
    expect(incidentTraffic().trace).toEqual(traffic.trace);
    expect(incidentTraffic({ seed: 'other' }).trace.requests[0]).not.toEqual(reqs[0]);
  });

  it('keeps sending long prompts after 14:00 (A10)', () => {
    expect(reqs.some((r) => r.at >= T_PUBLIC && r.promptTokens > INCIDENT_PREFILL_CAPACITY_TOKENS)).toBe(true);
  });

  it('states its defaults in the assumptions it names', () => {
    const text = (id: string) => ASSUMPTIONS.find((a) => a.id === id)!.en;
    expect(text('A1')).toContain(`${DEFAULT_TRAFFIC.tenants} tenants`);
    expect(text('A2')).toContain(DEFAULT_TRAFFIC.requestsPerDay.toLocaleString('en-US'));
    expect(text('A11')).toContain(`${DEFAULT_TRAFFIC.outputTokens} output tokens`);
    expect(text('A13')).toContain(`${DEFAULT_TRAFFIC.batchSize} documents`);
    expect(new Set(ASSUMPTIONS.map((a) => a.id)).size).toBe(ASSUMPTIONS.length);
  });

  it('rejects impossible options', () => {
    expect(() => incidentTraffic({ tenants: 0 })).toThrow(/tenants/);
    expect(() => incidentTraffic({ overThresholdBeforePrivate: 2 })).toThrow(/overThresholdBeforePrivate/);
  });
});
