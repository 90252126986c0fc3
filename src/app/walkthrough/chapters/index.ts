/** The walkthrough's chapters, in order: one file each, registered here. */
import type { Chapter } from './chapter.ts';
import { chapter as kvPages } from './01-kv-pages.ts';
import { chapter as stalePages } from './02-stale-pages.ts';
import { chapter as capacityGap } from './03-capacity-gap.ts';
import { chapter as placeholder } from './04-placeholder.ts';
import { chapter as transferComplete } from './05-transfer-complete.ts';
import { chapter as mixedResponse } from './06-mixed-response.ts';
import { chapter as twoWeeks } from './07-two-weeks.ts';
import { chapter as response9Sep } from './08-response-9-sep.ts';
import { chapter as fixes } from './09-fixes.ts';
import { chapter as sameFamily } from './10-same-family.ts';

export const CHAPTERS: readonly Chapter[] = [kvPages, stalePages, capacityGap, placeholder, transferComplete, mixedResponse, twoWeeks, response9Sep, fixes, sameFamily];

/** A chapter number from a link, clamped to the chapters there are. */
export function clampChapter(n: number): number {
  return Math.max(1, Math.min(CHAPTERS.length, Math.round(n)));
}
