/**
 * npm run record -- [--lang en,fr] [--chapters 1,2,5] [--out explainer] [--base-url URL] [--port 4310]
 *                   [--no-build] [--1080p] [--clips] [--no-cards] [--wait-scale 1] [--seconds 7] [--sample 0,40,90]
 *
 * Renders the explainer frame by frame (docs/VIDEO.md). The chapters' captions, questions and
 * answers are spoken first (festival in English, espeak-ng in French); their real durations lay the frames out
 * (src/app/render/schedule.ts). The page, opened as `?screen=render`, computes every run before
 * the first frame and then shows each frame on request, a pure function of its number; each is
 * captured as a PNG and piped to ffmpeg, which writes WebM (VP9 + Opus) and MP4 (H.264 + AAC) at a
 * constant 30 fps, a keyframe at every chapter start and the chapters as chapter marks; the captions
 * are burned in (the screen's caption band), so the files carry no subtitle track. Beside each video:
 * its transcript (WebVTT, the captions' words and times), its chapters (WebVTT and JSON, with each
 * moving beat's lead over its sentence), and the MD5 of every frame. `--clips` also cuts one file per chapter; `--sample` renders
 * only the frames named and writes them (PNG) and their MD5s (the determinism test). `--seconds N`
 * renders each chapter's first N seconds only (the timeline laid out whole, a sample of it shown:
 * scripts/record/trim.ts), without the title and end cards; every file then describes that shorter
 * video (frame numbers, `--sample`'s included, are its own).
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type CDPSession, type Page } from '@playwright/test';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import type { Language } from '../src/engine/switches.ts';
import { cueRate, FPS, motionLeads } from '../src/app/render/schedule.ts';
import { narratedTimeline, scriptFor } from './record/script.ts';
import { missingVoices, narrationTrack } from './record/speech.ts';
import { outputFrame, soundParts, sourceFrame, trimTimeline, windowsOf, type Trimmed } from './record/trim.ts';
import { chaptersMeta, toVtt } from './record/vtt.ts';
import type { RenderApi } from '../src/app/render/driver.ts';

declare global {
  interface Window {
    __render?: RenderApi;
  }
}

const { values: args } = parseArgs({
  options: {
    lang: { type: 'string', default: 'en,fr' },
    chapters: { type: 'string' },
    out: { type: 'string', default: 'explainer' },
    'base-url': { type: 'string' },
    port: { type: 'string', default: process.env.REC_PORT ?? '4310' },
    'no-build': { type: 'boolean', default: false },
    '1080p': { type: 'boolean', default: false },
    clips: { type: 'boolean', default: false },
    'no-cards': { type: 'boolean', default: false },
    'wait-scale': { type: 'string', default: '1' },
    seconds: { type: 'string' },
    sample: { type: 'string' },
  },
});

function fail(message: string): never {
  console.error(`record: ${message}`);
  process.exit(2);
}

const langs = args.lang!.split(',').map((l) => l.trim()) as Language[];
if (langs.some((l) => l !== 'en' && l !== 'fr')) fail(`--lang takes en, fr or en,fr (got ${args.lang})`);
const chapterNumbers = args.chapters ? args.chapters.split(',').map((s) => Number(s.trim())) : CHAPTERS.map((_, i) => i + 1);
if (chapterNumbers.some((n) => !Number.isInteger(n) || n < 1 || n > CHAPTERS.length)) fail(`--chapters takes numbers from 1 to ${CHAPTERS.length}`);
const waitScale = Number(args['wait-scale']);
if (!(waitScale > 0 && waitScale <= 4)) fail(`--wait-scale takes a number in (0, 4] (got ${args['wait-scale']})`);
/** Each chapter's first this many seconds only (null: the whole video). */
const seconds = args.seconds === undefined ? null : Number(args.seconds);
if (seconds !== null && !(Number.isFinite(seconds) && Math.round(seconds * FPS) >= 1)) fail(`--seconds takes a positive number of seconds, at least one frame (1/${FPS} s) (got ${args.seconds})`);
const sample = args.sample ? args.sample.split(',').map((s) => Number(s.trim())) : null;
if (sample?.some((n) => !Number.isInteger(n) || n < 0)) fail('--sample takes frame numbers (0, 1, …)');
const voicesMissing = missingVoices(langs);
if (voicesMissing) fail(voicesMissing);
const WIDTH = 1280;
const HEIGHT = 720;
const SCALE = args['1080p'] ? 1.5 : 1;

interface FactsFile {
  source: { title: string };
  facts: { id: string; en: string; fr: string }[];
}
const facts = JSON.parse(readFileSync(resolve('public/facts.json'), 'utf8')) as FactsFile;
const fact = (id: string) => facts.facts.find((f) => f.id === id) ?? fail(`facts.json has no ${id}`);

/** Deterministic raster: software GL, no partial raster, no LCD text, one colour profile, no dial-out. */
const CHROMIUM_ARGS = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-partial-raster',
  '--disable-lcd-text',
  '--font-render-hinting=none',
  '--force-color-profile=srgb',
  '--disable-gpu',
  '--disable-skia-runtime-opts',
  '--disable-threaded-animation',
  '--disable-threaded-scrolling',
  '--disable-checker-imaging',
  '--hide-scrollbars',
  '--disable-features=PaintHolding',
];

async function openRenderer(baseUrl: string, lang: Language) {
  const executablePath = process.env.PW_CHROMIUM || ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  const runningAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const browser = await chromium.launch({ ...(executablePath ? { executablePath } : {}), args: [...(runningAsRoot ? ['--no-sandbox'] : []), ...CHROMIUM_ARGS] });
  const context = await browser.newContext({ viewport: { width: WIDTH, height: HEIGHT }, deviceScaleFactor: SCALE, reducedMotion: 'no-preference', colorScheme: 'light', locale: lang === 'fr' ? 'fr-FR' : 'en-GB', timezoneId: 'UTC' });
  const page = await context.newPage();
  // Nothing on the page reads the wall clock for what it draws; fixing it makes sure of that.
  await page.clock.setFixedTime(new Date('2026-10-26T00:00:00Z'));
  const url = new URL(baseUrl);
  url.search = `?screen=render&lang=${lang}`;
  await page.goto(url.href);
  await page.waitForFunction(() => !!window.__render, null, { timeout: 60_000 });
  const cdp = await context.newCDPSession(page);
  return { browser, page, cdp };
}

async function capture(cdp: CDPSession): Promise<Buffer> {
  const { data } = (await cdp.send('Page.captureScreenshot', { format: 'png', optimizeForSpeed: true })) as { data: string };
  return Buffer.from(data, 'base64');
}

/** Shows a frame of the timeline; answers the parts of its picture that reach under the caption band (kept for chapters.<lang>.json). */
async function show(page: Page, frame: number): Promise<string[]> {
  return page.evaluate((f) => window.__render!.show(f), frame);
}

const secs = (frame: number) => frame / FPS;

interface Rendered {
  lang: Language;
  /** What was rendered, in the output's frames. */
  timeline: Trimmed;
  files: Record<string, string>;
  durationS: number;
}

async function renderLanguage(baseUrl: string, lang: Language, outDir: string): Promise<Rendered> {
  const { timeline, pcm } = narratedTimeline(scriptFor(lang, chapterNumbers, !args['no-cards'], fact), chapterNumbers, waitScale);
  // The frames rendered (every one without --seconds), and the timeline as the output shows it:
  // everything written below is in the output's frames, which are these picks end to end.
  const windows = windowsOf(timeline, seconds);
  const shown = trimTimeline(timeline, windows);
  const base = join(outDir, `stale-pages.${lang}`);
  const files: Record<string, string> = {};
  const { browser, page, cdp } = await openRenderer(baseUrl, lang);
  try {
    const started = Date.now();
    const { unplaced } = await page.evaluate((tl) => window.__render!.load(tl), timeline);
    console.log(`record: ${lang}: every run computed in ${((Date.now() - started) / 1000).toFixed(1)} s; ${timeline.frames} frames (${secs(timeline.frames).toFixed(1)} s)${seconds === null ? '' : `, of which each chapter's first ${seconds} s: ${shown.frames} frames (${secs(shown.frames).toFixed(1)} s)`}`);
    // A chapter that seeks or tweens to an instant its run does not hold would stand still in the
    // video where it means to move: that is a defect of the chapter, so the recording stops here.
    if (unplaced.length > 0) fail(`${lang}: instants no run could place (the picture would keep its time):\n  ${unplaced.join('\n  ')}`);

    if (sample) {
      const lines: string[] = [];
      for (const f of sample) {
        const source = sourceFrame(windows, f);
        if (source === null) fail(`--sample: frame ${f} is past the last (${shown.frames - 1})`);
        await show(page, source);
        const png = await capture(cdp);
        lines.push(`${f} ${createHash('md5').update(png).digest('hex')}`);
        writeFileSync(`${base}.frame${String(f).padStart(5, '0')}.png`, png);
      }
      files.sample = `${base}.sample.md5`;
      writeFileSync(files.sample, `${lines.join('\n')}\n`);
      return { lang, timeline: shown, files, durationS: secs(shown.frames) };
    }

    // Everything that is not the picture is known before the first frame: sound, captions, chapters.
    files.audio = `${base}.narration.wav`;
    // Each cue's speech where the output shows it, cut at its window's end (a sentence is not heard over the next chapter).
    const speech = timeline.cues.flatMap((c) => {
      const p = pcm.get(c.key)!;
      return soundParts(windows, c.from, p.samples.length, p.rate, FPS).map((s) => ({ from: s.from, pcm: { rate: p.rate, samples: p.samples.subarray(s.start, s.end) } }));
    });
    narrationTrack(speech, shown.frames, FPS, files.audio);
    files.captions = `${base}.vtt`;
    writeFileSync(files.captions, toVtt(shown.cues.map((c) => ({ start: secs(c.from), end: secs(c.to), text: c.text, settings: 'line:-1 align:center' }))));
    files.chaptersVtt = join(outDir, `chapters.${lang}.vtt`);
    writeFileSync(files.chaptersVtt, toVtt(shown.chapters.map((m) => ({ start: secs(m.from), end: secs(m.to), text: `${m.n}. ${m.title}` }))));
    const meta = `${base}.ffmeta`;
    writeFileSync(meta, chaptersMeta(shown.chapters.map((m) => ({ start: secs(m.from), end: secs(m.to), title: `${m.n}. ${m.title}` })), FPS));

    files.webm = `${base}.webm`;
    files.mp4 = `${base}.mp4`;
    const keys = shown.chapters.map((m) => secs(m.from).toFixed(6)).join(',');
    const ffmpeg = spawn(
      'ffmpeg',
      [
        ...['-y', '-hide_banner', '-loglevel', 'error', '-f', 'image2pipe', '-c:v', 'png', '-framerate', String(FPS), '-i', '-'],
        ...['-i', files.audio, '-f', 'ffmetadata', '-i', meta],
        // The captions are burned in (the screen's caption band, words lit as said): no second, soft
        // track in the files; the .vtt beside them is the transcript.
        // MP4: H.264 + AAC.
        ...['-map', '0:v', '-map', '1:a', '-map_chapters', '2', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-pix_fmt', 'yuv420p', '-fps_mode', 'cfr', '-r', String(FPS)],
        ...['-force_key_frames', keys, '-c:a', 'aac', '-b:a', '128k', '-metadata:s:a:0', `language=${lang === 'fr' ? 'fra' : 'eng'}`, '-movflags', '+faststart', files.mp4],
        // WebM: VP9 + Opus.
        ...['-map', '0:v', '-map', '1:a', '-map_chapters', '2', '-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-row-mt', '1', '-crf', '33', '-b:v', '0', '-pix_fmt', 'yuv420p', '-fps_mode', 'cfr', '-r', String(FPS)],
        ...['-force_key_frames', keys, '-c:a', 'libopus', '-b:a', '96k', '-metadata:s:a:0', `language=${lang === 'fr' ? 'fra' : 'eng'}`, files.webm],
      ],
      { stdio: ['pipe', 'inherit', 'inherit'] },
    );
    const done = new Promise<void>((res, rej) => ffmpeg.on('exit', (code) => (code === 0 ? res() : rej(new Error(`ffmpeg exited with ${code}`)))));
    const md5: string[] = [];
    const under: [number, number, string][] = [];
    const t0 = Date.now();
    for (let f = 0; f < shown.frames; f++) {
      const parts = await show(page, sourceFrame(windows, f)!);
      if (parts.length > 0) under.push([f, parts.length, parts[0]!]);
      const png = await capture(cdp);
      md5.push(createHash('md5').update(png).digest('hex'));
      if (!ffmpeg.stdin.write(png)) await new Promise((r) => ffmpeg.stdin.once('drain', r));
      if (f % 300 === 299) console.log(`record: ${lang}: frame ${f + 1}/${shown.frames} (${((Date.now() - t0) / (f + 1)).toFixed(0)} ms a frame)`);
    }
    ffmpeg.stdin.end();
    await done;
    files.chaptersJson = join(outDir, `chapters.${lang}.json`);
    const predict = shown.beats.map((b) => ({ chapter: b.chapter, start: secs(b.from), end: secs(b.to) }));
    // A moving beat is listed where the output shows its start; one left out is not.
    const leads = motionLeads(timeline).flatMap((m) => {
      const at = outputFrame(windows, Math.round(m.atS * FPS));
      return at === null ? [] : [{ chapter: m.chapter, at: Number(secs(at).toFixed(2)), lead: Number(m.leadS.toFixed(2)) }];
    });
    writeFileSync(
      files.chaptersJson,
      `${JSON.stringify({ lang, fps: FPS, frames: shown.frames, durationS: secs(shown.frames), chapters: shown.chapters.map((m) => ({ n: m.n, id: m.id, title: m.title, start: secs(m.from), end: secs(m.to), startFrame: m.from })), predictBeats: predict, cueRates: shown.cues.map((c) => Number(cueRate(c).toFixed(2))), motionLeads: leads, underBand: under.map(([frame, count, first]) => ({ at: Number(secs(frame).toFixed(2)), count, first })) }, null, 2)}\n`,
    );

    files.md5 = `${base}.frames.md5`;
    writeFileSync(files.md5, md5.map((h, i) => `${i} ${h}`).join('\n') + '\n');
    rmSync(meta);
  } finally {
    await browser.close();
  }

  if (args.clips) {
    for (const m of shown.chapters) {
      for (const ext of ['mp4', 'webm'] as const) {
        const clip = join(outDir, `stale-pages.${lang}.ch${String(m.n).padStart(2, '0')}-${m.id}.${ext}`);
        execFileSync('ffmpeg', ['-y', '-hide_banner', '-loglevel', 'error', '-ss', secs(m.from).toFixed(3), '-i', files[ext]!, '-t', secs(m.to - m.from).toFixed(3), '-map', '0:v', '-map', '0:a', '-c', 'copy', ...(ext === 'mp4' ? ['-movflags', '+faststart'] : []), clip]);
        files[`clip${m.n}.${ext}`] = clip;
      }
    }
  }
  return { lang, timeline: shown, files, durationS: secs(shown.frames) };
}

async function main() {
  const outDir = resolve(args.out!);
  mkdirSync(outDir, { recursive: true });
  let baseUrl = args['base-url'];
  let close: (() => Promise<void>) | null = null;
  if (!baseUrl) {
    const vite = await import('vite');
    if (!args['no-build']) {
      console.log('record: building the app (vite build)…');
      await vite.build({ logLevel: 'warn' });
    }
    const port = Number(args.port);
    const server = await vite.preview({ preview: { host: '127.0.0.1', port, strictPort: true }, logLevel: 'warn' });
    baseUrl = `http://127.0.0.1:${port}/`;
    close = () => new Promise<void>((res) => server.httpServer.close(() => res()));
  }
  try {
    for (const lang of langs) {
      console.log(`record: ${lang}, chapters ${chapterNumbers.join(', ')}…`);
      const r = await renderLanguage(baseUrl, lang, outDir);
      const mm = Math.floor(r.durationS / 60);
      const ss = (r.durationS - mm * 60).toFixed(1).padStart(4, '0');
      if (r.files.sample) {
        console.log(`${r.files.sample}: ${sample!.length} frames`);
        continue;
      }
      for (const ext of ['webm', 'mp4'] as const) {
        console.log(`${r.files[ext]}: ${mm}:${ss} (${r.durationS.toFixed(1)} s), ${WIDTH * SCALE}×${HEIGHT * SCALE}, ${(statSync(r.files[ext]!).size / 1e6).toFixed(1)} MB`);
      }
      console.log(`  captions ${r.files.captions}\n  chapters ${r.files.chaptersJson}, ${r.files.chaptersVtt}\n  frame hashes ${r.files.md5}`);
      if (args.clips) console.log(`  clips: ${r.timeline.chapters.length * 2} files in ${outDir}`);
    }
  } finally {
    await close?.();
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
