/**
 * npm run record -- [--lang en,fr] [--chapters 1,2,5] [--out explainer] [--base-url URL] [--port 4310]
 *                   [--no-build] [--dwell MS] [--predict MS]
 *
 * Records the explainer: drives the real app through the walkthrough in Chromium at 1280×720 with
 * Playwright's video recorder, one run per language, and writes beside each video its WebVTT
 * captions and its chapter list (JSON and WebVTT chapters). Every time in those files comes from the
 * recording's own clock: zero is the moment the recorded page was created, which is the video's
 * first frame. It builds the app, serves it with `vite preview` on its own port, needs no network,
 * and prints each video's length (ffprobe).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Page } from '@playwright/test';
import type { Chapter } from '../src/app/walkthrough/chapter.ts';
import { CHAPTERS } from '../src/app/walkthrough/chapters/index.ts';
import { linkFfmpeg } from './link-ffmpeg.mjs';

type Lang = 'en' | 'fr';
const WIDTH = 1280;
const HEIGHT = 720;

export interface Cue {
  start: number;
  end: number;
  text: string;
  /** WebVTT cue settings, e.g. `line:0` for the top line. */
  settings?: string;
}

export interface ChapterMark {
  n: number;
  id: string;
  title: string;
  start: number;
  end: number;
}

export interface Recording {
  lang: Lang;
  video: string;
  captions: string;
  chapters: string;
  chaptersVtt: string;
  durationS: number;
  width: number;
  height: number;
  bytes: number;
}

const { values: args } = parseArgs({
  options: {
    lang: { type: 'string', default: 'en,fr' },
    chapters: { type: 'string' },
    out: { type: 'string', default: 'explainer' },
    'base-url': { type: 'string' },
    port: { type: 'string', default: process.env.REC_PORT ?? '4310' },
    'no-build': { type: 'boolean', default: false },
    dwell: { type: 'string' },
    predict: { type: 'string', default: '4000' },
  },
});

function fail(message: string): never {
  console.error(`record: ${message}`);
  process.exit(2);
}

const langs = args.lang!.split(',').map((l) => l.trim()) as Lang[];
if (langs.some((l) => l !== 'en' && l !== 'fr')) fail(`--lang takes en, fr or en,fr (got ${args.lang})`);
const chapterNumbers = args.chapters ? args.chapters.split(',').map((s) => Number(s.trim())) : CHAPTERS.map((_, i) => i + 1);
if (chapterNumbers.some((n) => !Number.isInteger(n) || n < 1 || n > CHAPTERS.length)) fail(`--chapters takes numbers from 1 to ${CHAPTERS.length}`);
const predictMs = Number(args.predict);
const fixedDwell = args.dwell === undefined ? null : Number(args.dwell);

/** Time to read a chapter once its steps have played: about 4 words a second, within 4–12 s. */
function dwellOf(ch: Chapter, lang: Lang): number {
  if (fixedDwell !== null) return fixedDwell;
  const words = ch.paragraphs.reduce((n, p) => n + p.text[lang].split(/\s+/).length, 0);
  return Math.max(4000, Math.min(12_000, words * 90));
}

const vttTime = (s: number) => {
  const ms = Math.max(0, Math.round(s * 1000));
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const sec = Math.floor((ms % 60_000) / 1000);
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}:${String(sec).padStart(2, '0')}.${String(ms % 1000).padStart(3, '0')}`;
};

export function toVtt(cues: Cue[]): string {
  return `WEBVTT\n\n${cues.map((c, i) => `${i + 1}\n${vttTime(c.start)} --> ${vttTime(c.end)}${c.settings ? ` ${c.settings}` : ''}\n${c.text}\n`).join('\n')}`;
}

function probe(file: string): { durationS: number; width: number; height: number } {
  const out = execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'stream=width,height:format=duration', '-of', 'json', file], { encoding: 'utf8' });
  const j = JSON.parse(out) as { streams: { width: number; height: number }[]; format: { duration?: string } };
  let durationS = Number(j.format.duration);
  if (!Number.isFinite(durationS)) {
    // Some muxers leave the header's duration out: read the last frame's time instead.
    const last = execFileSync('ffprobe', ['-v', 'error', '-select_streams', 'v:0', '-show_entries', 'frame=pts_time', '-of', 'csv=p=0', file], { encoding: 'utf8' }).trim().split('\n').pop();
    durationS = Number(last);
  }
  return { durationS, width: j.streams[0]!.width, height: j.streams[0]!.height };
}

async function waitSettled(page: Page, n: number): Promise<string> {
  const panel = page.getByTestId('walkthrough');
  await panel.and(page.locator(`[data-chapter="${n}"]`)).waitFor({ timeout: 30_000 });
  await page.waitForFunction((k) => {
    const el = document.querySelector<HTMLElement>('[data-testid="walkthrough"]');
    return el?.dataset.chapter === String(k) && (el.dataset.status === 'checkpoint' || el.dataset.status === 'done');
  }, n, { timeout: 60_000 });
  return (await panel.getAttribute('data-status'))!;
}

async function recordLanguage(baseUrl: string, lang: Lang, outDir: string): Promise<Recording> {
  const executablePath = process.env.PW_CHROMIUM || ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  const runningAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const browser = await chromium.launch({
    ...(executablePath ? { executablePath } : {}),
    args: [...(runningAsRoot ? ['--no-sandbox'] : []), '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const videoDir = mkdtempSync(join(tmpdir(), 'stale-pages-video-'));
  const context = await browser.newContext({ viewport: { width: WIDTH, height: HEIGHT }, recordVideo: { dir: videoDir, size: { width: WIDTH, height: HEIGHT } }, reducedMotion: 'no-preference', colorScheme: 'light' });
  // Three kinds of cue, which may overlap: the chapter title (top line, the whole chapter), the
  // checkpoint's question then its answer (second line), and the step captions (bottom).
  const titles: Cue[] = [];
  const checkpoints: Cue[] = [];
  const stepCaptions: Cue[] = [];
  const marks: ChapterMark[] = [];
  let t0 = 0;
  const now = () => (Date.now() - t0) / 1000;
  const open = (list: Cue[], text: string) => {
    const t = now();
    const prev = list[list.length - 1];
    if (prev && prev.end > t) prev.end = t;
    list.push({ start: t, end: Number.POSITIVE_INFINITY, text });
  };
  const closeAll = () => {
    const t = now();
    for (const list of [titles, checkpoints, stepCaptions]) {
      const last = list[list.length - 1];
      if (last && last.end > t) last.end = t;
    }
  };
  // The app announces chapters and captions as DOM events; the binding turns them into cues.
  await context.exposeBinding('__recordWalkthrough', (_source, detail: { type: string; chapter: number; text?: string; title?: string; id?: string }) => {
    if (detail.type === 'chapter') {
      closeAll();
      const prev = marks[marks.length - 1];
      if (prev) prev.end = now();
      marks.push({ n: detail.chapter, id: detail.id!, title: detail.title!, start: now(), end: Number.POSITIVE_INFINITY });
      open(titles, `${lang === 'fr' ? 'Chapitre' : 'Chapter'} ${detail.chapter} — ${detail.title}`);
    } else if (detail.type === 'caption') open(stepCaptions, detail.text!);
  });
  await context.addInitScript(() => {
    window.addEventListener('walkthrough', (e) => void (window as unknown as { __recordWalkthrough: (d: unknown) => void }).__recordWalkthrough((e as CustomEvent).detail));
  });
  const page = await context.newPage();
  t0 = Date.now();
  const outPage = new URL(baseUrl);
  outPage.search = `?ch=${chapterNumbers[0]}&lang=${lang}&pm=1`;
  await page.goto(outPage.href);

  for (let i = 0; i < chapterNumbers.length; i++) {
    const n = chapterNumbers[i]!;
    const ch = CHAPTERS[n - 1]!;
    if (i > 0) {
      if (n === chapterNumbers[i - 1]! + 1) await page.keyboard.press('PageDown');
      else
        await page.evaluate((k) => {
          const q = new URLSearchParams(location.search);
          q.set('ch', String(k));
          history.pushState(null, '', `?${q}`);
          dispatchEvent(new PopStateEvent('popstate'));
        }, n);
    }
    const status = await waitSettled(page, n);
    if (status === 'checkpoint' && ch.checkpoint) {
      open(checkpoints, lang === 'fr' ? `Prédisez : ${ch.checkpoint.question.fr}` : `Predict: ${ch.checkpoint.question.en}`);
      await page.waitForTimeout(predictMs);
      const k = ch.checkpoint.options.findIndex((o) => o.id === ch.checkpoint!.answer) + 1;
      await page.keyboard.press(String(k));
      open(checkpoints, lang === 'fr' ? `Réponse : ${ch.checkpoint.explain.fr}` : `Answer: ${ch.checkpoint.explain.en}`);
      await waitSettled(page, n);
    }
    // Half the reading time on the text, half on the sources it cites (below it in a long chapter).
    const dwell = dwellOf(ch, lang);
    await page.waitForTimeout(dwell / 2);
    const sources = page.locator('.walk-sources');
    if (await sources.count()) await sources.scrollIntoViewIfNeeded();
    await page.waitForTimeout(dwell / 2);
  }
  const end = now();
  const cues = [
    ...titles.map((c) => ({ ...c, settings: 'line:0' })),
    ...checkpoints.map((c) => ({ ...c, settings: 'line:2' })),
    ...stepCaptions,
  ].sort((a, b) => a.start - b.start);
  for (const c of cues) if (!Number.isFinite(c.end)) c.end = end;
  for (const m of marks) if (!Number.isFinite(m.end)) m.end = end;

  const video = page.video()!;
  await context.close();
  const file = resolve(outDir, `stale-pages.${lang}.webm`);
  await video.saveAs(file);
  await browser.close();
  rmSync(videoDir, { recursive: true, force: true });

  // The video is what a viewer gets: on a loaded machine the page's clock runs a little past the
  // last encoded frame, so nothing may end after the video does.
  const { durationS, width, height } = probe(file);
  for (const c of cues) c.end = Math.min(c.end, durationS);
  for (const m of marks) m.end = Math.min(m.end, durationS);

  const captions = resolve(outDir, `stale-pages.${lang}.vtt`);
  writeFileSync(captions, toVtt(cues));
  const chaptersVtt = resolve(outDir, `chapters.${lang}.vtt`);
  writeFileSync(chaptersVtt, toVtt(marks.map((m) => ({ start: m.start, end: m.end, text: `${m.n}. ${m.title}` }))));
  const chaptersJson = resolve(outDir, `chapters.${lang}.json`);
  writeFileSync(
    chaptersJson,
    `${JSON.stringify({ lang, video: `stale-pages.${lang}.webm`, durationS, chapters: marks.map((m) => ({ ...m, start: Number(m.start.toFixed(3)), end: Number(m.end.toFixed(3)) })) }, null, 2)}\n`,
  );
  return { lang, video: file, captions, chapters: chaptersJson, chaptersVtt, durationS, width, height, bytes: statSync(file).size };
}

async function main() {
  const outDir = resolve(args.out!);
  mkdirSync(outDir, { recursive: true });
  linkFfmpeg();
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
      const r = await recordLanguage(baseUrl, lang, outDir);
      const mm = Math.floor(r.durationS / 60);
      const ss = (r.durationS - mm * 60).toFixed(1).padStart(4, '0');
      console.log(`${r.video}: ${mm}:${ss} (${r.durationS.toFixed(1)} s), ${r.width}×${r.height}, ${(r.bytes / 1e6).toFixed(1)} MB`);
      console.log(`  captions ${r.captions}\n  chapters ${r.chapters}, ${r.chaptersVtt}`);
    }
  } finally {
    await close?.();
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exit(1);
});
