import { describe, expect, it } from 'vitest';
import type { Beat, ChapterMark, TimedCue } from '../../src/app/render/schedule.ts';
import { clip, outputFrame, outputFrames, soundParts, sourceFrame, trimTimeline, windowsOf } from './trim.ts';

const FPS = 30;
const mark = (n: number, from: number, to: number): ChapterMark => ({ n, id: `ch${n}`, title: `Chapter ${n}`, from, to });
const cue = (key: string, from: number, to: number, spoken = to - from): TimedCue => ({ key, kind: 'caption', text: key, from, to, spoken });

/** Two chapters: [0, 100) and [100, 400), with a title card before neither (as --no-cards lays them out). */
const chapters = [mark(3, 0, 100), mark(5, 100, 400)];
const cues = [cue('card3', 0, 50), cue('cap3', 50, 90, 30), cue('tail3', 90, 100), cue('card5', 100, 130), cue('cap5', 130, 300)];
const beats: Beat[] = [{ chapter: 5, askFrom: 150, from: 170, to: 300, answerTo: 350 }];
const timeline = { fps: FPS, frames: 400, chapters, cues, beats };

describe('without --seconds', () => {
  const windows = windowsOf(timeline, null);

  it('renders every frame, in order', () => {
    expect(windows).toEqual([{ from: 0, to: 400, at: 0 }]);
    expect(outputFrames(windows)).toBe(400);
    for (const f of [0, 1, 199, 399]) {
      expect(sourceFrame(windows, f)).toBe(f);
      expect(outputFrame(windows, f)).toBe(f);
    }
    expect(sourceFrame(windows, 400)).toBeNull();
  });

  it('writes the timeline as laid out', () => {
    expect(trimTimeline(timeline, windows)).toEqual({ frames: 400, chapters, cues, beats });
  });

  it('cuts each cue’s sound where the narration track ends, as the track itself does', () => {
    const rate = 16_000;
    // 400 frames at 16 kHz: 213,333.3 samples, the track rounds up to 213,334; a cue at frame 397 starts at 211,733.
    expect(soundParts(windows, 397, 48_000, rate, FPS)).toEqual([{ from: 397, start: 0, end: 213_334 - 211_733 }]);
    expect(soundParts(windows, 10, 4_000, rate, FPS)).toEqual([{ from: 10, start: 0, end: 4_000 }]);
  });
});

describe('--seconds 2', () => {
  const windows = windowsOf(timeline, 2);

  it('renders each chapter’s first 60 frames, one after the other', () => {
    expect(windows).toEqual([
      { from: 0, to: 60, at: 0 },
      { from: 100, to: 160, at: 60 },
    ]);
    expect(outputFrames(windows)).toBe(120);
    expect(sourceFrame(windows, 59)).toBe(59);
    expect(sourceFrame(windows, 60)).toBe(100);
    expect(sourceFrame(windows, 119)).toBe(159);
    expect(sourceFrame(windows, 120)).toBeNull();
    expect(outputFrame(windows, 60)).toBeNull();
    expect(outputFrame(windows, 130)).toBe(90);
    for (let f = 0; f < 120; f++) expect(outputFrame(windows, sourceFrame(windows, f)!)).toBe(f);
  });

  it('keeps a chapter shorter than the window whole', () => {
    expect(windowsOf({ fps: FPS, frames: 400, chapters: [mark(1, 0, 40), mark(2, 40, 400)] }, 2)).toEqual([
      { from: 0, to: 40, at: 0 },
      { from: 40, to: 100, at: 40 },
    ]);
  });

  it('refuses a window shorter than a frame', () => {
    expect(() => windowsOf(timeline, 0.01)).toThrow(/no frame/);
  });

  it('clips spans to the windows and shifts them', () => {
    expect(clip(windows, 50, 90)).toEqual([{ from: 50, to: 60 }]);
    expect(clip(windows, 60, 100)).toEqual([]);
    expect(clip(windows, 40, 200)).toEqual([
      { from: 40, to: 60 },
      { from: 60, to: 120 },
    ]);
  });

  it('writes the chapters, cues and predict beats where the output shows them', () => {
    const t = trimTimeline(timeline, windows);
    expect(t.frames).toBe(120);
    expect(t.chapters.map((m) => [m.n, m.from, m.to])).toEqual([
      [3, 0, 60],
      [5, 60, 120],
    ]);
    // The caption cut by its window ends there, its narration with it; the one after the window is gone.
    expect(t.cues.map((c) => [c.key, c.from, c.to, c.spoken])).toEqual([
      ['card3', 0, 50, 50],
      ['cap3', 50, 60, 10],
      ['card5', 60, 90, 30],
      ['cap5', 90, 120, 30],
    ]);
    // The question is asked inside the window; the countdown runs past its end.
    expect(t.beats).toEqual([{ chapter: 5, askFrom: 110, from: 120, to: 120, answerTo: 120 }]);
  });

  it('stops each cue’s sound at its window’s end, and carries a sound still going into the next window', () => {
    const rate = 3_000;
    // Frame 50 is 5,000 samples in; the window ends at frame 60 (6,000); the second second is said over frames left out.
    expect(soundParts(windows, 50, 3_000, rate, FPS)).toEqual([{ from: 50, start: 0, end: 1_000 }]);
    expect(soundParts(windows, 110, 2_000, rate, FPS)).toEqual([{ from: 70, start: 0, end: 2_000 }]);
    // Said from frame 90 (left out) for 0.5 s: its last 500 samples sound from frame 100, the second window's start.
    expect(soundParts(windows, 90, 1_500, rate, FPS)).toEqual([{ from: 60, start: 1_000, end: 1_500 }]);
    expect(soundParts(windows, 60, 1_000, rate, FPS)).toEqual([]);
    // A cue said past both windows ends: each part ends with its window.
    for (const p of soundParts(windows, 0, 100_000, rate, FPS)) {
      const w = windows.find((x) => p.from >= x.at && p.from < x.at + (x.to - x.from))!;
      expect(Math.round((p.from / FPS) * rate) + (p.end - p.start)).toBeLessThanOrEqual(Math.ceil(((w.at + w.to - w.from) / FPS) * rate));
    }
  });
});
