import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { expect, test } from './fixtures.ts';
import { detect, frameHashes, keyframeTimes, maxVolume, parseVtt, probe, type Marks } from '../tools/mediaProbe.ts';

const run = promisify(execFile);

test('the recorder renders chapters frame by frame: constant 30 fps, narrated, keyed at chapters, never frozen outside predict beats, readable captions, the same frames twice', async ({ baseURL }, testInfo) => {
  test.setTimeout(300_000);
  const out = testInfo.outputPath('explainer');
  // Two short chapters; the third chapter has no checkpoint, the fifth neither: so no still is allowed anywhere.
  const chapters = [3, 5];
  const common = ['tsx', 'scripts/record.ts', '--lang', 'en', '--chapters', chapters.join(','), '--no-cards', '--base-url', baseURL!, '--out', out];
  const { stdout } = await run('npx', common, { timeout: 240_000, maxBuffer: 16 << 20 });
  expect(stdout).toMatch(/stale-pages\.en\.webm: \d+:\d\d\.\d \(\d+\.\d s\), 1280×720/);
  expect(stdout).toMatch(/stale-pages\.en\.mp4: \d+:\d\d\.\d \(\d+\.\d s\), 1280×720/);

  const marks = JSON.parse(readFileSync(join(out, 'chapters.en.json'), 'utf8')) as Marks;
  expect(marks.fps).toBe(30);
  expect(marks.chapters.map((c) => c.id)).toEqual(chapters.map((n) => CHAPTERS[n - 1]!.id));

  for (const [file, codec, audio] of [
    ['stale-pages.en.webm', 'vp9', 'opus'],
    ['stale-pages.en.mp4', 'h264', 'aac'],
  ] as const) {
    const path = join(out, file);
    const v = probe(path, '-select_streams', 'v:0', '-count_packets', '-show_entries', 'stream=codec_name,width,height,r_frame_rate,avg_frame_rate,nb_read_packets').streams[0];
    expect(v).toMatchObject({ codec_name: codec, width: 1280, height: 720, r_frame_rate: '30/1', avg_frame_rate: '30/1' });
    // Constant frame rate: every frame is stored, so the count is the timeline's.
    expect(Number(v.nb_read_packets)).toBe(marks.frames);
    const a = probe(path, '-select_streams', 'a', '-show_entries', 'stream=codec_name').streams;
    expect(a.map((s: { codec_name: string }) => s.codec_name)).toEqual([audio]);
    // A keyframe at every chapter start.
    const keys = keyframeTimes(path);
    for (const c of marks.chapters) expect(keys.some((k) => Math.abs(k - c.start) < 0.5 / 30), `keyframe at ${c.start}`).toBe(true);
    expect(probe(path, '-show_chapters').chapters).toHaveLength(chapters.length);
  }

  const mp4 = join(out, 'stale-pages.en.mp4');
  // The voice is there: the track's loudest moment is well above silence.
  expect(maxVolume(mp4)).toBeGreaterThan(-20);
  expect(detect(mp4, 'blackdetect=d=0.1:pix_th=0.10', 'black_start', 'black_end')).toEqual([]);
  const freezes = detect(mp4, 'freezedetect=n=-60dB:d=4', 'freeze_start', 'freeze_end');
  for (const [s, e] of freezes) {
    const inBeat = marks.predictBeats.some((b) => s >= b.start - 0.1 && e <= b.end + 0.1);
    expect(inBeat, `still picture from ${s} s to ${e} s outside any predict beat`).toBe(true);
  }

  // Each chapter start is a cut: the frame there differs from the one before (decoded by index).
  const cuts = marks.chapters.map((c) => c.startFrame).filter((f) => f > 0);
  const hashes = frameHashes(mp4, cuts.flatMap((f) => [f - 1, f]));
  for (const f of cuts) expect(hashes.get(f), `frame ${f}`).not.toBe(hashes.get(f - 1));

  // Captions: one cue at a time, at most 17 characters a second.
  const cues = parseVtt(readFileSync(join(out, 'stale-pages.en.vtt'), 'utf8'));
  expect(cues.length).toBeGreaterThan(4);
  for (const [i, c] of cues.entries()) {
    expect(c.text.length / (c.end - c.start), c.text).toBeLessThanOrEqual(17);
    if (i > 0) expect(c.start).toBeGreaterThanOrEqual(cues[i - 1]!.end - 1e-3);
    expect(c.end).toBeLessThanOrEqual(marks.durationS + 1e-3);
  }
  for (const n of chapters) for (const s of CHAPTERS[n - 1]!.steps) if ('caption' in s) expect(cues.map((c) => c.text).join(' ')).toContain(s.caption.en.split(' ').slice(0, 4).join(' '));
  const chapterVtt = parseVtt(readFileSync(join(out, 'chapters.en.vtt'), 'utf8'));
  expect(chapterVtt.map((c) => c.start)).toEqual(marks.chapters.map((m) => Number(m.start.toFixed(3))));

  // The same commit gives the same frames: a second render of a sample matches the first frame for frame.
  const all = new Map(readFileSync(join(out, 'stale-pages.en.frames.md5'), 'utf8').trim().split('\n').map((l) => l.split(' ') as [string, string]));
  const picks = [1, Math.floor(marks.frames / 3), cuts[0]!, marks.frames - 2];
  await run('npx', [...common, '--sample', picks.join(',')], { timeout: 120_000 });
  const again = readFileSync(join(out, 'stale-pages.en.sample.md5'), 'utf8').trim().split('\n').map((l) => l.split(' ') as [string, string]);
  expect(again).toEqual(picks.map((f) => [String(f), all.get(String(f))]));

  // A frame is a function of its chapter's steps alone: the second chapter rendered on its own gives
  // the frames it has after the first (nothing carried over: a run, a seek, a selection, the type).
  const last = marks.chapters[1]!;
  const length = Math.round((last.end - last.start) * marks.fps);
  const offsets = [1, Math.floor(length / 2), length - 2];
  const alone = ['tsx', 'scripts/record.ts', '--lang', 'en', '--chapters', String(last.n), '--no-cards', '--base-url', baseURL!, '--out', testInfo.outputPath('alone')];
  await run('npx', [...alone, '--sample', offsets.join(',')], { timeout: 120_000 });
  const single = readFileSync(join(testInfo.outputPath('alone'), 'stale-pages.en.sample.md5'), 'utf8').trim().split('\n').map((l) => l.split(' ')[1]);
  expect(single).toEqual(offsets.map((k) => all.get(String(last.startFrame + k))));
});
