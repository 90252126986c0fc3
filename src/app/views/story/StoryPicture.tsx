/**
 * The mechanism picture of the first screen, in one component so that it can be swapped whole: for
 * now the transfer view (the handoff step by step, the block table, the "done" message). A picture
 * that marks the page a hovered response token drew on takes it from the store
 * (`useApp((s) => s.linkedPage)`), as the grids and the block-table strip do.
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
