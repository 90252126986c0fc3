import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'check-deployment-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
// As SGLang writes them: the launcher's server_args line, then the scheduler's line once the KV pool is allocated.
const serverArgs = (mode: string) => `[2026-08-27 09:12:30] server_args=ServerArgs(model_path='zai-org/GLM-5.3', context_length=1048576, chunked_prefill_size=8192, max_total_tokens=None, page_size=64, disaggregation_mode='${mode}', disaggregation_transfer_backend='mooncake')`;
const scheduler = (kv: number) => `[2026-08-27 09:12:44 TP0] max_total_num_tokens=${kv}, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=48, context_len=1048576, available_gpu_mem=9.87 GB`;

function check(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/checkDeployment.ts', ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('npm run check-deployment', () => {
  it('the incident’s numbers: the band from 681,281 to 1,048,576 leaks, exit 1', () => {
    const prefill = file('prefill.log', [serverArgs('prefill'), scheduler(681_280)].join('\n'));
    const decode = file('decode.log', [serverArgs('decode'), scheduler(1_310_720)].join('\n'));
    const { code, out } = check('--log', prefill, '--log', decode);
    expect(code).toBe(1);
    expect(out).toMatch(/681,281 – 1,048,576\s+LEAKS/);
    expect(out).toContain('smallest prompt that leaks: 681,281 tokens');
    expect(out).toMatch(/B2: SGLang PR #36988/);
    expect(out).toContain('limits: "No band leaks" means this path is closed on these numbers');
  });

  it('the fixed configuration (2.04 M prefill, the reject path fixed): no band leaks, exit 0', () => {
    const prefill = file('prefill-fixed.log', [serverArgs('prefill'), scheduler(2_040_000)].join('\n'));
    const decode = file('decode-fixed.log', [serverArgs('decode'), scheduler(2_097_152)].join('\n'));
    const { code, out } = check('--log', prefill, '--log', decode, '--reject-path', 'fixed');
    expect(code).toBe(0);
    expect(out).toContain('no band leaks on these numbers');
  });

  it('--json: the bands, the origins of each figure and the replay, parseable', () => {
    const args = file('launch.sh', 'python3 -m sglang.launch_server --disaggregation-mode prefill --context-length 1048576 --max-total-tokens 681280 --page-size 64\n');
    const { code, out } = check('--args', args, '--clear-pages', 'fixed', '--json');
    expect(code).toBe(0);
    const parsed = JSON.parse(out) as { origins: Record<string, string>; answer: { routes: { bands: { from: number; outcomes: string[] }[] }[] }; replay: { outcome: string } };
    expect(parsed.origins.decodeCapacities).toBe('assumed');
    expect(parsed.origins.prefillCapacities).toBe('args');
    expect(parsed.answer.routes[0]!.bands[1]).toMatchObject({ from: 681_281, outcomes: ['wrong-answer'] });
    expect(parsed.replay.outcome).toBe('wrong-answer');
  });

  it('input it cannot read: exit 2, naming the file, the line and the field', () => {
    const broken = file('broken.log', [serverArgs('prefill'), '[2026-08-27 09:12:44 TP0] max_total_num_tokens=, context_len=1048576'].join('\n'));
    const { code, err, out } = check('--log', broken);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toContain(`${broken} line 2, max_total_num_tokens:`);
    expect(check('--log', join(dir, 'missing.log')).err).toMatch(/missing\.log: cannot read \(ENOENT\)/);
    const unnamed = file('unnamed.log', scheduler(681_280));
    expect(check('--log', unnamed).err).toContain(`${unnamed} line 1, disaggregation_mode: cannot tell whether this server is prefill or decode`);
    expect(check('--log', `prefill:${unnamed}`, '--retire', 'maybe').err).toContain('--retire: must be incident, fixed or unknown');
  });
});
