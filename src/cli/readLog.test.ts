import { mkdtempSync, readdirSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readServerFile, readStartupFile } from './readLog.ts';
import { assembleDeployment, parseServerText, parseStartupLog, type Parsed, type Role } from '../engine/sglangInput.ts';

const FIXTURES = new URL('./fixtures/sglang/', import.meta.url).pathname;
const at = (name: string) => join(FIXTURES, name);
const tmp = mkdtempSync(join(tmpdir(), 'readlog-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A server's figures without its source (the path). */
const figures = (p: Parsed) => p.servers.map(({ source: _source, notes: _notes, ...rest }) => rest);

describe('the fixtures', () => {
  it('holds at least 40 files, each listed in the README', async () => {
    const files = readdirSync(FIXTURES).filter((f) => f !== 'README.md');
    expect(files.length).toBeGreaterThanOrEqual(40);
    const { readFileSync } = await import('node:fs');
    const readme = readFileSync(at('README.md'), 'utf8');
    for (const f of files) expect(readme, f).toContain(`\`${f}\``);
  });

  it('the streamed reader and the whole-text parser agree on every log', async () => {
    for (const f of readdirSync(FIXTURES).filter((x) => x.endsWith('.log') && !x.startsWith('bad-empty'))) {
      const { readFileSync } = await import('node:fs');
      const whole = parseStartupLog(readFileSync(at(f), 'utf8'), at(f));
      // A small buffer: lines cross buffer edges.
      const streamed = await readStartupFile(at(f), null, { chunkBytes: 1024 });
      expect({ servers: streamed.servers, superseded: streamed.superseded, problems: streamed.problems.map((p) => p.kind) }, f).toEqual({
        servers: whole.servers,
        superseded: whole.superseded,
        problems: whole.problems.map((p) => p.kind),
      });
    }
  });
});

describe('start-up logs of two releases', () => {
  it('older ServerArgs repr, prefill and decode: the incident’s figures', async () => {
    const p = await readStartupFile(at('prefill-v0.4-serverargs-repr.log'), 'prefill');
    const d = await readStartupFile(at('decode-v0.4-serverargs-repr.log'), 'decode');
    expect(p.problems).toEqual([]);
    expect(figures(p)).toEqual([{ line: 7, role: 'prefill', kvTokens: 681_280, contextTokens: 1_048_576, chunkTokens: 8192, pageSize: 64, reservedDecodeTokens: 512, allowAutoTruncate: false, group: '', from: 'log' }]);
    expect(figures(d)).toMatchObject([{ line: 7, role: 'decode', kvTokens: 1_310_720 }]);
    const a = assembleDeployment([...p.servers, ...d.servers]);
    expect(a.deployment).toMatchObject({ contextTokens: 1_048_576, prefillCapacities: [681_280], decodeCapacities: [1_310_720], pageSize: 64, chunkTokens: 8192, disaggregated: true });
    expect(a.missing).toEqual([]);
  });

  it('the oldest scheduler line has no context_len: the server_args context is used', async () => {
    expect(figures(await readStartupFile(at('prefill-oldest-no-context-len.log'), null))).toMatchObject([{ kvTokens: 402_112, contextTokens: 131_072, chunkTokens: 4096 }]);
  });

  it('newest dict server_args, with request lines after the start-up', async () => {
    const p = await readStartupFile(at('prefill-v0.5-dict-serverargs.log'), null);
    expect(p.problems).toEqual([]);
    expect(figures(p)).toMatchObject([{ line: 7, role: 'prefill', kvTokens: 681_280, contextTokens: 1_048_576, pageSize: 64 }]);
  });

  it('a decode server with its own context of 131072 and 1024 reserved tokens', async () => {
    const d = await readStartupFile(at('decode-own-context-131072.log'), 'decode');
    const p = await readStartupFile(at('prefill-v0.5-dict-serverargs.log'), 'prefill');
    const a = assembleDeployment([...p.servers, ...d.servers]);
    expect(a.deployment).toMatchObject({ contextTokens: 1_048_576, decodeContextTokens: 131_072, reservedDecodeTokens: 1024 });
  });

  it('a server without disaggregation, -1 chunking', async () => {
    const p = await readStartupFile(at('colocated-non-pd-131072.log'), null);
    expect(figures(p)).toMatchObject([{ role: 'colocated', kvTokens: 524_288, contextTokens: 131_072, chunkTokens: 0 }]);
    expect(assembleDeployment(p.servers).deployment.disaggregated).toBe(false);
  });

  it('auto-truncate on, and a version line', async () => {
    expect(figures(await readStartupFile(at('prefill-allow-auto-truncate.log'), null))[0]!.allowAutoTruncate).toBe(true);
    expect(figures(await readStartupFile(at('prefill-version-line.log'), null))[0]).toMatchObject({ version: '0.5.2', line: 8 });
  });
});

describe('ranks', () => {
  it('TP8, every rank logging: one server', async () => {
    expect(figures(await readStartupFile(at('prefill-tp8-all-ranks.log'), null))).toMatchObject([{ line: 7, kvTokens: 681_280, group: '' }]);
  });

  it('TP8 with one rank disagreeing: the smallest, with a note', async () => {
    const p = await readStartupFile(at('prefill-tp8-ranks-disagree.log'), null);
    expect(p.servers[0]!.kvTokens).toBe(681_216);
    expect(p.servers[0]!.notes![0]).toContain('TP5 681,216 on line 12');
  });

  it('DP attention DP4 TP4: four decode servers; DP4 TP8 EP8 (32 ranks): four prefill servers; PP2 TP4: one', async () => {
    expect(figures(await readStartupFile(at('decode-dp4-attention-tp4.log'), null)).map((s) => [s.group, s.kvTokens])).toEqual([0, 1, 2, 3].map((d) => [`DP${d}`, 1_310_720]));
    const big = await readStartupFile(at('prefill-32-ranks-dp4-tp8-ep8.log'), null);
    expect(figures(big).map((s) => [s.group, s.line, s.kvTokens])).toEqual([0, 1, 2, 3].map((d) => [`DP${d}`, 7 + 8 * d, 2_040_000]));
    expect(figures(await readStartupFile(at('prefill-pp2-tp4.log'), null))).toMatchObject([{ kvTokens: 917_504, contextTokens: 131_072, group: '' }]);
  });

  it('DP attention logged from DP0 TP0 only: one server and a note', async () => {
    const p = await readStartupFile(at('decode-dp4-attention-tp0-only.log'), null);
    expect(p.servers).toHaveLength(1);
    expect(p.servers[0]!.notes![0]).toMatch(/dp_size=4/);
  });
});

describe('formatting and restarts', () => {
  it('ANSI colours and CRLF', async () => {
    expect(figures(await readStartupFile(at('prefill-ansi-colours.log'), null))).toMatchObject([{ line: 7, kvTokens: 681_280, role: 'prefill' }]);
    expect(figures(await readStartupFile(at('decode-crlf.log'), null))).toMatchObject([{ line: 7, kvTokens: 1_048_576, contextTokens: 131_072, role: 'decode' }]);
  });

  it('restarts: the latest start-up counts, the earlier ones are named with their line', async () => {
    const r = await readStartupFile(at('prefill-restart-incident-then-fixed.log'), 'prefill');
    expect(figures(r)).toMatchObject([{ line: 30, kvTokens: 2_040_000, contextTokens: 2_097_152 }]);
    expect(r.superseded.map((s) => [s.line, s.kvTokens])).toEqual([[7, 681_280]]);
    const inferred = await readStartupFile(at('prefill-restart-without-serverargs.log'), null);
    expect(figures(inferred)).toMatchObject([{ line: 18, kvTokens: 655_360 }]);
    expect(inferred.superseded.map((s) => s.line)).toEqual([7]);
    const crashed = await readStartupFile(at('prefill-restart-crashed.log'), null);
    expect(crashed.servers[0]!.notes![0]).toMatch(/line 16: a later start-up logs no scheduler line/);
  });
});

describe('bad input', () => {
  it('empty, binary, a missing value, a malformed number, no scheduler line, a bad mode, no role', async () => {
    const kinds = async (f: string, role: Role | null = null) => (await readStartupFile(at(f), role)).problems.map((p) => [p.kind, p.line, p.field]);
    expect(await kinds('bad-empty.log')).toEqual([['nothing-given', 1, '(file)']]);
    expect(await kinds('bad-binary.log')).toEqual([['not-text', 1, '(file)']]);
    expect(await kinds('bad-scheduler-missing-value.log')).toEqual([['no-value', 7, 'max_total_num_tokens']]);
    expect(await kinds('bad-scheduler-not-a-number.log')).toEqual([['not-a-number', 7, 'max_total_num_tokens']]);
    expect(await kinds('bad-no-scheduler-line.log')).toEqual([['no-scheduler-line', 3, 'max_total_num_tokens']]);
    expect(await kinds('bad-mode.log')).toEqual([
      ['bad-mode', 1, 'disaggregation_mode'],
      ['no-role', 2, 'disaggregation_mode'],
    ]);
    expect(await kinds('bad-no-role.log')).toEqual([['no-role', 1, 'disaggregation_mode']]);
  });

  it('swapped roles: a decode log given as prefill, decode server info given as prefill', async () => {
    const p = await readStartupFile(at('bad-swapped-roles-decode-log.log'), 'prefill');
    expect(p.problems.map((x) => x.message)).toEqual(["this log says disaggregation_mode=decode (line 1), but it was given as the prefill server's"]);
    const info = await readServerFile(at('server-info-decode-incident.json'), 'prefill');
    expect(info.problems).toMatchObject([{ kind: 'role-conflict', value: '"decode"' }]);
  });

  it('a file that cannot be read is a problem, never a throw', async () => {
    expect((await readStartupFile(join(tmp, 'nope.log'), null)).problems).toMatchObject([{ kind: 'cannot-read', value: 'ENOENT', line: 1, field: '(file)' }]);
    expect((await readStartupFile(tmp, null)).problems).toMatchObject([{ kind: 'cannot-read', value: 'EISDIR' }]);
    expect((await readServerFile(join(tmp, 'nope.json'), null)).problems).toMatchObject([{ kind: 'cannot-read', value: 'ENOENT' }]);
    const locked = join(tmp, 'locked.log');
    writeFileSync(locked, 'x');
    chmodSync(locked, 0o000);
    const r = await readStartupFile(locked, null);
    // root reads anything; anyone else is refused.
    if (process.getuid?.() !== 0) expect(r.problems).toMatchObject([{ kind: 'cannot-read', value: 'EACCES' }]);
  });
});

describe('the streamed reader', () => {
  it('counts lines across buffer edges, with and without a last newline, and cuts an over-long line', async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `[2026-08-27 09:13:00 TP0] Decode batch. #running-req: ${i % 7}, #token: ${i * 13}, token usage: 0.03`);
    lines[2999] = '[2026-08-27 09:12:44 TP0] max_total_num_tokens=681280, chunked_prefill_size=8192, max_prefill_tokens=16384, context_len=1048576';
    lines[1000] = 'x'.repeat(5000); // longer than the buffer below
    const file = join(tmp, 'edges.log');
    for (const tail of ['\n', '']) {
      writeFileSync(file, lines.join('\n') + tail);
      for (const chunkBytes of [1024, 4096, 1 << 20]) {
        const p = await readStartupFile(file, 'prefill', { chunkBytes });
        expect(p.servers.map((s) => [s.line, s.kvTokens]), `${chunkBytes}`).toEqual([[3000, 681_280]]);
      }
    }
    // The line count reaches the end: a missing scheduler line is reported on the last line.
    writeFileSync(file, lines.slice(0, 2999).join('\n'));
    expect((await readStartupFile(file, 'prefill', { chunkBytes: 1024 })).problems).toMatchObject([{ kind: 'no-scheduler-line', line: 2999 }]);
  });
});

describe('readServerFile: every form from a file', () => {
  it('launch commands: shell, sglang serve, Kubernetes YAML (block, inline, sh -c, two containers), a JSON array', async () => {
    const read = async (f: string) => figures(await readServerFile(at(f), null));
    expect(await read('launch-pd-incident.sh')).toEqual([
      { line: 3, role: 'prefill', contextTokens: 1_048_576, pageSize: 64, chunkTokens: 8192, from: 'args' },
      { line: 5, role: 'decode', contextTokens: 1_048_576, pageSize: 64, kvTokens: 1_310_720, from: 'args' },
    ]);
    expect(await read('launch-sglang-serve-fixed.sh')).toEqual([
      { line: 1, role: 'prefill', contextTokens: 2_097_152, pageSize: 64, chunkTokens: 8192, kvTokens: 2_040_000, allowAutoTruncate: true, from: 'args' },
      { line: 3, role: 'decode', contextTokens: 2_097_152, pageSize: 64, reservedDecodeTokens: 1024, kvTokens: 2_621_440, from: 'args' },
    ]);
    expect(await read('launch-flags-only.txt')).toEqual([{ line: 1, role: 'colocated', contextTokens: 131_072, pageSize: 16, chunkTokens: 0, from: 'args' }]);
    expect(await read('launch-crlf.sh')).toEqual([{ line: 1, role: 'prefill', contextTokens: 1_048_576, pageSize: 64, chunkTokens: 8192, from: 'args' }]);
    expect(await read('k8s-prefill-args-block.yaml')).toEqual([{ line: 14, role: 'prefill', contextTokens: 1_048_576, pageSize: 64, chunkTokens: 8192, from: 'args' }]);
    expect(await read('k8s-decode-args-inline.yaml')).toEqual([{ line: 4, role: 'decode', contextTokens: 1_048_576, pageSize: 64, kvTokens: 1_310_720, reservedDecodeTokens: 512, from: 'args' }]);
    expect((await read('k8s-pd-two-containers.yaml')).map((s) => [s.line, s.role, s.kvTokens])).toEqual([
      [4, 'prefill', 2_040_000],
      [13, 'decode', 2_621_440],
    ]);
    expect(await read('k8s-sh-c-command.yaml')).toEqual([{ line: 5, role: 'prefill', contextTokens: 131_072, pageSize: 32, chunkTokens: 4096, from: 'args' }]);
    expect(await read('args-json-array.json')).toEqual([{ line: 4, role: 'decode', contextTokens: 1_048_576, pageSize: 64, kvTokens: 1_310_720, allowAutoTruncate: true, from: 'args' }]);
  });

  it('bad launch values name the line and the flag; contexts that disagree make a note', async () => {
    const bad = await readServerFile(at('launch-bad-values.sh'), null);
    expect(bad.problems.map((p) => [p.kind, p.line, p.field])).toEqual([
      ['not-a-number', 2, '--page-size'],
      ['bad-mode', 3, '--disaggregation-mode'],
      ['no-value', 3, '--context-length'],
    ]);
    const two = await readServerFile(at('launch-two-prefill-contexts-disagree.sh'), null);
    expect(assembleDeployment(two.servers).notes.join(' ')).toMatch(/different context lengths \(1,048,576, 131,072\)/);
  });

  it('/get_server_info for prefill and decode (incident), DP4 decode, the fixed prefill, an older colocated answer, truncated JSON', async () => {
    const p = await readServerFile(at('server-info-prefill-incident.json'), 'prefill');
    const d = await readServerFile(at('server-info-decode-incident.json'), 'decode');
    expect(figures(p)).toEqual([
      { line: 16, role: 'prefill', contextTokens: 1_048_576, pageSize: 64, chunkTokens: 8192, reservedDecodeTokens: 512, maxReqInputLen: 681_274, allowAutoTruncate: false, version: '0.5.2', group: '', kvTokens: 681_280, from: 'server-info' },
    ]);
    const a = assembleDeployment([...p.servers, ...d.servers]);
    expect(a.deployment).toMatchObject({ prefillCapacities: [681_280], decodeCapacities: [1_310_720], maxReqInputLen: 681_274, version: '0.5.2' });
    expect(a.missing).toEqual([]);
    expect(figures(await readServerFile(at('server-info-decode-dp4.json'), null)).map((s) => s.group)).toEqual(['DP0', 'DP1', 'DP2', 'DP3']);
    expect(figures(await readServerFile(at('server-info-prefill-fixed.json'), null))).toMatchObject([{ kvTokens: 2_040_000, contextTokens: 2_097_152, version: '0.5.3' }]);
    expect(figures(await readServerFile(at('server-info-colocated-older.json'), null))).toMatchObject([{ role: 'colocated', kvTokens: 524_288, version: '0.4.3.post2' }]);
    expect((await readServerFile(at('bad-server-info-truncated.json'), null)).problems).toMatchObject([{ kind: 'bad-json' }]);
  });

  it('reads the same as parseServerText on the whole text, for every file under the size limit', async () => {
    const { readFileSync } = await import('node:fs');
    for (const f of readdirSync(FIXTURES).filter((x) => x !== 'README.md')) {
      const fromFile = await readServerFile(at(f), null);
      const whole = parseServerText(readFileSync(at(f), 'utf8'), at(f), null);
      expect(fromFile.servers, f).toEqual(whole.servers);
    }
  });
});
