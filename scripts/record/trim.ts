/**
 * A short render (`npm run record -- --seconds N`): which frames of the laid-out timeline the
 * recorder renders, and where everything it writes beside them (chapter marks, cues, predict beats,
 * moving beats, the narration) falls in the output, whose frames are those picks end to end.
 *
 * The timeline is laid out whole as ever (a chapter's frames do not depend on how much of it is
 * rendered); only a subset of its frames is shown. Without --seconds the one window is every frame,
 * and every function here is the identity, so the full render goes through the same code unchanged.
 *
 * Pure: frames in, frames out.
 */
import type { Beat, ChapterMark, TimedCue, Timeline } from '../../src/app/render/schedule.ts';

/** Source frames [from, to) of the laid-out timeline, rendered from output frame `at` on. */
export interface Window {
  from: number;
  to: number;
  at: number;
}

/** A span of output frames [from, to). */
export interface Span {
  from: number;
  to: number;
}

/**
 * What is rendered: every frame (`seconds` null), or each chapter's first `seconds` (whole frames,
 * at most the chapter), one after the other; the title and end cards, being no chapter's, are left out then.
 */
export function windowsOf(tl: Pick<Timeline, 'frames' | 'chapters' | 'fps'>, seconds: number | null): Window[] {
  if (seconds === null) return [{ from: 0, to: tl.frames, at: 0 }];
  const length = Math.round(seconds * tl.fps);
  if (!(length >= 1)) throw new Error(`a window of ${seconds} s holds no frame at ${tl.fps} fps`);
  const windows: Window[] = [];
  let at = 0;
  for (const m of tl.chapters) {
    const to = Math.min(m.to, m.from + length);
    windows.push({ from: m.from, to, at });
    at += to - m.from;
  }
  return windows;
}

/** How many frames the output has. */
export const outputFrames = (windows: readonly Window[]): number => windows.reduce((n, w) => n + (w.to - w.from), 0);

/** The source frame shown at output frame `out`, or null past the output's end. */
export function sourceFrame(windows: readonly Window[], out: number): number | null {
  const w = windows.find((x) => out >= x.at && out < x.at + (x.to - x.from));
  return w ? w.from + (out - w.at) : null;
}

/** Where a source frame lands in the output, or null when it is not rendered. */
export function outputFrame(windows: readonly Window[], source: number): number | null {
  const w = windows.find((x) => source >= x.from && source < x.to);
  return w ? w.at + (source - w.from) : null;
}

/** The rendered parts of a source span [from, to), in output frames (one per window it meets). */
export function clip(windows: readonly Window[], from: number, to: number): Span[] {
  const parts: Span[] = [];
  for (const w of windows) {
    const a = Math.max(from, w.from);
    const b = Math.min(to, w.to);
    if (a < b) parts.push({ from: w.at + (a - w.from), to: w.at + (b - w.from) });
  }
  return parts;
}

/** A source frame held inside a window, then placed in the output (a beat's instants, clipped with it). */
const clampTo = (w: Window, frame: number) => w.at + (Math.min(w.to, Math.max(w.from, frame)) - w.from);

/** What the recorder writes about a timeline, in output frames. */
export type Trimmed = Pick<Timeline, 'frames' | 'chapters' | 'cues' | 'beats'>;

/**
 * The timeline's chapter marks, cues and predict beats as the output shows them: each clipped to
 * the windows and shifted; a cue's narration (`spoken`) cut where its window ends.
 */
export function trimTimeline(tl: Pick<Timeline, 'chapters' | 'cues' | 'beats'>, windows: readonly Window[]): Trimmed {
  const chapters: ChapterMark[] = tl.chapters.flatMap((m) => clip(windows, m.from, m.to).map((s) => ({ ...m, from: s.from, to: s.to })));
  const cues: TimedCue[] = [];
  for (const c of tl.cues) {
    for (const w of windows) {
      const a = Math.max(c.from, w.from);
      const b = Math.min(c.to, w.to);
      if (a >= b) continue;
      // Narration left from the part shown on, up to the window's end (the sound is cut there too).
      const spoken = Math.max(0, Math.min(c.from + c.spoken, w.to) - a);
      cues.push({ ...c, from: w.at + (a - w.from), to: w.at + (b - w.from), spoken });
    }
  }
  const beats: Beat[] = [];
  for (const b of tl.beats) {
    for (const w of windows) {
      if (Math.max(b.askFrom, w.from) >= Math.min(b.answerTo, w.to)) continue;
      beats.push({ ...b, askFrom: clampTo(w, b.askFrom), from: clampTo(w, b.from), to: clampTo(w, b.to), answerTo: clampTo(w, b.answerTo) });
    }
  }
  return { frames: outputFrames(windows), chapters, cues, beats };
}

/**
 * One cue's speech in the output: from output frame `from`, its samples [start, end). A cue's
 * sound stops at its window's end, whatever its length, so nothing said in a part left out is heard
 * over the next window. Sample positions are computed as `narrationTrack` (speech.ts) computes them
 * (the start rounded, the end rounded up), so with one window the cut is exactly the track's own end.
 */
export function soundParts(windows: readonly Window[], cueFrom: number, samples: number, rate: number, fps: number): { from: number; start: number; end: number }[] {
  const startOf = (frame: number) => Math.round((frame / fps) * rate);
  const endOf = (frame: number) => Math.ceil((frame / fps) * rate);
  const begins = startOf(cueFrom);
  const parts: { from: number; start: number; end: number }[] = [];
  for (const w of windows) {
    const outEnd = w.at + (w.to - w.from);
    if (cueFrom >= w.from && cueFrom < w.to) {
      const from = w.at + (cueFrom - w.from);
      parts.push({ from, start: 0, end: Math.min(samples, Math.max(0, endOf(outEnd) - startOf(from))) });
    } else if (cueFrom < w.from) {
      // Said before the window and still sounding when it opens: the rest, from the window's start.
      const start = startOf(w.from) - begins;
      if (start < samples) parts.push({ from: w.at, start, end: Math.min(samples, start + Math.max(0, endOf(outEnd) - startOf(w.at))) });
    }
  }
  return parts;
}
