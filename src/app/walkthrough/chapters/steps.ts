/**
 * The walkthrough's step language (timeline.ts compiles it into beats and is its one interpreter).
 *
 * A chapter is data: a list of steps. `set` patches the situation (scenario, switches, view,
 * selection of a page), `select` picks a request by its id, `seek` moves the scrubber to a named
 * instant of the run, `tween` moves it there over real time, `wait` pauses, `caption` says what to
 * look at, `highlight` outlines a named part of a view, `checkpoint` stops until the audience has
 * answered, `zoom` zooms the timeline to a window. Instants are never retyped times: they are the report's milestones, events of a named
 * request as the engine logged them, or a fraction of the run. Animation is only ever waits and
 * tweens, so skipping it (or reduced motion) is the same list with every wait and tween made
 * instant; leaving a chapter aborts the run, and the next chapter starts from its own known state.
 */
import type { EngineEventType } from '../../../engine/index.ts';
import type { MilestoneKey } from '../../../engine/incident/index.ts';
import type { Localised } from '../../../engine/switches.ts';
import { INCIDENT_SWITCHES, type SwitchKey } from '../../../engine/switches.ts';
import type { ScenarioName, UrlState } from '../../state/store.ts';
import type { HighlightId } from '../../views/shared/highlight.ts';
import type { StageStepId } from '../../moment/stageFrame.ts';

export type { Localised };

/** What a chapter may set: the situation, never the language, presenter mode or notices. */
export type StorePatch = Partial<Pick<UrlState, 'scenario' | 'compare' | 'selectedPage' | 'view' | 'playing' | 'speed'>> & {
  switches?: Partial<Record<SwitchKey, boolean>>;
};

/** A moment of the run on screen, named from the engine's data. */
export type Instant =
  /** One of the report's milestones (the incident window only). */
  | { milestone: MilestoneKey }
  /** When a request (by its id in the trace) reached an event of its handoff, plus an offset. */
  | { request: string; event: EngineEventType; offsetMs?: number }
  /** A fraction of the whole run, 0 its start and 1 its end. */
  | { fraction: number }
  /** When a request's handoff reached a step of the stage view (moment/stageFrame.ts), plus a share of that step (0…1). */
  | { request: string; stage: StageStepId; into?: number };

/** A caption; `model` marks one whose figures (a status code, a count) are the model's, not the report's. */
export type Caption = Localised & { model?: true };

export type Step =
  | { set: StorePatch }
  | { select: string | null }
  | { seek: Instant }
  | { tween: { to: Instant; ms: number } }
  | { wait: number }
  | { caption: Caption }
  | { highlight: HighlightId | null }
  /** Zooms the timeline to the window between two instants (null: the whole run). */
  | { zoom: { from: Instant; to: Instant } | null }
  | { checkpoint: true };

/** Where a chapter starts before its own steps: the incident as it happened, nothing selected. */
export const CHAPTER_BASE: Partial<UrlState> = {
  scenario: 'demo',
  switches: INCIDENT_SWITCHES,
  compare: null,
  time: 0,
  selectedRequest: null,
  selectedPage: null,
  view: 'cluster',
  playing: false,
};

export type { ScenarioName };
