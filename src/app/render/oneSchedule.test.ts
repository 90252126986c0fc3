/**
 * One schedule: the live walkthrough's runner and the video's driver read the same chapter timeline
 * (walkthrough/timeline.ts), so at the same chapter time they show the same beat and the same picture.
 *
 * The rule compared: the chapter played live from its start with its question answered, `t` ms in, is
 * at beat b, `m` ms into it (`playedPosition`, what the runner samples). The video lays the same beats
 * out in frames, stretching a wait to what is said over it (a tween keeps its length): the same point
 * is the frame `m / ms` of the way through that beat's frames (`frameAtPosition`), and the driver,
 * reading that frame back (`positionAtFrame`), must name beat b at the same beat-local time, to within
 * one frame of that beat, and sample the same situation, caption and highlight. The question's reveal
 * is compared apart: the screen layout's reveal and the video's frame at its reveal show the same picture.
 */
import { describe, expect, it } from 'vitest';
import { CHAPTERS } from '../walkthrough/chapters/index.ts';
import { DEFAULT_STATE } from '../state/store.ts';
import { baseOf, beatsOf, beatStartsMs, playedPosition, sample, sampleAt, type ChapterTimeline, type Resolved, type Shown } from '../walkthrough/timeline.ts';
import type { Step } from '../walkthrough/chapters/steps.ts';
import { videoSteps } from './directions.ts';
import { allCues, frameAtPosition, positionAtFrame, scriptOf, timelineOf, type Scene } from './schedule.ts';

const words = { chapter: 'Chapter {n}', predict: 'Predict:', answer: 'Answer:' };
const all = CHAPTERS.map((chapter, i) => ({ n: i + 1, chapter }));

/** A chapter's timeline with every instant placed at its own time (the engine's runs are not what is compared here). */
function timelineFor(steps: readonly Step[], n: number): ChapterTimeline {
  const resolved: (Resolved | undefined)[] = steps.map((s, i) =>
    'tween' in s || 'seek' in s ? { time: 1000 * (i + 1), handoff: i % 3 === 0 ? 10 * i : null, handoffFrom: 0 } : 'select' in s ? { request: i } : 'zoom' in s ? { zoom: s.zoom ? { from: i, to: i + 100 } : null } : undefined,
  );
  return { steps, base: baseOf(CHAPTERS[n - 1]!, DEFAULT_STATE), resolved, beats: beatsOf(steps), unplaced: [] };
}

/** Two samples alike: everything equal but the clocks, which may differ by what one frame of the tween moves them. */
function expectAlike(video: Shown, live: Shown, tolerance: number, where: string): void {
  const { time: vt, handoff: vh, ...vRest } = video.situation;
  const { time: lt, handoff: lh, ...lRest } = live.situation;
  expect({ ...video, situation: vRest }, where).toEqual({ ...live, situation: lRest });
  expect(Math.abs(vt - lt), `${where}: incident clock`).toBeLessThanOrEqual(tolerance);
  expect(vh === null, `${where}: handoff clock`).toBe(lh === null);
  if (vh !== null && lh !== null) expect(Math.abs(vh - lh), `${where}: handoff clock`).toBeLessThanOrEqual(tolerance);
}

describe('one schedule for the walkthrough, the screen layout and the video', () => {
  for (const lang of ['en', 'fr'] as const) {
    // Narration at 14 characters a second (a stand-in voice: the layout, not the voice, is compared).
    const script = scriptOf(all, lang, words, { title: 'T', subtitle: 'S' }, null);
    const video = timelineOf(script, CHAPTERS, { spokenMs: Object.fromEntries(allCues(script).map((c) => [c.key, (c.text.length / 14) * 1000])) });

    it(`${lang}: at every chapter time (every 50 ms) the live runner and the video's driver show the same beat and picture`, () => {
      let compared = 0;
      for (const [i, chapter] of CHAPTERS.entries()) {
        const n = i + 1;
        const steps = videoSteps(chapter);
        const tl = timelineFor(steps, n);
        const body = video.scenes.find((s): s is Extract<Scene, { kind: 'body' }> => s.kind === 'body' && s.chapter === n)!;
        const starts = beatStartsMs(tl.beats);
        const total = starts[starts.length - 1]!;
        const end = tl.beats.length - 1;
        for (let t = 0; t <= total + 100; t += 50) {
          const live = playedPosition(tl.beats, 0, end, t);
          const frame = frameAtPosition(body, live.beat, live.ms);
          const where = `chapter ${n} at ${t} ms (live beat ${live.beat}, ${live.ms.toFixed(0)} ms in; video frame ${frame})`;
          expect(frame, where).not.toBeNull();
          const at = positionAtFrame(body, frame!);
          expect(at.beat, where).toBe(live.beat);
          const timed = body.beats.find((b) => b.beat === live.beat)!;
          const oneFrame = timed.frames > 0 ? timed.ms / timed.frames : 0;
          expect(Math.abs(at.ms - live.ms), where).toBeLessThanOrEqual(oneFrame + 1e-6);
          // One frame of a tween moves the clocks by at most its share of the longest move.
          expectAlike(sampleAt(tl, at), sampleAt(tl, live), 1000 * (steps.length + 1) * (timed.frames > 0 ? 1.5 / timed.frames : 0) + 1e-6, where);
          compared++;
        }
        // The reveal: what the screen layout shows on the key is the video's picture from its reveal on.
        const question = tl.beats.findIndex((b) => b.kind === 'checkpoint');
        expect(body.reveal !== null, `chapter ${n} reveals`).toBe(question >= 0);
        if (question >= 0) expect(sampleAt(tl, positionAtFrame(body, body.reveal!)), `chapter ${n}: the reveal`).toEqual(sample(tl, question, 0, true));
      }
      expect(compared).toBeGreaterThan(1000);
    });
  }

  it('the runner holds at an unanswered question, and never shows a beat before the one it started from', () => {
    const ch = CHAPTERS.find((c) => c.checkpoint)!;
    const beats = beatsOf(ch.steps);
    const q = beats.findIndex((b) => b.kind === 'checkpoint');
    expect(playedPosition(beats, 0, q, 1e9)).toEqual({ beat: q, ms: 0 });
    expect(playedPosition(beats, q + 1, beats.length - 1, 0).beat).toBe(q + 1);
  });
});
