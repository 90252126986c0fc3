import { describe, expect, it } from 'vitest';
import { computeRun, storedDetailsOf } from './computeRun.ts';
import { decodeRunAsset, encodeRunAsset } from './runAsset.ts';

describe('run asset', () => {
  it('keeps the typed arrays of stored details (a response\u2019s slot sample) through a round trip', () => {
    const { run, details } = computeRun({ scenario: 'demo', overrides: {} }, { keepDetails: true });
    const stored = storedDetailsOf(run, details!);
    const leak = Number(Object.keys(stored.byRequest)[0]);
    const slots = stored.byRequest[leak]!.response!.slots!;
    expect(slots.tokens.length).toBeGreaterThan(0);
    const bytes = encodeRunAsset('key', run, stored);
    const back = decodeRunAsset(bytes.buffer as ArrayBuffer);
    const got = back.details!.byRequest[leak]!.response!.slots!;
    expect(Array.from(got.tokens)).toEqual(Array.from(slots.tokens));
    expect(Array.from(got.writers)).toEqual(Array.from(slots.writers));
    expect(Array.from(got.before.tokens)).toEqual(Array.from(slots.before.tokens));
    expect(Array.from(back.run.requests.status)).toEqual(Array.from(run.requests.status));
  });
});
