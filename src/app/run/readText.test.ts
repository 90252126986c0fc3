import { describe, expect, it } from 'vitest';
import { parseLaunchArgs, parseStartupLog } from '../../engine/sglangInput.ts';
import { CHUNK_CHARS, readText, type ReadProgress } from './readText.ts';

const ARGS_LINE = "[2026-08-27 09:12:30] server_args=ServerArgs(model_path='zai-org/GLM-5.3', context_length=1048576, page_size=64, disaggregation_mode='prefill')";
const SCHEDULER_LINE = '[2026-08-27 09:12:44 TP0] max_total_num_tokens=681280, chunked_prefill_size=8192, max_prefill_tokens=16384, max_running_requests=48, context_len=1048576, available_gpu_mem=9.87 GB';
const REQUEST_LINE = '[2026-08-27 09:13:05 TP0] Prefill batch. #new-seq: 1, #new-token: 8192, #cached-token: 0, token usage: 0.01, #running-req: 0, #queue-req: 0';

/** A start-up log followed by request lines, about `chars` long, ending with `tail`. */
function bigLog(chars: number, tail = ''): string {
  const n = Math.ceil(chars / (REQUEST_LINE.length + 1));
  return [ARGS_LINE, SCHEDULER_LINE, ...Array.from({ length: n }, () => REQUEST_LINE)].join('\n') + tail;
}

describe('reading a box in chunks of lines', () => {
  it('answers what the engine’s parser answers, counts every line, and reports each chunk in order', async () => {
    const text = bigLog(3.5 * CHUNK_CHARS, '\n[2026-08-27 09:20:00 TP0] max_total_num_tokens=12x, context_len=1048576');
    const seen: ReadProgress[] = [];
    const result = await readText(text, 'Decode log', 'decode', (p) => seen.push(p), new AbortController().signal);
    const { lines, ...parsed } = result;
    expect(parsed).toEqual(parseStartupLog(text, 'Decode log', 'decode'));
    expect(parsed.problems.map((p) => [p.kind, p.line])).toEqual([
      ['role-conflict', 1],
      ['not-a-number', lines],
    ]);
    expect(lines).toBe(text.split('\n').length);
    const reading = seen.filter((p) => !p.parsing);
    expect(reading.length).toBe(4);
    for (let i = 1; i < reading.length; i++) expect(reading[i]!.read).toBeGreaterThan(reading[i - 1]!.read);
    // Chunks end at a line's end: a chunk's lines are whole.
    for (const p of reading.slice(0, -1)) expect(text[p.read - 1]).toBe('\n');
    expect(reading.at(-1)).toMatchObject({ read: text.length, total: text.length, lines: lines - 1 });
    expect(seen.at(-1)).toEqual({ read: text.length, total: text.length, lines, parsing: true });
  });

  it('reads launch arguments with the arguments’ parser, and a trailing newline is no line', async () => {
    const text = 'python3 -m sglang.launch_server --context-length 1048576 --page-size 64\n';
    const { lines, ...parsed } = await readText(text, 'Launch arguments', 'args', () => undefined, new AbortController().signal);
    expect(parsed).toEqual(parseLaunchArgs(text, 'Launch arguments'));
    expect(lines).toBe(1);
  });

  it('stops between two chunks once cancelled (a newer edit), without reading the figures', async () => {
    const controller = new AbortController();
    const seen: ReadProgress[] = [];
    const read = readText(bigLog(4 * CHUNK_CHARS), 'Prefill log', 'prefill', (p) => {
      seen.push(p);
      controller.abort();
    }, controller.signal);
    await expect(read).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toHaveLength(1);
  });
});
