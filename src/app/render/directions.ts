/**
 * Where the video directs a chapter differently from the live walkthrough, kept to what a screen
 * needs that a person at the page does not: the two weeks are swept, not jumped, so the leak
 * counter is seen climbing (the same captions, the same instants of the report).
 */
import type { Chapter } from '../walkthrough/chapters/chapter.ts';
import type { Step } from '../walkthrough/chapters/steps.ts';

/** How long the sweep across the two weeks takes in the video. */
export const WINDOW_SWEEP_MS = 9000;

/** The steps the video plays for a chapter. */
export function videoSteps(chapter: Chapter): Step[] {
  if (chapter.id !== 'two-weeks') return chapter.steps;
  // The jump to the middle of the window becomes a sweep to the moment the model went private
  // (the last leak is before it), played while the counter is pointed at.
  const out = chapter.steps.filter((s) => !('seek' in s && 'fraction' in s.seek));
  const at = out.findIndex((s) => 'highlight' in s && s.highlight === 'counters');
  out.splice(at + 1, 0, { tween: { to: { milestone: 'private' }, ms: WINDOW_SWEEP_MS } });
  return out;
}
