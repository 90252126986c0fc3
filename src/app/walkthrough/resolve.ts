/**
 * Where a chapter's named instants fall in a run: the report's milestones, a request's events, a
 * fraction of the run, a stage step of a request's handoff. Pure over a computed run (its requests'
 * details are asked of it), so the live walkthrough, the screen layout and the video's driver place
 * the same instant at the same time; timeline.ts compiles a chapter's steps with these.
 */
import { MILESTONE_T, WINDOW_START_MS } from '../../engine/incident/index.ts';
import type { RunSummary } from '../run/summary.ts';
import { handoffTimeOf, positionAtInstant } from '../moment/handoff.ts';
import { scriptOf } from '../moment/moment.ts';
import { stageSteps } from '../moment/stageFrame.ts';
import type { Chapter } from './chapters/chapter.ts';
import type { Instant } from './chapters/steps.ts';

export { scenarioOf } from './chapters/chapter.ts';

/** Simulated ms of an instant in a run. */
export async function instantIn(run: RunSummary, instant: Instant): Promise<number> {
  let t: number;
  if ('fraction' in instant) t = instant.fraction * run.endMs;
  else if ('milestone' in instant) t = WINDOW_START_MS + MILESTONE_T[instant.milestone] - run.startEpochMs;
  else if ('stage' in instant) {
    const req = run.requests.ids.indexOf(instant.request);
    if (req < 0) throw new Error(`no request ${instant.request} in this run`);
    const steps = stageSteps((await run.detail(req)).events);
    const s = steps.find((x) => x.id === instant.stage);
    if (!s) throw new Error(`request ${instant.request} has no ${instant.stage} stage step`);
    // A share of the step, on the URL's microsecond grid; the open-ended last step counts as one millisecond.
    const span = (s.end === Infinity ? 1 : s.end - s.start) * (instant.into ?? 0);
    t = Math.round((s.start + span) * 1000) / 1000;
    if (t >= s.end) t = s.start;
    // The steps of a request's last instant are spread over a short tail after it, for the viewer
    // (stageFrame.ts); when that instant ends the run, the incident's clock stops at the run's end
    // while the handoff clock still places the step.
    t = Math.min(t, run.endMs);
  } else {
    const req = run.requests.ids.indexOf(instant.request);
    if (req < 0) throw new Error(`no request ${instant.request} in this run`);
    const events = (await run.detail(req)).events;
    const e = events.find((x) => x.type === instant.event);
    if (!e) throw new Error(`request ${instant.request} has no ${instant.event} event`);
    t = e.t + (instant.offsetMs ?? 0);
  }
  if (!(t >= 0 && t <= run.endMs)) throw new Error(`the instant (${t} ms) is outside this run (0 to ${run.endMs} ms)`);
  return t;
}

/**
 * Seconds on a request's handoff clock at a stage instant (moment/handoff.ts), or null for an
 * instant that is not a stage step: a chapter that seeks or tweens to a stage step moves the handoff
 * clock, at a viewer's pace, not the incident's 2 ms.
 */
export async function handoffIn(run: RunSummary, instant: Instant): Promise<number | null> {
  if (!('stage' in instant)) return null;
  const req = run.requests.ids.indexOf(instant.request);
  if (req < 0) return null;
  const d = await run.detail(req);
  return handoffTimeOf(scriptOf(d), instant.stage, instant.into ?? 0);
}

/** Where a request's handoff clock stands when the stage follows the incident's clock at `time`. */
export async function handoffAtInstant(run: RunSummary, request: number | null, time: number): Promise<number> {
  if (request === null || request >= run.requests.count) return 0;
  const d = await run.detail(request);
  return Math.max(0, positionAtInstant(scriptOf(d), time).h);
}

/** Index of a request (by its id in the trace) in a run. */
export function requestIn(run: RunSummary, id: string): number {
  const i = run.requests.ids.indexOf(id);
  if (i < 0) throw new Error(`no request ${id} in this run`);
  return i;
}
