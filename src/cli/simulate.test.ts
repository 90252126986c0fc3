import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MATRIX_ROWS } from '../engine/matrix.ts';
import { describe, expect, it } from 'vitest';

const run = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/simulate.ts', ...args], { encoding: 'utf8', timeout: 60_000 });

describe('npm run simulate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'stale-pages-'));
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  it('runs the README example config over the example trace and reports the leak', () => {
    const r = run('--config', 'examples/config.json', '--trace', 'examples/trace.json', '--json');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.requests).toBe(5);
    expect(out.leaked).toBe(1);
    expect(out.leakedResponses[0].id).toBe('c1');
    expect(out.leakedResponses[0].dataOf.length).toBeGreaterThan(0);
    expect(out.eventLogHash).toMatch(/^[0-9a-f]{16}$/);
  });

  it('a config with a bad field exits 2 naming the file and the field, and runs nothing', () => {
    const bad = file('bad-config.json', JSON.stringify({ prefillNodes: 0, mitigations: { clearPagesOnFree: 'yes' } }));
    const r = run('--config', bad);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(bad);
    expect(r.stderr).toContain('prefillNodes');
    expect(r.stderr).toContain('mitigations.clearPagesOnFree');
    expect(r.stdout).toBe('');
  });

  it('a trace that is not JSON, or names an unknown field or tenant, exits 2', () => {
    expect(run('--trace', file('broken.json', '{ "version": 1,')).stderr).toMatch(/broken\.json: not valid JSON/);
    const unknownField = run('--trace', file('extra.json', JSON.stringify({ version: 1, tenants: [{ name: 'acme' }], requests: [{ at: 0, tenant: 'acme', promptTokens: 10, colour: 'red' }] })));
    expect(unknownField.status).toBe(2);
    expect(unknownField.stderr).toContain('requests.0');
    const unknownTenant = run('--trace', file('tenant.json', JSON.stringify({ version: 1, tenants: [{ name: 'acme' }], requests: [{ at: 0, tenant: 'nobody', promptTokens: 10 }] })));
    expect(unknownTenant.status).toBe(2);
    expect(unknownTenant.stderr).toContain('tenant.json');
  });

  it('a missing file and an unknown option exit 2', () => {
    expect(run('--trace', join(dir, 'absent.json')).status).toBe(2);
    expect(run('--frobnicate').status).toBe(2);
  });

  it('--matrix prints every row from real runs and exits 0 when all match', () => {
    const r = run('--matrix');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('both defects');
    expect(r.stdout.match(/\| yes$/gm)?.length).toBe(MATRIX_ROWS.length);
  });
});
