import { describe, expect, it } from 'vitest';
import { fnv64Hex } from './hash.ts';

describe('fnv64Hex', () => {
  it('matches the published FNV-1a 64-bit test vectors', () => {
    expect(fnv64Hex('')).toBe('cbf29ce484222325');
    expect(fnv64Hex('a')).toBe('af63dc4c8601ec8c');
    expect(fnv64Hex('foobar')).toBe('85944171f73967e8');
  });
});
