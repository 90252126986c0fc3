/**
 * The mechanism picture of the first screen, in one component so that it can be swapped whole: the
 * stage (one request's handoff, animated from the engine's events at the scrubber's instant).
 */
import { useApp, type ViewName } from '../../state/store.ts';
import { StageView } from '../stage/StageView.tsx';

/** The view the first screen already shows: its tab points up here instead of drawing it twice. */
export const STORY_PICTURE_VIEW: ViewName = 'stage';

export const STORY_PICTURE_ID = 'story-picture';

export function StoryPicture() {
  // The page a hovered response token drew on, ringed on the stage as on the grids.
  const linkedPage = useApp((s) => s.linkedPage);
  return (
    <div className="story-picture" id={STORY_PICTURE_ID} tabIndex={-1}>
      {/* The tenants whose KV the pools hold, keyed where the first screen shows their colours. */}
      <StageView linkedPage={linkedPage} tenantKeysFirst />
    </div>
  );
}
