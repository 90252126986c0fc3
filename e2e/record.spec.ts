import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { narratedTimeline, scriptFor } from '../scripts/record/script.ts';
import { expect, test } from './fixtures.ts';
import { detect, frameHashes, keyframeTimes, maxVolume, parseVtt, probe, type Marks } from '../tools/mediaProbe.ts';

const run = promisify(execFile);
/**
 * The recorder as one Node process (tsx as a loader, not npx's chain of three): a timeout that ends
 * it ends its browser too, rather than leaving a render running on after the test.
 */
const RECORD = ['--import', 'tsx', 'scripts/record.ts'];

/** Two short chapters; the third chapter has no checkpoint, the fifth neither: so no still is allowed anywhere. */
const CHAPTER_NUMBERS = [3, 5];
const LANGS = ['en', 'fr'] as const;
type Lang = (typeof LANGS)[number];
/**
 * Each chapter's first seconds: its card is said for 5.3 to 6.0 s in either language, so 7 s reach
 * into its first caption and past the cut from the card to the picture (chapter 5's first move
 * starts with that caption).
 */
const SECONDS = 7;
const FPS = 30;

const md5Lines = (path: string) => readFileSync(path, 'utf8').trim().split('\n').map((l) => l.split(' ') as [string, string]);

/**
 * One language's files of the short render: the timeline's frames and chapter marks, both videos'
 * streams, keyframes and chapter marks, the voice, no black or frozen picture, a cut at each chapter
 * start, the captions and the chapters track.
 */
function checkLanguage(out: string, lang: Lang, marks: Marks, stdout: string): void {
  expect(stdout).toMatch(new RegExp(`stale-pages\\.${lang}\\.webm: \\d+:\\d\\d\\.\\d \\(\\d+\\.\\d s\\), 1280×720`));
  expect(stdout).toMatch(new RegExp(`stale-pages\\.${lang}\\.mp4: \\d+:\\d\\d\\.\\d \\(\\d+\\.\\d s\\), 1280×720`));

  expect(marks.fps).toBe(FPS);
  expect(marks.chapters.map((c) => c.id)).toEqual(CHAPTER_NUMBERS.map((n) => CHAPTERS[n - 1]!.id));

  // The timeline as the recorder laid it out (the same voices, cached by the render), and the
  // window of it each chapter gets: its first SECONDS, end to end in the output.
  const { timeline } = narratedTimeline(scriptFor(lang, CHAPTER_NUMBERS, false, (id) => { throw new Error(`no card asks for ${id}`); }), CHAPTER_NUMBERS, 1);
  let at = 0;
  const windows = timeline.chapters.map((m) => {
    const w = { n: m.n, from: m.from, to: Math.min(m.to, m.from + SECONDS * FPS), at };
    at += w.to - w.from;
    return w;
  });
  expect(marks.frames, `${lang}: frames`).toBe(at);
  expect(marks.durationS).toBeCloseTo(at / FPS, 6);
  expect(marks.chapters.map((c) => [c.startFrame, c.start, c.end])).toEqual(windows.map((w) => [w.at, w.at / FPS, (w.at + w.to - w.from) / FPS]));

  for (const [file, codec, audio] of [
    [`stale-pages.${lang}.webm`, 'vp9', 'opus'],
    [`stale-pages.${lang}.mp4`, 'h264', 'aac'],
  ] as const) {
    const path = join(out, file);
    const v = probe(path, '-select_streams', 'v:0', '-count_packets', '-show_entries', 'stream=codec_name,width,height,r_frame_rate,avg_frame_rate,nb_read_packets').streams[0];
    expect(v).toMatchObject({ codec_name: codec, width: 1280, height: 720, r_frame_rate: '30/1', avg_frame_rate: '30/1' });
    // Constant frame rate: every frame is stored, so the count is the timeline's (the windows').
    expect(Number(v.nb_read_packets), file).toBe(marks.frames);
    const a = probe(path, '-select_streams', 'a', '-show_entries', 'stream=codec_name').streams;
    expect(a.map((s: { codec_name: string }) => s.codec_name)).toEqual([audio]);
    // A keyframe at every chapter start.
    const keys = keyframeTimes(path);
    for (const c of marks.chapters) expect(keys.some((k) => Math.abs(k - c.start) < 0.5 / FPS), `${file}: keyframe at ${c.start}`).toBe(true);
    // The chapter marks, where the output's chapters start.
    const fileChapters = probe(path, '-show_chapters').chapters as { start_time: string }[];
    expect(fileChapters).toHaveLength(CHAPTER_NUMBERS.length);
    for (const [i, c] of fileChapters.entries()) expect(Number(c.start_time), `${file}: chapter ${i + 1}`).toBeCloseTo(marks.chapters[i]!.start, 2);
  }

  const mp4 = join(out, `stale-pages.${lang}.mp4`);
  // The voice is there: the track's loudest moment is well above silence.
  expect(maxVolume(mp4), `${lang}: loudest`).toBeGreaterThan(-20);
  expect(detect(mp4, 'blackdetect=d=0.1:pix_th=0.10', 'black_start', 'black_end'), `${lang}: black frames`).toEqual([]);
  const freezes = detect(mp4, 'freezedetect=n=-60dB:d=4', 'freeze_start', 'freeze_end');
  for (const [s, e] of freezes) {
    const inBeat = marks.predictBeats.some((b) => s >= b.start - 0.1 && e <= b.end + 0.1);
    expect(inBeat, `${lang}: still picture from ${s} s to ${e} s outside any predict beat`).toBe(true);
  }

  // Each chapter start is a cut: the frame there differs from the one before (decoded by index).
  const cuts = marks.chapters.map((c) => c.startFrame).filter((f) => f > 0);
  expect(cuts.length).toBeGreaterThan(0);
  const hashes = frameHashes(mp4, cuts.flatMap((f) => [f - 1, f]));
  for (const f of cuts) expect(hashes.get(f), `${lang}: frame ${f}`).not.toBe(hashes.get(f - 1));

  // Captions: every cue the timeline starts inside a chapter's window, at its place in the output
  // (and no other); one at a time, at most 17 characters a second, inside the duration.
  const cues = parseVtt(readFileSync(join(out, `stale-pages.${lang}.vtt`), 'utf8'));
  const windowOf = (frame: number) => windows.find((w) => frame >= w.from && frame < w.to);
  const shown = timeline.cues.filter((c) => windowOf(c.from));
  expect(cues.map((c) => c.text), `${lang}: the cues that start inside the windows`).toEqual(shown.map((c) => c.text));
  for (const [i, c] of cues.entries()) {
    const laidOut = shown[i]!;
    const w = windowOf(laidOut.from)!;
    expect(c.start, `${lang}: ${c.text}`).toBeCloseTo((w.at + laidOut.from - w.from) / FPS, 3);
    if (laidOut.to > w.to) {
      // Cut by its window's end (the rest of it is said in seconds not rendered): it ends with the
      // window, and its reading rate is the one the whole video gives it.
      expect(c.end, `${lang}: ${c.text}`).toBeCloseTo((w.at + w.to - w.from) / FPS, 3);
      expect(laidOut.text.length / ((laidOut.to - laidOut.from) / FPS), c.text).toBeLessThanOrEqual(17);
    } else expect(c.text.length / (c.end - c.start), c.text).toBeLessThanOrEqual(17);
    if (i > 0) expect(c.start).toBeGreaterThanOrEqual(cues[i - 1]!.end - 1e-3);
    expect(c.end).toBeLessThanOrEqual(marks.durationS + 1e-3);
  }
  // At least one of each chapter's captions is in its window: the first, as the chapter words it.
  for (const w of windows) {
    const firstCaption = CHAPTERS[w.n - 1]!.steps.flatMap((s) => ('caption' in s ? [s.caption[lang]] : []))[0];
    const inWindow = shown.filter((c) => c.kind === 'caption' && windowOf(c.from) === w);
    expect(inWindow.length, `${lang}: captions in chapter ${w.n}'s window`).toBeGreaterThan(0);
    // Spaced as the screen spaces it (French puts a no-break space before « : »).
    const words = (text: string) => text.replace(/[\s\u00a0\u202f]+/gu, ' ');
    expect(words(inWindow[0]!.text), `${lang}: chapter ${w.n}'s first caption`).toContain(words(firstCaption!).split(' ').slice(0, 4).join(' '));
  }
  const chapterVtt = parseVtt(readFileSync(join(out, `chapters.${lang}.vtt`), 'utf8'));
  expect(chapterVtt.map((c) => c.start)).toEqual(marks.chapters.map((m) => Number(m.start.toFixed(3))));
}

test('the recorder renders each chapter’s first seconds frame by frame, in English and French: constant 30 fps, narrated, keyed at chapters, never frozen outside predict beats, readable captions, the same frames twice', async ({ baseURL }, testInfo) => {
  // Generous, to fail on a hang rather than on a busy machine: beside four other suites on the same
  // two cores, the first render took 10 minutes (840 frames) and the whole test 11.6.
  test.setTimeout(1_080_000);
  const out = testInfo.outputPath('explainer');
  const common = [...RECORD, '--lang', LANGS.join(','), '--chapters', CHAPTER_NUMBERS.join(','), '--no-cards', '--seconds', String(SECONDS), '--base-url', baseURL!];
  const { stdout } = await run(process.execPath, [...common, '--out', out], { timeout: 720_000, maxBuffer: 16 << 20 });

  const marksOf = new Map(LANGS.map((lang) => [lang, JSON.parse(readFileSync(join(out, `chapters.${lang}.json`), 'utf8')) as Marks] as const));

  // The determinism renders need only the chapter marks: they run while the files are checked below.
  // The same commit gives the same frames: a second render of a sample (frame numbers of the short
  // video) will be held to the first frame for frame, in each language.
  const shortest = Math.min(...LANGS.map((lang) => marksOf.get(lang)!.frames));
  const secondOf = (lang: Lang) => marksOf.get(lang)!.chapters[1]!;
  const picks = [...new Set([1, Math.floor(shortest / 3), ...LANGS.map((lang) => secondOf(lang).startFrame), shortest - 2])].sort((a, b) => a - b);
  // A frame is a function of its chapter's steps alone: the second chapter rendered on its own will
  // be held to the frames it has after the first (nothing carried over: a run, a seek, a selection, the type).
  const length = Math.min(...LANGS.map((lang) => Math.round((secondOf(lang).end - secondOf(lang).start) * FPS)));
  const offsets = [1, Math.floor(length / 2), length - 2];
  const aloneOut = testInfo.outputPath('alone');
  const alone = [...RECORD, '--lang', LANGS.join(','), '--chapters', String(secondOf('en').n), '--no-cards', '--seconds', String(SECONDS), '--base-url', baseURL!, '--out', aloneOut];
  const sampleAgain = run(process.execPath, [...common, '--out', out, '--sample', picks.join(',')], { timeout: 300_000 });
  const chapterAlone = run(process.execPath, [...alone, '--sample', offsets.join(',')], { timeout: 300_000 });
  // Whatever fails below, both renders end before the test does (none is left running after it).
  const rendersEnded = Promise.allSettled([sampleAgain, chapterAlone]);
  try {
    for (const lang of LANGS) checkLanguage(out, lang, marksOf.get(lang)!, stdout);
  } finally {
    await rendersEnded;
  }
  await sampleAgain;
  await chapterAlone;

  const allOf = new Map(LANGS.map((lang) => [lang, new Map(md5Lines(join(out, `stale-pages.${lang}.frames.md5`)))]));
  for (const lang of LANGS) {
    expect(md5Lines(join(out, `stale-pages.${lang}.sample.md5`)), `${lang}: the sample rendered again`).toEqual(picks.map((f) => [String(f), allOf.get(lang)!.get(String(f))]));
    const single = md5Lines(join(aloneOut, `stale-pages.${lang}.sample.md5`)).map(([, h]) => h);
    expect(single, `${lang}: chapter ${secondOf(lang).n} alone`).toEqual(offsets.map((k) => allOf.get(lang)!.get(String(secondOf(lang).startFrame + k))));
  }
});
