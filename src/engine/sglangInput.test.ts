import { describe, expect, it } from 'vitest';
import { assembleDeployment, describeProblem, parseLaunchArgs, parseServerInfo, parseServerText, parseStartupLog, StartupLogReader } from './sglangInput.ts';
import { deploymentBands } from './deployment.ts';

// Lines as SGLang writes them: the scheduler's f-string after configure_logger's `[%(asctime)s{prefix}] `.
const PREFILL_LINE = '[2026-08-27 09:12:44 TP0] max_total_num_tokens=681280, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=48, context_len=1048576, available_gpu_mem=9.87 GB';
const DECODE_LINE = '[2026-08-27 09:13:02 DP0 TP0] max_total_num_tokens=1310720, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=256, context_len=1048576, available_gpu_mem=11.02 GB';
const NEWER_DATE = '[08-27 09:12:44 TP0] max_total_num_tokens=681280, chunked_prefill_size=-1, max_prefill_tokens=16384, max_running_requests=48, context_len=1048576, available_cpu_mem=90.12 GB';
const OLDER = '[2024-05-01 10:00:00 TP0] max_total_num_tokens=123456, max_prefill_tokens=16384, max_running_requests=2049, context_len=32768';
const SERVER_ARGS = (mode: string) =>
  `[2026-08-27 09:12:30] server_args=ServerArgs(model_path='zai-org/GLM-5.3', tokenizer_path='zai-org/GLM-5.3', tokenizer_mode='auto', context_length=1048576, chunked_prefill_size=8192, max_prefill_tokens=16384, max_total_tokens=None, page_size=64, disaggregation_mode='${mode}', disaggregation_transfer_backend='mooncake')`;

const ARGS = `python3 -m sglang.launch_server --model-path zai-org/GLM-5.3 --disaggregation-mode prefill \\
  --context-length 1048576 --page-size 64 --chunked-prefill-size 8192 --port 30000
python3 -m sglang.launch_server --model-path zai-org/GLM-5.3 --disaggregation-mode=decode \\
  --page-size=64 --max-total-tokens 1310720 --port 30001`;

describe('the scheduler’s start-up line', () => {
  it('reads max_total_num_tokens, context_len and chunked_prefill_size, with the role given', () => {
    const p = parseStartupLog(PREFILL_LINE, 'prefill box', 'prefill');
    expect(p.problems).toEqual([]);
    expect(p.servers).toEqual([{ source: 'prefill box', line: 1, role: 'prefill', kvTokens: 681_280, contextTokens: 1_048_576, chunkTokens: 8192, group: '', from: 'log' }]);
    expect(p.superseded).toEqual([]);
  });

  it('reads the newer date format, −1 (no chunking) and older lines without chunked_prefill_size', () => {
    expect(parseStartupLog(NEWER_DATE, 'x', 'prefill').servers[0]).toMatchObject({ kvTokens: 681_280, chunkTokens: 0 });
    const old = parseStartupLog(OLDER, 'x', 'decode').servers[0]!;
    expect(old).toMatchObject({ kvTokens: 123_456, contextTokens: 32_768 });
    expect(old.chunkTokens).toBeUndefined();
  });

  it('takes the role and the page size from the launcher’s server_args line, and strips colour codes', () => {
    const log = ['[2026-08-27 09:12:29] Loading model', SERVER_ARGS('decode'), `\u001b[32m${DECODE_LINE}\u001b[0m`].join('\n');
    const p = parseStartupLog(log, 'decode.log');
    expect(p.problems).toEqual([]);
    expect(p.servers).toEqual([{ source: 'decode.log', line: 3, role: 'decode', kvTokens: 1_310_720, contextTokens: 1_048_576, chunkTokens: 8192, pageSize: 64, group: 'DP0', from: 'log' }]);
  });

  it('refuses malformed lines, naming the line and the field', () => {
    const bad = parseStartupLog(['nothing here', '[2026-08-27 09:12:44 TP0] max_total_num_tokens=68l280, context_len=1048576'].join('\n'), 'p.log', 'prefill');
    expect(bad.problems.map(describeProblem)).toEqual(['p.log line 2, max_total_num_tokens: max_total_num_tokens must be a whole number of tokens, got "68l280"']);
    expect(bad.problems[0]).toMatchObject({ kind: 'not-a-number', value: '68l280' });
    const ctx = parseStartupLog('[2026-08-27 09:12:44 TP0] max_total_num_tokens=681280, context_len=big', 'p.log', 'prefill');
    expect(ctx.problems[0]).toMatchObject({ line: 1, field: 'context_len' });
    const none = parseStartupLog('[2026-08-27 09:12:44] Uvicorn running', 'p.log', 'prefill');
    expect(none.problems[0]).toMatchObject({ line: 1, field: 'max_total_num_tokens' });
  });

  it('refuses a line whose role cannot be told, and a role that contradicts the log', () => {
    expect(parseStartupLog(PREFILL_LINE, 'a.log').problems[0]).toMatchObject({ line: 1, field: 'disaggregation_mode' });
    const contradict = parseStartupLog([SERVER_ARGS('decode'), PREFILL_LINE].join('\n'), 'a.log', 'prefill');
    expect(contradict.problems[0]).toMatchObject({ line: 1, field: 'disaggregation_mode' });
    expect(parseStartupLog(SERVER_ARGS('both'), 'a.log').problems[0]).toMatchObject({ line: 1, field: 'disaggregation_mode' });
  });
});

describe('launch arguments', () => {
  it('one server per launch_server command, --flag value and --flag=value, continued lines', () => {
    const p = parseLaunchArgs(ARGS, 'launch.sh');
    expect(p.problems).toEqual([]);
    expect(p.servers).toEqual([
      { source: 'launch.sh', line: 1, role: 'prefill', contextTokens: 1_048_576, pageSize: 64, chunkTokens: 8192, from: 'args' },
      { source: 'launch.sh', line: 3, role: 'decode', pageSize: 64, kvTokens: 1_310_720, from: 'args' },
    ]);
  });

  it('a bare list of flags is one server; `sglang serve` starts one too', () => {
    expect(parseLaunchArgs('--context-length 131072\n--page-size 16', 'x').servers).toHaveLength(1);
    expect(parseLaunchArgs('sglang serve --disaggregation-mode prefill\nsglang serve --disaggregation-mode decode', 'x').servers.map((s) => s.role)).toEqual(['prefill', 'decode']);
  });

  it('refuses a missing or malformed value, naming the line and the flag', () => {
    const p = parseLaunchArgs('python -m sglang.launch_server \\\n  --page-size sixty-four \\\n  --disaggregation-mode both --context-length', 'launch.sh');
    expect(p.problems.map(describeProblem)).toEqual([
      'launch.sh line 2, --page-size: --page-size must be a whole number of tokens from 1 to 4096, got "sixty-four"',
      'launch.sh line 3, --disaggregation-mode: --disaggregation-mode must be prefill, decode or null, got "both"',
      'launch.sh line 3, --context-length: --context-length has no value',
    ]);
    expect(p.problems.map((x) => x.kind)).toEqual(['not-a-number', 'bad-mode', 'no-value']);
  });
});

describe('the deployment the texts describe', () => {
  it('two log lines and an argument list give the incident’s numbers, and its leaking band', () => {
    const servers = [...parseLaunchArgs(ARGS, 'args').servers, ...parseStartupLog(PREFILL_LINE, 'prefill', 'prefill').servers, ...parseStartupLog(DECODE_LINE, 'decode', 'decode').servers];
    const a = assembleDeployment(servers);
    expect(a.deployment).toMatchObject({ contextTokens: 1_048_576, prefillCapacities: [681_280], decodeCapacities: [1_310_720], pageSize: 64, chunkTokens: 8192, disaggregated: true });
    expect(a.origins).toEqual({
      disaggregated: 'log', contextTokens: 'log', pageSize: 'args', chunkTokens: 'log', prefillCapacities: 'log', decodeCapacities: 'log',
      decodeContextTokens: 'log', reservedDecodeTokens: 'assumed', allowAutoTruncate: 'assumed', maxReqInputLen: 'assumed', version: 'assumed',
    });
    expect(a.missing).toEqual([]);
    expect(deploymentBands(a.deployment).smallestLeak).toBe(681_281);
  });

  it('marks what was given nowhere as assumed, and an upper bound as such', () => {
    const a = assembleDeployment(parseLaunchArgs('--disaggregation-mode decode --max-total-tokens 2000000', 'x').servers);
    expect(a.origins.prefillCapacities).toBe('assumed');
    expect(a.origins.contextTokens).toBe('assumed');
    expect(a.origins.decodeCapacities).toBe('args');
    expect(a.notes.join(' ')).toMatch(/upper bound/);
  });

  it('what is typed wins', () => {
    const a = assembleDeployment(parseStartupLog(PREFILL_LINE, 'p', 'prefill').servers, { prefillCapacities: [2_040_000] });
    expect(a.deployment.prefillCapacities).toEqual([2_040_000]);
    expect(a.origins.prefillCapacities).toBe('typed');
  });

  it('servers launched without disaggregation are one kind', () => {
    const a = assembleDeployment(parseStartupLog([SERVER_ARGS('null'), PREFILL_LINE].join('\n'), 'one.log').servers);
    expect(a.deployment.disaggregated).toBe(false);
    expect(deploymentBands(a.deployment).leaks).toBe(false);
  });
});

// The newer launcher's `server_args={…}` (a dict repr) and the rank prefixes configure_logger writes.
const DICT_ARGS = (mode: string, extra = '') =>
  `[2026-08-27 09:12:30] server_args={'model_path': 'zai-org/GLM-5.3', 'context_length': 1048576, 'max_total_tokens': None, 'chunked_prefill_size': 8192, 'page_size': 64, 'tp_size': 8, 'dp_size': 1, 'allow_auto_truncate': False, 'disaggregation_mode': '${mode}', 'num_reserved_decode_tokens': 512${extra}}`;
const sched = (prefix: string, kv: number | string, ctx = 1_048_576) => `[2026-08-27 09:12:44${prefix}] max_total_num_tokens=${kv}, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=48, context_len=${ctx}, available_gpu_mem=9.87 GB`;

describe('start-up logs, streamed', () => {
  it('the reader counts lines itself, and skipped lines count too', () => {
    const r = new StartupLogReader('p.log', null);
    r.line('[2026-08-27 09:12:29] Loading');
    r.skipLines(1000);
    r.line(DICT_ARGS('prefill'));
    r.skipLines(5);
    r.line(sched(' TP0', 681_280));
    const p = r.finish();
    expect(r.lines).toBe(1008);
    expect(p.problems).toEqual([]);
    expect(p.servers).toEqual([
      { source: 'p.log', line: 1008, role: 'prefill', kvTokens: 681_280, contextTokens: 1_048_576, chunkTokens: 8192, pageSize: 64, reservedDecodeTokens: 512, allowAutoTruncate: false, group: '', from: 'log' },
    ]);
  });

  it('reads the dict form of server_args: context, page, chunk, reserved tokens, auto-truncate, the role', () => {
    const p = parseStartupLog([DICT_ARGS('decode').replace("'allow_auto_truncate': False", "'allow_auto_truncate': True").replace("'num_reserved_decode_tokens': 512", "'num_reserved_decode_tokens': 1024"), sched(' TP0', 1_310_720, 131_072)].join('\n'), 'd.log');
    expect(p.problems).toEqual([]);
    expect(p.servers[0]).toMatchObject({ line: 2, role: 'decode', kvTokens: 1_310_720, contextTokens: 131_072, pageSize: 64, reservedDecodeTokens: 1024, allowAutoTruncate: true });
  });

  it('CRLF line ends and colours anywhere on the line', () => {
    const p = parseStartupLog(['\u001b[1m\u001b[32m' + DICT_ARGS('prefill') + '\u001b[0m', '\u001b[33m' + sched(' TP0', 681_280) + '\u001b[0m'].join('\r\n') + '\r\n', 'c.log');
    expect(p.problems).toEqual([]);
    expect(p.servers[0]).toMatchObject({ line: 2, role: 'prefill', kvTokens: 681_280, contextTokens: 1_048_576 });
  });

  it('the SGLang version, where a line gives it, goes with the start-up after it', () => {
    const p = parseStartupLog(['[2026-08-27 09:11:58] SGLang version: 0.5.2', DICT_ARGS('prefill'), sched(' TP0', 681_280)].join('\n'), 'v.log');
    expect(p.servers[0]!.version).toBe('0.5.2');
  });
});

describe('ranks and process groups', () => {
  it('eight TP ranks are one server, at its first rank’s line', () => {
    const p = parseStartupLog([DICT_ARGS('prefill'), ...Array.from({ length: 8 }, (_, r) => sched(` TP${r}`, 681_280))].join('\n'), 'tp8.log');
    expect(p.servers).toHaveLength(1);
    expect(p.servers[0]).toMatchObject({ line: 2, kvTokens: 681_280, group: '' });
    expect(p.servers[0]!.notes).toBeUndefined();
  });

  it('ranks that disagree: the smallest pool, and a note naming each rank and line', () => {
    const p = parseStartupLog([DICT_ARGS('prefill'), sched(' TP0', 681_280), sched(' TP1', 681_216)].join('\n'), 'tp2.log');
    expect(p.servers).toHaveLength(1);
    expect(p.servers[0]!.kvTokens).toBe(681_216);
    expect(p.servers[0]!.notes).toEqual(['tp2.log: the ranks of one server give different max_total_num_tokens (TP0 681,280 on line 2, TP1 681,216 on line 3); the smallest, 681,216, is used']);
    expect(assembleDeployment(p.servers).notes).toContain(p.servers[0]!.notes![0]);
  });

  it('each DP rank is a KV pool of its own: DP4 with TP4 is four servers; PP, EP, ATTN_CP and MOE_DP ranks fold in', () => {
    const dp = parseStartupLog([DICT_ARGS('decode'), ...[0, 1, 2, 3].flatMap((d) => [0, 1].map((t) => sched(` DP${d} PP${t} ATTN_CP0 MOE_DP0 TP${t} EP${t}`, 1_310_720)))].join('\n'), 'dp.log');
    expect(dp.problems).toEqual([]);
    expect(dp.servers.map((s) => [s.group, s.line, s.kvTokens])).toEqual([
      ['DP0', 2, 1_310_720],
      ['DP1', 4, 1_310_720],
      ['DP2', 6, 1_310_720],
      ['DP3', 8, 1_310_720],
    ]);
    expect(assembleDeployment(dp.servers).deployment.decodeCapacities).toEqual([1_310_720, 1_310_720, 1_310_720, 1_310_720]);
  });

  it('32 ranks in 4 DP groups of TP8 are four servers', () => {
    const lines = [DICT_ARGS('prefill')];
    for (let d = 0; d < 4; d++) for (let t = 0; t < 8; t++) lines.push(sched(` DP${d} TP${t} EP${t}`, 2_040_000, 2_097_152));
    const p = parseStartupLog(lines.join('\n'), '32.log');
    expect(p.servers.map((s) => s.group)).toEqual(['DP0', 'DP1', 'DP2', 'DP3']);
    expect(p.superseded).toEqual([]);
  });

  it('a DP-attention server that logs only DP0 TP0 (newer releases) says the other ranks were not counted', () => {
    const p = parseStartupLog([DICT_ARGS('decode', ", 'enable_dp_attention': True").replace("'dp_size': 1", "'dp_size': 4"), sched(' DP0 TP0', 1_310_720)].join('\n'), 'dpa.log');
    expect(p.servers).toHaveLength(1);
    expect(p.servers[0]!.notes![0]).toMatch(/dp_size=4, but only one DP rank logs a scheduler line/);
  });
});

describe('restarts', () => {
  it('a second server_args line starts a new start-up: the latest counts, the earlier is superseded', () => {
    const p = parseStartupLog([SERVER_ARGS('prefill'), sched(' TP0', 681_280), 'request lines', DICT_ARGS('prefill').replace('1048576', '2097152'), sched(' TP0', 2_040_000, 2_097_152)].join('\n'), 'r.log');
    expect(p.problems).toEqual([]);
    expect(p.servers).toMatchObject([{ line: 5, kvTokens: 2_040_000, contextTokens: 2_097_152 }]);
    expect(p.superseded).toMatchObject([{ line: 2, kvTokens: 681_280, contextTokens: 1_048_576 }]);
  });

  it('a rank that logs its scheduler line again is a restart even without server_args', () => {
    const p = parseStartupLog([DICT_ARGS('prefill'), sched(' TP0', 681_280), sched(' TP1', 681_280), sched(' TP0', 655_360), sched(' TP1', 655_360)].join('\n'), 'r.log');
    expect(p.servers).toMatchObject([{ line: 4, kvTokens: 655_360, role: 'prefill', pageSize: 64 }]);
    expect(p.superseded).toMatchObject([{ line: 2, kvTokens: 681_280 }]);
  });

  it('a later start-up that never reached its scheduler line leaves the one before, with a note', () => {
    const p = parseStartupLog([DICT_ARGS('prefill'), sched(' TP0', 681_280), DICT_ARGS('prefill'), 'CUDA out of memory'].join('\n'), 'r.log');
    expect(p.servers).toMatchObject([{ line: 2, kvTokens: 681_280 }]);
    expect(p.servers[0]!.notes).toEqual(['r.log line 3: a later start-up logs no scheduler line (it may not have finished starting); the start-up at line 1 is used']);
  });
});

describe('bad logs', () => {
  it('a log whose own disaggregation_mode contradicts the role given names both', () => {
    const p = parseStartupLog([DICT_ARGS('decode'), sched(' TP0', 1_310_720)].join('\n'), 'decode.log', 'prefill');
    expect(p.problems.map(describeProblem)).toEqual(["decode.log line 1, disaggregation_mode: this log says disaggregation_mode=decode (line 1), but it was given as the prefill server's"]);
    expect(p.problems[0]).toMatchObject({ kind: 'role-conflict', value: 'decode' });
  });

  it('a scheduler line with no value, binary input, and empty input', () => {
    const p = parseStartupLog([DICT_ARGS('prefill'), '[2026-08-27 09:12:44 TP0] max_total_num_tokens=, chunked_prefill_size=8192, context_len=1048576'].join('\n'), 'p.log');
    expect(p.problems).toEqual([{ source: 'p.log', line: 2, field: 'max_total_num_tokens', kind: 'no-value', value: '', message: 'max_total_num_tokens has no value' }]);
    expect(parseStartupLog('\u0000\u0001max_total_num_tokens=1', 'b.log').problems).toMatchObject([{ kind: 'not-text', line: 1 }]);
    expect(parseServerText('ELF\u0000\u0000', 'b').problems).toMatchObject([{ kind: 'not-text' }]);
    expect(parseStartupLog('', 'e.log').problems).toMatchObject([{ kind: 'nothing-given', message: 'the text is empty' }]);
    expect(parseServerText('  \n', 'e').problems).toMatchObject([{ kind: 'nothing-given' }]);
  });
});

describe('launch commands in every form', () => {
  it('the new flags: reserved decode tokens, --allow-auto-truncate (no value), --x=y', () => {
    const p = parseLaunchArgs('sglang serve --model-path m --disaggregation-mode decode --allow-auto-truncate --num-reserved-decode-tokens=1024 --context-length 131072', 'a.sh');
    expect(p.problems).toEqual([]);
    expect(p.servers).toEqual([{ source: 'a.sh', line: 1, role: 'decode', allowAutoTruncate: true, reservedDecodeTokens: 1024, contextTokens: 131_072, from: 'args' }]);
  });

  it('a Kubernetes args list, block items, the line of each', () => {
    const yaml = ['containers:', '  - name: sglang', '    command:', '      - python3', '      - -m', '      - sglang.launch_server', '    args:', '      - "--disaggregation-mode"', '      - "prefill"', '      - "--context-length"', "      - '1048576'", '      - --page-size=64'].join('\n');
    const p = parseLaunchArgs(yaml, 'pod.yaml');
    expect(p.problems).toEqual([]);
    expect(p.servers).toEqual([{ source: 'pod.yaml', line: 6, role: 'prefill', contextTokens: 1_048_576, pageSize: 64, from: 'args' }]);
  });

  it('an inline YAML list, a JSON array, and a whole command inside sh -c', () => {
    const inline = parseLaunchArgs('command: ["sglang", "serve"]\nargs: ["--disaggregation-mode", "decode", "--max-total-tokens", 1310720]', 'x.yaml');
    expect(inline.servers).toEqual([{ source: 'x.yaml', line: 1, role: 'decode', kvTokens: 1_310_720, from: 'args' }]);
    const json = parseServerText('[\n  "--context-length",\n  "2097152",\n  "--allow-auto-truncate"\n]', 'args.json');
    expect(json.servers).toEqual([{ source: 'args.json', line: 2, role: null, contextTokens: 2_097_152, allowAutoTruncate: true, from: 'args' }]);
    const sh = parseLaunchArgs('command: ["/bin/sh", "-c"]\nargs:\n  - "python3 -m sglang.launch_server --disaggregation-mode prefill --page-size 32"', 'sh.yaml');
    expect(sh.servers).toEqual([{ source: 'sh.yaml', line: 3, role: 'prefill', pageSize: 32, from: 'args' }]);
  });

  it('a role given for a command that says otherwise', () => {
    const p = parseLaunchArgs('python -m sglang.launch_server --disaggregation-mode decode', 'a.sh', 'prefill');
    expect(p.problems.map(describeProblem)).toEqual(["a.sh line 1, --disaggregation-mode: this command says --disaggregation-mode decode, but it was given as the prefill server's"]);
    expect(parseLaunchArgs('--page-size 64', 'b', 'decode').servers[0]!.role).toBe('decode');
  });
});

const INFO = (mode: string | null, states: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify(
    {
      model_path: 'zai-org/GLM-5.3',
      context_length: 1_048_576,
      page_size: 64,
      chunked_prefill_size: 8192,
      allow_auto_truncate: false,
      ...(mode === null ? {} : { disaggregation_mode: mode, num_reserved_decode_tokens: 512 }),
      max_total_num_tokens: 681_280,
      max_req_input_len: 681_274,
      internal_states: Array.from({ length: states }, (_, i) => ({ last_gen_throughput: 1, memory_usage: { kvcache: 29.1, token_capacity: 681_280 - i } })),
      version: '0.5.2',
      ...extra,
    },
    null,
    2,
  );

describe('/get_server_info', () => {
  it('reads the flattened server args, the scheduler info and the version', () => {
    const p = parseServerInfo(INFO('prefill', 1), 'info.json');
    expect(p.problems).toEqual([]);
    expect(p.servers).toEqual([
      { source: 'info.json', line: 9, role: 'prefill', contextTokens: 1_048_576, pageSize: 64, chunkTokens: 8192, allowAutoTruncate: false, reservedDecodeTokens: 512, maxReqInputLen: 681_274, version: '0.5.2', kvTokens: 681_280, group: '', from: 'server-info' },
    ]);
    expect(parseServerText(INFO('prefill', 1), 'info.json')).toEqual(p);
  });

  it('one server per DP rank of internal_states, each with its own token_capacity', () => {
    const p = parseServerInfo(INFO('decode', 3), 'd.json');
    expect(p.servers.map((s) => [s.group, s.kvTokens])).toEqual([
      ['DP0', 681_280],
      ['DP1', 681_279],
      ['DP2', 681_278],
    ]);
  });

  it('an older answer without disaggregation_mode nor memory_usage: one colocated server with the scheduler’s max_total_num_tokens', () => {
    const p = parseServerInfo(JSON.stringify({ context_length: null, page_size: 1, max_total_num_tokens: 524_288, max_req_input_len: 131_066, internal_states: [{ last_gen_throughput: 3 }], version: '0.4.3.post2' }), 'old.json');
    expect(p.problems).toEqual([]);
    expect(p.servers).toMatchObject([{ role: 'colocated', kvTokens: 524_288, maxReqInputLen: 131_066, version: '0.4.3.post2' }]);
    expect(p.servers[0]!.contextTokens).toBeUndefined();
  });

  it('swapped roles, bad JSON, and JSON that is not server info', () => {
    expect(parseServerInfo(INFO('decode', 1), 'd.json', 'prefill').problems).toMatchObject([{ kind: 'role-conflict', field: 'disaggregation_mode', line: 7 }]);
    expect(parseServerInfo('{"context_length": 1048576,', 'x.json').problems).toMatchObject([{ kind: 'bad-json' }]);
    expect(parseServerInfo('[1, 2]', 'x.json').problems).toMatchObject([{ kind: 'bad-json' }]);
    expect(parseServerInfo('{"context_length": 1048576}', 'x.json').problems).toMatchObject([{ kind: 'no-value', field: 'max_total_num_tokens' }]);
    expect(parseServerInfo(INFO('prefill', 1, { page_size: 'big' }), 'x.json').problems).toMatchObject([{ kind: 'not-a-number', field: 'page_size', line: 4 }]);
  });
});

describe('parseServerText picks the form by content', () => {
  it('JSON object → server info, a log marker → log, else launch arguments', () => {
    expect(parseServerText(INFO('prefill', 1), 'a').servers[0]!.from).toBe('server-info');
    expect(parseServerText(PREFILL_LINE, 'b', 'prefill').servers[0]!.from).toBe('log');
    expect(parseServerText('--context-length 131072', 'c').servers[0]!.from).toBe('args');
  });
});

describe('the deployment from every source', () => {
  it('server info of prefill and decode: capacities, max_req_input_len, version, with their origins; nothing missing', () => {
    const servers = [...parseServerInfo(INFO('prefill', 1), 'p.json').servers, ...parseServerInfo(INFO('decode', 1, { max_total_num_tokens: 1_310_720, internal_states: [], num_reserved_decode_tokens: 1024, context_length: 131_072 }), 'd.json').servers];
    const a = assembleDeployment(servers);
    expect(a.deployment).toMatchObject({ contextTokens: 1_048_576, decodeContextTokens: 131_072, prefillCapacities: [681_280], decodeCapacities: [1_310_720], reservedDecodeTokens: 1024, maxReqInputLen: 681_274, version: '0.5.2', allowAutoTruncate: false, disaggregated: true });
    expect(a.origins).toMatchObject({ prefillCapacities: 'server-info', decodeCapacities: 'server-info', maxReqInputLen: 'server-info', version: 'server-info', decodeContextTokens: 'server-info', disaggregated: 'server-info' });
    expect(a.missing).toEqual([]);
  });

  it('what is missing is listed, in order; a colocated deployment needs no decode capacity', () => {
    const a = assembleDeployment(parseLaunchArgs('--disaggregation-mode decode --max-total-tokens 2000000', 'x').servers);
    expect(a.missing).toEqual(['contextTokens', 'prefillCapacities', 'pageSize', 'chunkTokens']);
    expect(a.origins.reservedDecodeTokens).toBe('assumed');
    expect(a.deployment).toMatchObject({ reservedDecodeTokens: 512, decodeContextTokens: null, version: null, allowAutoTruncate: false, maxReqInputLen: null });
    const colocated = assembleDeployment(parseLaunchArgs('--disaggregation-mode null --context-length 131072 --page-size 16 --chunked-prefill-size -1', 'y').servers);
    expect(colocated.missing).toEqual(['prefillCapacities']);
  });

  it('the log beats the arguments; typed beats both, the new figures included', () => {
    const servers = [...parseLaunchArgs('--disaggregation-mode prefill --allow-auto-truncate --context-length 1048576', 'a').servers, ...parseStartupLog([DICT_ARGS('prefill'), sched(' TP0', 681_280)].join('\n'), 'p.log').servers];
    const a = assembleDeployment(servers, { reservedDecodeTokens: 256 });
    expect(a.deployment.allowAutoTruncate).toBe(false);
    expect(a.origins.allowAutoTruncate).toBe('log');
    expect(a.deployment.reservedDecodeTokens).toBe(256);
    expect(a.origins.reservedDecodeTokens).toBe('typed');
  });
});
