/**
 * What the answer's reveal shows. The instant steps right after a checkpoint (a switch set, a
 * highlight, a seek) take effect when the answer is revealed, not after it, so the answer is said over the
 * picture it describes: the video lays its frames out by this (render/schedule.ts) and the live
 * screen applies them on the key that reveals the answer (LiveScreen.tsx).
 */
import type { Step } from './chapters/steps.ts';

/** The steps from `from` (the one after a checkpoint) that the reveal plays, and the index after them. */
export function revealSteps(steps: readonly Step[], from: number): { steps: Step[]; next: number } {
  let next = from;
  while (next < steps.length && ('set' in steps[next]! || 'highlight' in steps[next]! || 'seek' in steps[next]!)) next++;
  return { steps: steps.slice(from, next), next };
}
