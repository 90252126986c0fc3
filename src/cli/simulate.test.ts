import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MATRIX_ROWS } from '../engine/matrix.ts';
import { describe, expect, it } from 'vitest';

const run = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/simulate.ts', ...args], { encoding: 'utf8', timeout: 60_000 });
/** The CLI with a fixture module loaded first (it patches the engine in that process only). */
const runWith = (fixture: string, ...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', '--import', `./src/cli/fixtures/${fixture}`, 'src/cli/simulate.ts', ...args], { encoding: 'utf8', timeout: 60_000 });

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
    // One record per request, in trace order.
    expect(out.responses.map((x: { id: string }) => x.id)).toEqual(['a1', 'b1', 'a2', 'b2', 'c1']);
    const c1 = out.responses[4];
    expect(Object.keys(c1).sort()).toEqual(
      ['canaries', 'computedTokens', 'correct', 'dataOf', 'id', 'integrityBreach', 'latencyMs', 'pagesReadStale', 'pagesReadZero', 'pagesReserved', 'pagesWritten', 'promptTokens', 'reason', 'status', 'tenant'],
    );
    expect(c1).toMatchObject({ tenant: 'cobalt', status: 200, promptTokens: 900_000, computedTokens: 1, pagesReserved: Math.ceil(900_000 / 64), pagesWritten: 1, correct: false });
    expect(c1.pagesReadStale + c1.pagesReadZero + c1.pagesWritten).toBe(c1.pagesReserved);
    expect(c1.pagesReadStale).toBeGreaterThan(0);
    expect(c1.dataOf).toEqual(out.leakedResponses[0].dataOf);
    expect(c1.latencyMs).toBeGreaterThan(0);
    expect(out.responses[0]).toMatchObject({ id: 'a1', pagesReadStale: 0, pagesReadZero: 0, dataOf: [], canaries: [], correct: true });
    expect(out.pagesReadZero).toBe(out.responses.reduce((n: number, x: { pagesReadZero: number }) => n + x.pagesReadZero, 0));
    // Two counts: answered from memory the request did not write, and wrong texts.
    expect(c1.integrityBreach).toBe(true);
    expect(out.responses[0].integrityBreach).toBe(false);
    expect(out.integrityBreaches).toBe(out.responses.filter((x: { integrityBreach: boolean }) => x.integrityBreach).length);
    expect(out.wrongOutputs).toBe(out.responses.filter((x: { correct: boolean | null }) => x.correct === false).length);
    expect(out).not.toHaveProperty('integrityFailures');
    const table = run('--config', 'examples/config.json', '--trace', 'examples/trace.json');
    expect(table.stdout).toMatch(/^integrity breach +1 \(answered 200 from memory the request did not write/m);
    expect(table.stdout).toMatch(/^wrong texts +1 /m);
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
    expect(unknownTenant.stderr).toContain('tenant.json: requests.0.tenant: request "r0" names tenant "nobody", which is not in tenants');
  });

  it('a JSON array as a config, or a trace too wide for the model\'s vocabulary, exits 2 naming the field', () => {
    const array = run('--config', file('array.json', '[]'));
    expect(array.status).toBe(2);
    expect(array.stderr).toContain('array.json: (top level): a config must be a JSON object, got an array');
    const words = Array.from({ length: 1100 }, (_, i) => `word${i}`).join(' ');
    const wide = run('--trace', file('wide.json', JSON.stringify({ version: 1, tenants: [{ name: 'acme' }], requests: [{ at: 0, tenant: 'acme', promptTokens: 5000, text: words }] })));
    expect(wide.status).toBe(2);
    expect(wide.stderr).toMatch(/wide\.json: requests\.0\.text: takes the vocabulary past the decode model's 1,024 distinct words/);
    expect(wide.stdout).toBe('');
  });

  it('a missing file and an unknown option exit 2, in one line and no stack; --help (also after --) prints the usage', () => {
    expect(run('--trace', join(dir, 'absent.json')).status).toBe(2);
    const unknown = run('--frobnicate');
    expect([unknown.status, unknown.stderr]).toEqual([2, 'simulate: unknown flag --frobnicate (see --help)\n']);
    for (const args of [['--help'], ['--', '--help']]) {
      const help = run(...args);
      expect(help.status).toBe(0);
      expect(help.stdout).toMatch(/^Usage: simulate [\s\S]*Exit codes: 0 ran; 1 /);
    }
  });

  it('a capacity that is not a multiple of the page size is rounded down with a note, and every request is answered', () => {
    const config = file('pages-128.json', JSON.stringify({ pageSize: 128 }));
    const trace = file('edge.json', JSON.stringify({
      version: 1,
      tenants: [{ name: 'acme' }, { name: 'borealis' }],
      requests: [
        { id: 'warm', at: 0, tenant: 'acme', promptTokens: 300000 },
        { id: 'edge', at: 100000, tenant: 'borealis', promptTokens: 681280 },
        { id: 'after', at: 100001, tenant: 'borealis', promptTokens: 2000 },
      ],
    }));
    const r = run('--config', config, '--trace', trace, '--json');
    expect(r.status).toBe(0);
    expect(r.stderr).toContain('simulate: note: prefillCapacityTokens 681,280 is not a multiple of pageSize 128');
    expect(r.stderr).toContain('681,216 tokens');
    const out = JSON.parse(r.stdout);
    expect(out.statusCounts).toEqual({ 200: 3 });
    expect(out.requests).toBe(3);
  });

  it('a run that leaves a request unanswered exits 1 naming it, and prints no summary', () => {
    const r = runWith('strand-decode.ts', '--config', 'examples/config.json', '--trace', 'examples/trace.json');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/^simulate: engine invariant violated: run ended with 2 of 5 requests unanswered: b1 \(tenant borealis, 300,000 tokens; queued for decode-1 pages: needs 4,688 of 20,480, 20,480 free\), b2 \(/m);
    expect(r.stdout).toBe('');
  });

  it('--matrix prints every row from real runs and exits 0 when all match', () => {
    const r = run('--matrix');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('both defects');
    expect(r.stdout.match(/\| yes$/gm)?.length).toBe(MATRIX_ROWS.length);
  });

  it('--scenario microscope runs the trained transformer and reports where each token\'s attention went', () => {
    const r = run('--scenario', 'microscope', '--json');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.model).toMatchObject({ kind: 'transformer', layers: 2, heads: 2, parameters: 39_648, leakShareThreshold: 0.5 });
    expect(out.model.weightsSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(out.leakedResponses.map((l: { id: string }) => l.id)).toEqual(['long-1']);
    const long = out.answers.find((a: { id: string }) => a.id === 'long-1');
    type Token = { tenants: [string | null, number][] };
    for (const t of long.tokens as Token[]) expect(Math.abs(t.tenants.reduce((n, [, x]) => n + x, 0) - 1)).toBeLessThanOrEqual(0.01);
    expect((long.tokens as Token[]).some((t) => t.tenants.some(([name, x]) => name !== 'ember' && name !== null && x > 0.5))).toBe(true);
    expect(run('--scenario', 'demo', '--model', 'gpt').stderr).toContain('--model: unknown model "gpt" (known: transformer, compressed)');
  }, 90_000);

  it('--allocator-trace replays a golden sequence on the default allocator and lists each request\'s pages as SGLang gave them', () => {
    const golden = '../shared/sglang/allocator-golden/B-decode-p64-300pg-s106.json';
    const r = run('--allocator-trace', golden, '--json');
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout);
    const expected = JSON.parse(readFileSync(golden, 'utf8')).expected as { rid: number; pages: number[] }[];
    expect(out.allocations.map((a: { rid: number; pages: number[] }) => [a.rid, a.pages])).toEqual(expected.map((e) => [e.rid, e.pages]));
    expect(out.matching).toBe(expected.length);
    const bad = run('--allocator-trace', file('bad-alloc.json', JSON.stringify({ pageSize: 16, numPages: 8, ops: [{ op: 'alloc', rid: 0 }] })));
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/bad-alloc\.json: ops\.0\.tokens/);
    const inconsistent = run('--allocator-trace', file('free-alloc.json', JSON.stringify({ pageSize: 16, numPages: 8, ops: [{ op: 'free', rids: [4] }] })));
    expect(inconsistent.status).toBe(2);
    expect(inconsistent.stderr).toContain('op 0 (free): rid 4 holds no pages');
  });
});
