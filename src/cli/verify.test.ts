import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

function verify(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/verify.ts', ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('npm run verify', () => {
  it('prints every configuration with its states and verdict, and exits 0 when all are as expected', () => {
    const { code, out } = verify();
    expect(code).toBe(0);
    expect(out).toMatch(/^incident\s+195\s+298\s+violates conf\+integ\s+✗ 13 steps\s+✗ 6 steps\s+holds\s+yes$/m);
    expect(out).toMatch(/^fixed\s+82\s+145\s+safe\s/m);
    expect(out).toMatch(/^clear-on-free\s+178\s+284\s+violates integ\s+holds\s+✗ 6 steps/m);
    expect(out).toContain('All verdicts as expected.');
  });

  it('exits 1 when an injected bug makes a configuration expected to be safe unsafe', () => {
    const { code, err } = verify('--mutate', 'success-without-send');
    expect(code).toBe(1);
    expect(err).toMatch(/UNEXPECTED: .*fixed/);
  });

  it('--json is complete, parseable output', () => {
    const { code, out } = verify('--json');
    expect(code).toBe(0);
    const parsed = JSON.parse(out) as { ok: boolean; results: { id: string; statesExplored: number }[] };
    expect(parsed.ok).toBe(true);
    expect(parsed.results.map((r) => r.id)).toContain('abort-race');
  });
});
