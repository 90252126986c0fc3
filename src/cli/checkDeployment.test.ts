/**
 * check-deployment as an operator runs it in CI: the built command (dist-cli/, what `npm ci` builds),
 * on SGLang's own texts (src/cli/fixtures/sglang/, two release families), each row's exit code and
 * leaking band computed by hand from SGLang's code:
 *
 *   tokenizer:  refused when N ≥ C (C the context)                         → longest C − 1
 *   prefill:    max_req_input_len L = min(C − 1, pool − 1) − 5, refused at N ≥ L → longest L − 1
 *               (older releases: no − 5; `--rule report`: the pool)
 *   decode:     its own L_d = min(C_d − 1, pool_d − 1) − 5 (refused at N ≥ L_d); N > pool_d refused
 *               when added; N > pool_d − max(reserved, max_new) waits for ever (the budget)
 *   a prompt leaks when prefill refuses it (N ≥ L) and decode takes it whole:
 *               from L to min(C − 1, L_d − 1, pool_d − max(reserved, max_new))
 */
import { spawnSync } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

const F = 'src/cli/fixtures/sglang';
const dir = mkdtempSync(join(tmpdir(), 'check-deployment-'));
const BIN = 'dist-cli/check-deployment.mjs';

beforeAll(() => {
  // The command as `npm ci` builds it, from this checkout's source.
  const b = spawnSync(process.execPath, ['scripts/build-cli.mjs'], { encoding: 'utf8' });
  expect(b.status, b.stderr).toBe(0);
}, 60_000);

function check(...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

async function checkAsync(...args: string[]) {
  const { spawn } = await import('node:child_process');
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args]);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

interface Json {
  verdict: string;
  exitCode: number;
  toPass: string[];
  notes: string[];
  deployment: { version: string | null };
  answer: { routes: { bands: { from: number; to: number | null; outcomes: string[]; chain: { at: string }[]; fixes: string[] }[] }[] };
}
const leaking = (j: Json) => [...new Set(j.answer.routes.flatMap((r) => r.bands.filter((b) => b.outcomes.includes('leaked')).map((b) => `${b.from}-${b.to}`)))];
const INCIDENT_BEHAVIOUR = ['--reject-path', 'incident', '--retire', 'incident'];
const log = (name: string, role?: string) => ['--log', `${role ? `${role}:` : ''}${F}/${name}`];

/** [what, arguments, exit code, leaking bands (from-to)]. */
const TABLE: [string, string[], 0 | 1 | 3, string[]][] = [
  // Incident: C 1,048,576, prefill pool 681,280, decode pool 1,310,720. L = 681,279 − 5 = 681,274;
  // L_d = min(1,048,575, 1,310,719) − 5 = 1,048,570 → to min(1,048,575, 1,048,569, 1,310,208) = 1,048,569.
  ['v0.4 logs (ServerArgs repr), behaviours unstated: may leak, cannot tell', [...log('prefill-v0.4-serverargs-repr.log'), ...log('decode-v0.4-serverargs-repr.log')], 3, ['681274-1048569']],
  ['v0.4 logs, behaviours as in the incident', [...log('prefill-v0.4-serverargs-repr.log'), ...log('decode-v0.4-serverargs-repr.log'), ...INCIDENT_BEHAVIOUR], 1, ['681274-1048569']],
  ['newest logs (server_args dict)', [...log('prefill-v0.5-dict-serverargs.log'), ...log('decode-v0.5-dict-serverargs.log'), ...INCIDENT_BEHAVIOUR], 1, ['681274-1048569']],
  ['ANSI colours', [...log('prefill-ansi-colours.log'), ...log('decode-v0.4-serverargs-repr.log'), ...INCIDENT_BEHAVIOUR], 1, ['681274-1048569']],
  ['TP8, every rank logs: one server', [...log('prefill-tp8-all-ranks.log'), ...log('decode-v0.5-dict-serverargs.log'), ...INCIDENT_BEHAVIOUR], 1, ['681274-1048569']],
  ['a start-up that crashed after one that ran: the one that ran', [...log('prefill-restart-crashed.log'), ...log('decode-v0.5-dict-serverargs.log'), ...INCIDENT_BEHAVIOUR], 1, ['681274-1048569']],
  ['a version line', [...log('prefill-version-line.log'), ...log('decode-v0.5-dict-serverargs.log'), ...INCIDENT_BEHAVIOUR], 1, ['681274-1048569']],
  // /get_server_info reports max_req_input_len 681,274 = min(1,048,575, 681,279) − 5: the margin is 5, known.
  ['/get_server_info JSON of both servers', [...log('server-info-prefill-incident.json'), ...log('server-info-decode-incident.json'), ...INCIDENT_BEHAVIOUR], 1, ['681274-1048569']],
  // The report's rule: prefill's limit is the pool (from 681,281); tokenizer and decode refuse over C (to 1,048,576).
  ["--rule report: the report's figure", [...log('prefill-v0.5-dict-serverargs.log'), ...log('decode-v0.5-dict-serverargs.log'), ...INCIDENT_BEHAVIOUR, '--rule', 'report'], 1, ['681281-1048576']],
  // Older releases: L = 681,279 (from 681,279), L_d = 1,048,575 (to 1,048,574).
  ['--input-limit-margin 0 (older releases)', [...log('prefill-v0.5-dict-serverargs.log'), ...log('decode-v0.5-dict-serverargs.log'), ...INCIDENT_BEHAVIOUR, '--input-limit-margin', '0'], 1, ['681279-1048574']],
  // Clients sending max_new_tokens 1,024: the tokenizer refuses N + 1,024 ≥ C → to 1,047,551.
  ['--max-new-tokens 1024', [...log('prefill-v0.5-dict-serverargs.log'), ...log('decode-v0.5-dict-serverargs.log'), ...INCIDENT_BEHAVIOUR, '--max-new-tokens', '1024'], 1, ['681274-1047551']],
  // Decode pool 700,000 typed: 10,937 whole pages = 699,968 tokens (SGLang's pool is whole pages); L_d = 699,967 − 5 =
  // 699,962; budget 699,968 − 512 = 699,456 (longer ones wait) → to 699,456.
  ['a smaller decode pool: the budget ends the band', [...log('prefill-v0.5-dict-serverargs.log'), '--decode', '700000', '--context', '1048576', ...INCIDENT_BEHAVIOUR], 1, ['681274-699456']],
  // The same with 4,096 reserved decode tokens: budget 699,968 − 4,096 = 695,872.
  ['--reserved-decode-tokens 4096', [...log('prefill-v0.5-dict-serverargs.log'), '--decode', '700000', '--context', '1048576', '--reserved-decode-tokens', '4096', ...INCIDENT_BEHAVIOUR], 1, ['681274-695872']],
  // TP ranks disagree: the smallest pool, 681,216 → L = 681,215 − 5 = 681,210.
  ['TP ranks that disagree: the smallest pool', [...log('prefill-tp8-ranks-disagree.log'), ...log('decode-v0.4-serverargs-repr.log'), ...INCIDENT_BEHAVIOUR], 1, ['681210-1048569']],
  // A restart without a new server_args line: the latest pool, 655,360 → L = 655,359 − 5 = 655,354.
  ['a restart: the latest start-up counts', [...log('prefill-restart-without-serverargs.log'), ...log('decode-v0.5-dict-serverargs.log'), ...INCIDENT_BEHAVIOUR], 1, ['655354-1048569']],
  // Decode with context 2,097,152 and pool 2,621,440 behind the incident's prefill: L_d = 2,097,146, so the
  // tokenizer (C − 1 = 1,048,575) ends the band.
  ["decode's larger context: the tokenizer ends the band", [...log('prefill-v0.5-dict-serverargs.log'), ...log('decode-fixed-2621440.log'), ...INCIDENT_BEHAVIOUR], 1, ['681274-1048575']],
  // Fixed figures with C 2,097,152: L = min(2,097,151, 2,039,999) − 5 = 2,039,994; L_d = 2,097,146 → to 2,097,145.
  ['2.04 M prefill, 2,097,152 context: still a band', [...log('prefill-fixed-2040000.log'), ...log('decode-fixed-2621440.log'), ...INCIDENT_BEHAVIOUR], 1, ['2039994-2097145']],
  ['the same, behaviours unstated', [...log('prefill-fixed-2040000.log'), ...log('decode-fixed-2621440.log')], 3, ['2039994-2097145']],
  ['the same, the reject path fixed', [...log('prefill-fixed-2040000.log'), ...log('decode-fixed-2621440.log'), '--reject-path', 'fixed'], 0, []],
  ['a restart from the incident to 2.04 M: the latest counts', [...log('prefill-restart-incident-then-fixed.log'), ...log('decode-fixed-2621440.log'), ...INCIDENT_BEHAVIOUR], 1, ['2039994-2097145']],
  ['32 ranks (DP4 TP8 EP8): four prefill servers', [...log('prefill-32-ranks-dp4-tp8-ep8.log'), ...log('decode-dp4-attention-tp0-only.log'), ...INCIDENT_BEHAVIOUR], 1, ['2039994-2097145']],
  ['/get_server_info, four DP ranks of decode', [...log('server-info-prefill-fixed.json'), ...log('server-info-decode-dp4.json'), ...INCIDENT_BEHAVIOUR], 1, ['2039994-2097145']],
  ['DP attention TP4: four decode servers', [...log('prefill-v0.4-serverargs-repr.log'), ...log('decode-dp4-attention-tp4.log'), ...INCIDENT_BEHAVIOUR], 1, ['681274-1048569']],
  // Decode's own context 131,072: L_d = 131,066, so decode refuses every prompt prefill refuses (from 681,274).
  ["decode's own context 131,072: closed whatever the behaviours", [...log('prefill-v0.5-dict-serverargs.log'), ...log('decode-own-context-131072.log')], 0, []],
  // Prefill 2.04 M behind decode's 1,048,576 context: L = 2,039,994, decode's L_d = 1,048,570: closed.
  ["prefill's 2.04 M behind the incident's decode: closed", [...log('prefill-fixed-2040000.log'), ...log('decode-v0.5-dict-serverargs.log'), ...INCIDENT_BEHAVIOUR], 0, []],
  // C 131,072 on both, pools 917,504 / 1,048,576: L = L_d = 131,066: decode refuses all prefill refuses.
  ['PP2 TP4 and a CRLF decode log, context 131,072: closed', [...log('prefill-pp2-tp4.log'), ...log('decode-crlf.log'), ...INCIDENT_BEHAVIOUR], 0, []],
  ['an old scheduler line without context_len (context from server_args): closed', [...log('prefill-oldest-no-context-len.log'), ...log('decode-crlf.log'), ...INCIDENT_BEHAVIOUR], 0, []],
  ['one server that prefills and decodes: closed', [...log('colocated-non-pd-131072.log')], 0, []],
  ['an older /get_server_info of one server: closed', [...log('server-info-colocated-older.json')], 0, []],
  // The report's final deployment: C 1,048,576, prefill 2,040,000, decode 2,097,152. L = 1,048,575 − 5 = 1,048,570 and
  // L_d = 1,048,570: decode refuses the six prompts prefill refuses (no false positive).
  ["the report's fixed figures, the reject path as it was: closed", ['--context', '1048576', '--prefill', '2040000', '--decode', '2097152', ...INCIDENT_BEHAVIOUR], 0, []],
  ["the same by the report's rule: closed", ['--context', '1048576', '--prefill', '2040000', '--decode', '2097152', ...INCIDENT_BEHAVIOUR, '--rule', 'report'], 0, []],
  ['typed incident figures', ['--context', '1048576', '--prefill', '681280', '--decode', '1310720', ...INCIDENT_BEHAVIOUR], 1, ['681274-1048569']],
  ['typed incident figures, the reject path fixed: refused', ['--context', '1048576', '--prefill', '681280', '--decode', '1310720', '--reject-path', 'fixed'], 0, []],
  ['typed incident figures, aborted results retired: fails closed', ['--context', '1048576', '--prefill', '681280', '--decode', '1310720', '--reject-path', 'incident', '--retire', 'fixed'], 0, []],
  ['typed incident figures, a length check: fails closed', ['--context', '1048576', '--prefill', '681280', '--decode', '1310720', ...INCIDENT_BEHAVIOUR, '--length-check', 'fixed'], 0, []],
  ['typed incident figures, pages cleared: a wrong answer, no leak', ['--context', '1048576', '--prefill', '681280', '--decode', '1310720', ...INCIDENT_BEHAVIOUR, '--clear-pages', 'fixed'], 0, []],
  ['typed incident figures on one server', ['--context', '1048576', '--prefill', '681280', '--colocated'], 0, []],
  // Figures missing: the verdict turns on them.
  ['nothing given', [], 3, ['681274-1048569']],
  ['a decode log only: no prefill pool', [...log('decode-v0.5-dict-serverargs.log'), ...INCIDENT_BEHAVIOUR], 3, ['681274-1048569']],
  ['launch commands without --max-total-tokens on prefill', ['--log', `${F}/launch-pd-incident.sh`, ...INCIDENT_BEHAVIOUR], 3, ['681274-1048569']],
  ["launch commands and prefill's pool typed", ['--args', `${F}/launch-pd-incident.sh`, '--prefill', '681280', ...INCIDENT_BEHAVIOUR], 1, ['681274-1048569']],
  ['Kubernetes args (block and inline lists), the prefill pool typed', [...log('k8s-prefill-args-block.yaml'), ...log('k8s-decode-args-inline.yaml'), '--prefill', '681280', ...INCIDENT_BEHAVIOUR], 1, ['681274-1048569']],
  ['Kubernetes pod of two containers (sglang serve)', [...log('k8s-pd-two-containers.yaml'), ...INCIDENT_BEHAVIOUR], 1, ['2039994-2097145']],
  // Auto-truncation cuts instead of the placeholder: a path this tool does not model.
  ['allow_auto_truncate on prefill: cannot tell', [...log('launch-sglang-serve-fixed.sh'), ...INCIDENT_BEHAVIOUR], 3, ['2039994-2097145']],
  ['a JSON array of args with --allow-auto-truncate: cannot tell', [...log('prefill-v0.5-dict-serverargs.log'), ...log('args-json-array.json'), ...INCIDENT_BEHAVIOUR], 3, ['681274-1048569']],
];

describe('check-deployment on SGLang’s own texts: exit code and leaking band, computed from SGLang’s code', () => {
  it(`a table of ${TABLE.length} inputs`, () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(40);
    const got = TABLE.map(([what, args]) => {
      const r = check(...args, '--json');
      const j = JSON.parse(r.out || '{}') as Json;
      return { what, code: r.code, json: j.exitCode, leaking: r.out ? leaking(j) : r.err };
    });
    expect(got).toEqual(TABLE.map(([what, , code, bands]) => ({ what, code, json: code, leaking: bands })));
  }, 120_000);

  it('the text says the verdict, the steps of SGLang’s code, and the fix as flags', () => {
    const { code, out } = check(...log('prefill-v0.5-dict-serverargs.log'), ...log('decode-v0.5-dict-serverargs.log'), ...INCIDENT_BEHAVIOUR);
    expect(code).toBe(1);
    expect(out).toMatch(/681,274 – 1,048,569\s+LEAKS/);
    expect(out).toContain('prefill-scheduler: over prefill\'s limit of 681,273: marked aborted (400 pending)');
    expect(out).toContain('decode reads all 10,645 pages it reserved');
    // The largest context under which decode refuses all prefill refuses (both at min(C − 1, 681,279) − 5).
    expect(out).toContain('--context-length 681280 on both servers');
    expect(out).toContain('prefill KV of at least 1,048,576 tokens: raise --mem-fraction-static');
    expect(out).toContain('OPEN (exit 1): prompts from 681,274 tokens leak on these figures');
    expect(out).toMatch(/1,048,570 – 1,048,575\s+refused \(400\)\s+\[over the decode server's own limit/);
  });

  it('exit 3 lists exactly what to pass', () => {
    const none = check('--json');
    const j = JSON.parse(none.out) as Json;
    expect(none.code).toBe(3);
    expect(j.toPass.map((t) => t.split(' (')[0])).toEqual(['a log or --url of each server', '--context N', '--prefill N', '--decode N', '--reject-path incident|fixed', '--retire incident|fixed']);
    const text = check(...log('prefill-v0.5-dict-serverargs.log'), ...log('decode-v0.5-dict-serverargs.log')).out;
    expect(text).toContain('CANNOT TELL (exit 3): prompts from 681,274 tokens may leak. Pass:\n  --reject-path incident|fixed (PR #38935');
  });

  it('names the superseded start-up of a restart, and the version a server reports', () => {
    const r = JSON.parse(check(...log('prefill-restart-incident-then-fixed.log'), ...log('server-info-decode-incident.json'), '--json').out) as Json;
    expect(r.notes.some((n) => /prefill-restart-incident-then-fixed\.log line 7: an earlier start-up of a prefill, superseded/.test(n))).toBe(true);
    expect(r.deployment.version).toBe('0.5.2');
  });

  it('each band carries SGLang’s steps in --json', () => {
    const r = JSON.parse(check(...log('server-info-prefill-incident.json'), ...log('server-info-decode-incident.json'), ...INCIDENT_BEHAVIOUR, '--json').out) as Json;
    const bands = r.answer.routes[0]!.bands;
    expect(bands.map((b) => [b.from, b.chain.map((s) => s.at).join(' ')])).toEqual([
      [1, 'tokenizer decode-check prefill-scheduler decode-add decode-budget handoff'],
      [681_274, 'tokenizer decode-check prefill-scheduler placeholder decode-add decode-budget handoff'],
      [1_048_570, 'tokenizer decode-check'],
      [1_048_576, 'tokenizer'],
    ]);
  });
});

describe('check-deployment on input it cannot use: exit 2, one line per problem naming the file, the line and the field, no stack', () => {
  const missing = join(dir, 'missing.log');
  /** [what, arguments, the first line, how many problems]. */
  const CORPUS: [string, string[], RegExp, number?][] = [
    ['an empty file', log('bad-empty.log'), /bad-empty\.log line 1, .*: /],
    ['a binary file', log('bad-binary.log'), /bad-binary\.log line 1, \(file\): this is not a text file/],
    ['a decode log given as prefill', log('bad-swapped-roles-decode-log.log', 'prefill'), /bad-swapped-roles-decode-log\.log line 1, disaggregation_mode: this log says disaggregation_mode=decode/],
    ['a scheduler line without its value', log('bad-scheduler-missing-value.log'), /bad-scheduler-missing-value\.log line 7, max_total_num_tokens: /],
    ['a scheduler line with a typo', log('bad-scheduler-not-a-number.log'), /bad-scheduler-not-a-number\.log line 7, max_total_num_tokens: .*68l280/],
    ['a start-up that never logged its pool', log('bad-no-scheduler-line.log'), /bad-no-scheduler-line\.log line \d+, max_total_num_tokens: /],
    // The mode, then the scheduler line that has no role for want of it.
    ['a mode SGLang does not have', log('bad-mode.log'), /bad-mode\.log line 1, disaggregation_mode: /, 2],
    ['a log that does not say its role', log('bad-no-role.log'), /bad-no-role\.log line 1, disaggregation_mode: cannot tell whether this server is prefill or decode/],
    ['launch flags with bad values (three)', log('launch-bad-values.sh'), /launch-bad-values\.sh line 2, --page-size: /, 3],
    ['/get_server_info cut short', log('bad-server-info-truncated.json'), /bad-server-info-truncated\.json line \d+, .*: /],
    ['a folder', ['--log', dir], /line 1, \(file\): cannot read \(EISDIR\)/],
    ['a missing file', ['--log', missing], /missing\.log line 1, \(file\): cannot read \(ENOENT\)/],
    ['an unknown flag', ['--foo'], /^check-deployment: unknown flag --foo \(see --help\)$/],
    ['--log without its file', ['--log'], /^check-deployment: --log needs a value \(see --help\)$/],
    ['--log followed by another flag', ['--log', '--json'], /^check-deployment: --log needs a value \(see --help\)$/],
    ['a second file without --log', ['--log', `${F}/prefill-v0.5-dict-serverargs.log`, `${F}/decode-v0.5-dict-serverargs.log`], /^check-deployment: unexpected argument .*decode-v0\.5-dict-serverargs\.log: each file or value follows its flag \(see --help\)$/],
    ['a negative pool', ['--prefill', '-681280'], /^check-deployment: --prefill: "-681280" is not a value it takes/],
    ['a pool that is not a number', ['--prefill', '681k'], /^check-deployment: --prefill: "681k" is not a whole number of tokens/],
    ['a behaviour that is not one', ['--retire', 'maybe'], /^check-deployment: --retire: must be incident, fixed or unknown, got "maybe"$/],
    ['a rule that is not one', ['--rule', 'strict'], /^check-deployment: --rule: must be "sglang"/],
    ['a margin SGLang never had', ['--input-limit-margin', '7'], /^check-deployment: --input-limit-margin: 5 \(current SGLang\) or 0/],
    ['a flag given a value it takes none of', ['--json=yes'], /^check-deployment: --json takes no value \(see --help\)$/],
    ['a URL that is not http', ['--url', 'ftp://example.invalid'], /ftp:\/\/example\.invalid line 1, --url: not an http/],
    ['a server that does not answer', ['--url', 'http://127.0.0.1:9', '--timeout', '2'], /http:\/\/127\.0\.0\.1:9\/get_server_info line 1, --url: cannot reach it/],
  ];
  it(`a corpus of ${CORPUS.length} bad inputs`, () => {
    const got = CORPUS.map(([what, args]) => {
      const r = check(...args);
      return { what, code: r.code, out: r.out, lines: r.err.trimEnd().split('\n').length, stack: /\n\s+at |Error:|TypeError/.test(r.err), err: r.err.trimEnd() };
    });
    expect(got.map(({ err: _err, ...g }) => g)).toEqual(CORPUS.map(([what, , , problems]) => ({ what, code: 2, out: '', lines: problems ?? 1, stack: false })));
    got.forEach((g, i) => expect(g.err, g.what).toMatch(CORPUS[i]![2]));
  }, 120_000);

  it('--help prints the usage and what each exit code means; so does -- --help', () => {
    for (const args of [['--help'], ['--', '--help'], ['-h']]) {
      const r = check(...args);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^Usage: check-deployment/);
      expect(r.out).toMatch(/ 0 {2}the path is closed[\s\S]* 1 {2}the path is open[\s\S]* 3 {2}it cannot be told[\s\S]* 2 {2}unusable input/);
    }
  });
});

describe('check-deployment --url: a running server’s own report', () => {
  it('sends one GET /get_server_info and nothing else, and reads the answer', async () => {
    const seen: string[] = [];
    const prefill = readFileSync(`${F}/server-info-prefill-incident.json`, 'utf8');
    const decode = readFileSync(`${F}/server-info-decode-incident.json`, 'utf8');
    const server = createServer((req: IncomingMessage, res) => {
      seen.push(`${req.method} ${req.url}`);
      const body = req.url === '/p/get_server_info' ? prefill : req.url === '/d/get_server_info' ? decode : null;
      res.writeHead(body ? 200 : 404, { 'content-type': 'application/json' }).end(body ?? '{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const r = await checkAsync('--url', `http://127.0.0.1:${port}/p`, '--url', `http://127.0.0.1:${port}/d/`, ...INCIDENT_BEHAVIOUR, '--json');
      expect(r.code, r.err).toBe(1);
      expect(leaking(JSON.parse(r.out) as Json)).toEqual(['681274-1048569']);
      expect(seen.sort()).toEqual(['GET /d/get_server_info', 'GET /p/get_server_info']);
      const missing = await checkAsync('--url', `http://127.0.0.1:${port}/nothing`);
      expect([missing.code, missing.err.trim()]).toEqual([2, `check-deployment: http://127.0.0.1:${port}/nothing/get_server_info line 1, --url: answered HTTP 404`]);
    } finally {
      server.close();
    }
  }, 60_000);
});

describe('check-deployment reads a log of any size line by line', () => {
  it('a 60 MB log of requests around the start-up lines: the start-up is found, the rest only counted', () => {
    const requestLine = '[2026-08-27 09:13:02 TP0] Prefill batch. #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.01, #running-req: 0, #queue-req: 0\n';
    const head = readFileSync(`${F}/prefill-v0.5-dict-serverargs.log`, 'utf8');
    const big = join(dir, 'big.log');
    writeFileSync(big, head + requestLine.repeat(Math.ceil(60e6 / requestLine.length)));
    const r = check('--log', big, ...log('decode-v0.5-dict-serverargs.log'), ...INCIDENT_BEHAVIOUR, '--json');
    expect(r.code, r.err).toBe(1);
    expect(leaking(JSON.parse(r.out) as Json)).toEqual(['681274-1048569']);
  }, 120_000);
});
