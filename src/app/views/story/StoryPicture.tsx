/**
 * The mechanism picture of the first screen, in one component so that it can be swapped whole: for
 * now the transfer view (the handoff step by step, the block table, the "done" message).
 */
import type { RunSummary } from '../../run/hooks.ts';
import { TransferView } from '../transfer/TransferView.tsx';

/** While the picture is the transfer view, the Transfer tab points up here instead of drawing it twice. */
export const STORY_PICTURE_SHOWS_TRANSFER = true;

export const STORY_PICTURE_ID = 'story-picture';

export function StoryPicture({ run }: { run: RunSummary }) {
  return (
    <div className="story-picture" id={STORY_PICTURE_ID} tabIndex={-1}>
      <TransferView run={run} />
    </div>
  );
}
