/**
 * The steps the video plays for a chapter: its own `videoSteps` where it directs the video
 * differently from the live walkthrough (chapter 7 sweeps the two weeks rather than jumping), else
 * the walkthrough's steps.
 */
import type { Chapter } from '../walkthrough/chapters/chapter.ts';
import type { Step } from '../walkthrough/chapters/steps.ts';

export function videoSteps(chapter: Chapter): Step[] {
  return chapter.videoSteps ?? chapter.steps;
}
