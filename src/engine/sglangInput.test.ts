import { describe, expect, it } from 'vitest';
import { assembleDeployment, describeProblem, parseLaunchArgs, parseStartupLog } from './sglangInput.ts';
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
    expect(p.servers).toEqual([{ source: 'prefill box', line: 1, role: 'prefill', kvTokens: 681_280, contextTokens: 1_048_576, chunkTokens: 8192, from: 'log' }]);
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
    expect(p.servers).toEqual([{ source: 'decode.log', line: 3, role: 'decode', kvTokens: 1_310_720, contextTokens: 1_048_576, chunkTokens: 8192, pageSize: 64, from: 'log' }]);
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
    expect(a.origins).toEqual({ disaggregated: 'log', contextTokens: 'log', pageSize: 'args', chunkTokens: 'log', prefillCapacities: 'log', decodeCapacities: 'log' });
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
