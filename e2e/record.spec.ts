import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { animatedDuration } from '../src/app/walkthrough/steps.ts';
import { expect, test } from './fixtures.ts';

const run = promisify(execFile);

function parseVtt(text: string): { start: number; end: number; text: string }[] {
  const seconds = (s: string) => {
    const [h, m, rest] = s.split(':') as [string, string, string];
    return Number(h) * 3600 + Number(m) * 60 + Number(rest);
  };
  return text
    .split(/\n\n+/)
    .slice(1)
    .filter((b) => b.includes('-->'))
    .map((block) => {
      const lines = block.trim().split('\n');
      const timing = lines.find((l) => l.includes('-->'))!;
      const [a, b] = timing.split(' --> ') as [string, string];
      return { start: seconds(a), end: seconds(b.split(' ')[0]!), text: lines.slice(lines.indexOf(timing) + 1).join('\n') };
    });
}

test('the recorder makes a video of the expected length and size, with matching captions and chapters', async ({ baseURL }, testInfo) => {
  test.setTimeout(180_000);
  const out = testInfo.outputPath('explainer');
  const chapters = [2, 5];
  const dwell = 400;
  const predict = 600;
  const { stdout } = await run('npx', ['tsx', 'scripts/record.ts', '--lang', 'en', '--chapters', chapters.join(','), '--base-url', baseURL!, '--out', out, '--dwell', String(dwell), '--predict', String(predict)], {
    timeout: 150_000,
  });
  expect(stdout).toMatch(/stale-pages\.en\.webm: \d+:\d\d\.\d \(\d+\.\d s\), 1280×720/);

  const video = join(out, 'stale-pages.en.webm');
  const probe = JSON.parse(
    execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=codec_name,width,height:format=duration,format_name', '-of', 'json', video], { encoding: 'utf8' }),
  ) as { streams: { codec_name: string; width: number; height: number }[]; format: { duration: string; format_name: string } };
  expect(probe.format.format_name).toContain('webm');
  expect(probe.streams[0]).toMatchObject({ width: 1280, height: 720 });
  expect(['vp8', 'vp9']).toContain(probe.streams[0]!.codec_name);
  const duration = Number(probe.format.duration);
  // At least what the chapters' animations, the prediction pause and the reading time take; at most that plus loading slack.
  const least = (chapters.reduce((s, n) => s + animatedDuration(CHAPTERS[n - 1]!.steps), 0) + predict + chapters.length * dwell) / 1000;
  expect(duration).toBeGreaterThanOrEqual(least);
  expect(duration).toBeLessThan(least + 30);
  expect(statSync(video).size).toBeGreaterThan(50_000);

  const cues = parseVtt(readFileSync(join(out, 'stale-pages.en.vtt'), 'utf8'));
  const marks = JSON.parse(readFileSync(join(out, 'chapters.en.json'), 'utf8')) as { durationS: number; chapters: { n: number; id: string; title: string; start: number; end: number }[] };
  expect(marks.chapters.map((c) => c.id)).toEqual(chapters.map((n) => CHAPTERS[n - 1]!.id));
  expect(marks.durationS).toBeCloseTo(duration, 1);
  for (const [i, m] of marks.chapters.entries()) {
    expect(m.start).toBeLessThan(m.end);
    if (i > 0) expect(m.start).toBeCloseTo(marks.chapters[i - 1]!.end, 3);
    expect(m.end).toBeLessThanOrEqual(duration + 0.5);
    // Each chapter has its title cue at its start, and the captions its steps show.
    const title = cues.find((c) => c.text === `Chapter ${m.n} — ${m.title}`);
    expect(title?.start).toBeCloseTo(m.start, 2);
    for (const step of CHAPTERS[m.n - 1]!.steps) {
      if (!('caption' in step)) continue;
      const cue = cues.find((c) => c.text === step.caption.en);
      expect(cue, step.caption.en).toBeDefined();
      expect(cue!.start).toBeGreaterThanOrEqual(m.start - 0.01);
      expect(cue!.end).toBeLessThanOrEqual(m.end + 0.01);
    }
  }
  expect(cues.some((c) => c.text.startsWith('Predict: '))).toBe(true);
  for (const c of cues) {
    expect(c.start).toBeLessThanOrEqual(c.end);
    expect(c.end).toBeLessThanOrEqual(duration + 0.5);
  }
  const chapterVtt = parseVtt(readFileSync(join(out, 'chapters.en.vtt'), 'utf8'));
  expect(chapterVtt.map((c) => c.start)).toEqual(marks.chapters.map((m) => Number(m.start.toFixed(3))));
});
