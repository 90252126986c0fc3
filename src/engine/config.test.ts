import { describe, expect, it } from 'vitest';
import { INCIDENT_CONFIG, configNotes, poolTokens, prefillInputLimit, withOverrides } from './config.ts';

describe('config: limits come from the page-aligned pool', () => {
  it('a pool holds whole pages only', () => {
    expect(poolTokens(681_280, 64)).toBe(681_280);
    expect(poolTokens(681_280, 128)).toBe(681_216);
    expect(poolTokens(681_280, 256)).toBe(681_216);
    expect(poolTokens(100, 48)).toBe(96);
  });

  it('the admission limit is what the prefill pool really holds, under either threshold rule', () => {
    expect(prefillInputLimit(INCIDENT_CONFIG)).toBe(681_280);
    expect(prefillInputLimit(withOverrides(INCIDENT_CONFIG, { pageSize: 128 }))).toBe(681_216);
    expect(prefillInputLimit(withOverrides(INCIDENT_CONFIG, { pageSize: 128, thresholdRule: 'sglang' }))).toBe(681_216 - 1 - 5 - 1);
    expect(prefillInputLimit(withOverrides(INCIDENT_CONFIG, { thresholdRule: 'sglang' }))).toBe(681_273);
  });

  it('notes every capacity it rounds, naming the field and both figures; none when pages divide', () => {
    expect(configNotes(INCIDENT_CONFIG)).toEqual([]);
    const notes = configNotes(withOverrides(INCIDENT_CONFIG, { pageSize: 128, decodeCapacityTokens: 1_000_000 }));
    expect(notes).toHaveLength(2);
    expect(notes[0]).toMatch(/^prefillCapacityTokens 681,280 is not a multiple of pageSize 128: .*5,322 whole pages = 681,216 tokens/);
    expect(notes[1]).toMatch(/^decodeCapacityTokens 1,000,000 .* 7,812 whole pages = 999,936 tokens/);
  });
});
