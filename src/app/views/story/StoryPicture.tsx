/**
 * The mechanism picture of the first screen, in one component so that it can be swapped whole: the
 * stage (one request's handoff, animated from the engine's events at the scrubber's instant), with
 * the handoff's steps listed beside it (the Transfer view's list: one list, the moment's), the
 * current one marked, each a way to seek to it.
 */
import { useT } from '../../i18n/i18n.ts';
import { useMainRun, useRequestDetail } from '../../run/hooks.ts';
import { useApp, type ViewName } from '../../state/store.ts';
import { useMoment } from '../shared/useMoment.ts';
import { HandoffSteps } from '../stage/HandoffSteps.tsx';
import { StageView } from '../stage/StageView.tsx';

/** The view the first screen already shows: its tab points up here instead of drawing it twice. */
export const STORY_PICTURE_VIEW: ViewName = 'stage';

export const STORY_PICTURE_ID = 'story-picture';

function StorySteps() {
  const t = useT();
  const main = useMainRun().data;
  const req = useApp((s) => s.selectedRequest);
  const run = main && !main.refused && req !== null && req < main.requests.count ? main : undefined;
  const detail = useRequestDetail(run, req);
  const moment = useMoment(run, req, detail.data);
  if (!run || !moment) return null;
  return (
    <nav className="story-steps" aria-labelledby="story-steps-h">
      <h3 id="story-steps-h">{t('stageStepsTitle')}</h3>
      <HandoffSteps run={run} moment={moment} className="steps story-step-list" testId="story-steps" />
    </nav>
  );
}

export function StoryPicture() {
  // The page a hovered response token drew on, ringed on the stage as on the grids.
  const linkedPage = useApp((s) => s.linkedPage);
  return (
    <div className="story-picture" id={STORY_PICTURE_ID} tabIndex={-1}>
      {/* The tenants whose KV the pools hold, keyed where the first screen shows their colours. */}
      <StageView linkedPage={linkedPage} firstScreen />
      <StorySteps />
    </div>
  );
}
