/**
 * The walkthrough's step language and the runner that plays it against the real store.
 *
 * A chapter is data: a list of steps. `set` patches the situation (scenario, switches, view,
 * selection of a page), `select` picks a request by its id, `seek` moves the scrubber to a named
 * instant of the run, `tween` moves it there over real time, `wait` pauses, `caption` says what to
 * look at, `highlight` outlines a named part of a view, `checkpoint` stops until the audience has
 * answered. Instants are never retyped times: they are the report's milestones, events of a named
 * request as the engine logged them, or a fraction of the run. Animation is only ever waits and
 * tweens, so skipping it (or reduced motion) is the same list with every wait and tween made
 * instant; leaving a chapter aborts the run, and the next chapter starts from its own known state.
 */
import type { EngineEventType } from '../../engine/index.ts';
import type { MilestoneKey } from '../../engine/incident/index.ts';
import type { Localised } from '../../engine/switches.ts';
import { INCIDENT_SWITCHES, type SwitchKey } from '../../engine/switches.ts';
import type { ScenarioName, UrlState } from '../state/store.ts';
import type { HighlightId } from '../views/shared/highlight.ts';
import type { StageStepId } from '../views/stage/stageFrame.ts';

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
  /** When a request's handoff reached a step of the stage view (views/stage/stageFrame.ts), plus a share of that step (0…1). */
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

export interface StepHost {
  apply(patch: StorePatch & { time?: number; handoff?: number | null; selectedRequest?: number | null; timelineZoom?: { from: number; to: number } | null }): void;
  caption(text: Caption | null): void;
  highlight(id: HighlightId | null): void;
  /** Current simulated time (for tweens). */
  time(): number;
  /** Simulated ms of an instant in the current run; resolves once that run is known. */
  timeOf(instant: Instant, signal: AbortSignal): Promise<number>;
  /** Seconds on the handoff clock of a stage instant (null: not a stage step), and where that clock is now. */
  handoffOf?(instant: Instant, signal: AbortSignal): Promise<number | null>;
  handoffNow?(signal: AbortSignal): Promise<number>;
  /** Index of a request (by trace id) in the current run. */
  requestIndex(id: string, signal: AbortSignal): Promise<number>;
  /** Read at every wait and tween, so turning animation off mid-chapter finishes it at once. */
  animating(): boolean;
  /** Next animation frame's time (the page's frame clock; tests give a fake one). */
  frame(): Promise<number>;
}

export type StopReason = 'checkpoint' | 'end' | 'aborted';

/**
 * Runs `steps` from index `from` until a checkpoint (returned with its index) or the end.
 * While `host.animating()` is false every wait and tween is instant, so a chapter lands in its final
 * state at once.
 */
export async function runSteps(steps: readonly Step[], from: number, host: StepHost, signal: AbortSignal): Promise<{ stop: StopReason; index: number }> {
  for (let i = from; i < steps.length; i++) {
    if (signal.aborted) return { stop: 'aborted', index: i };
    const step = steps[i]!;
    if ('set' in step) {
      const { switches, ...rest } = step.set;
      host.apply(switches ? { ...rest, switches } : rest);
    } else if ('caption' in step) host.caption(step.caption);
    else if ('highlight' in step) host.highlight(step.highlight);
    else if ('checkpoint' in step) return { stop: 'checkpoint', index: i };
    else if ('zoom' in step) {
      if (step.zoom === null) host.apply({ timelineZoom: null });
      else {
        try {
          const from = await host.timeOf(step.zoom.from, signal);
          const to = await host.timeOf(step.zoom.to, signal);
          host.apply({ timelineZoom: { from, to } });
        } catch {
          if (signal.aborted) return { stop: 'aborted', index: i };
        }
      }
    }
    else if ('wait' in step) {
      if (host.animating()) {
        const t0 = await host.frame();
        while (!signal.aborted && host.animating() && (await host.frame()) - t0 < step.wait);
      }
    } else if ('select' in step) {
      try {
        host.apply({ selectedRequest: step.select === null ? null : await host.requestIndex(step.select, signal) });
      } catch {
        if (signal.aborted) return { stop: 'aborted', index: i };
      }
    } else if ('seek' in step || 'tween' in step) {
      let target: number;
      try {
        target = await host.timeOf('seek' in step ? step.seek : step.tween.to, signal);
      } catch {
        if (signal.aborted) return { stop: 'aborted', index: i };
        // A run that cannot place the instant keeps its time.
        continue;
      }
      const ms = 'tween' in step ? step.tween.ms : 0;
      // A stage step: the handoff clock moves there (the incident's instant is the step's own).
      let handoffTo: number | null = null;
      try {
        handoffTo = host.handoffOf ? await host.handoffOf('seek' in step ? step.seek : step.tween.to, signal) : null;
      } catch {
        handoffTo = null;
      }
      if (handoffTo !== null) {
        const h0 = host.animating() && ms > 0 && host.handoffNow ? await host.handoffNow(signal) : handoffTo;
        if (host.animating() && ms > 0) {
          const t0 = await host.frame();
          for (;;) {
            if (signal.aborted) return { stop: 'aborted', index: i };
            const now = await host.frame();
            const k = host.animating() ? Math.min(1, (now - t0) / ms) : 1;
            host.apply({ time: target, handoff: h0 + (handoffTo - h0) * k });
            if (k >= 1) break;
          }
        } else host.apply({ time: target, handoff: handoffTo });
        continue;
      }
      if (host.animating() && ms > 0) {
        const start = host.time();
        const t0 = await host.frame();
        for (;;) {
          if (signal.aborted) return { stop: 'aborted', index: i };
          const now = await host.frame();
          const k = host.animating() ? Math.min(1, (now - t0) / ms) : 1;
          host.apply({ time: start + (target - start) * k });
          if (k >= 1) break;
        }
      } else host.apply({ time: target });
    }
  }
  return signal.aborted ? { stop: 'aborted', index: steps.length } : { stop: 'end', index: steps.length };
}

/** Index of a chapter's checkpoint step, or -1. */
export function checkpointIndex(steps: readonly Step[]): number {
  return steps.findIndex((s) => 'checkpoint' in s);
}

/** Every caption a chapter shows, in order (for the recorder's captions and the speaker's outline). */
export function captionsOf(steps: readonly Step[]): Localised[] {
  return steps.flatMap((s) => ('caption' in s ? [s.caption] : []));
}

/** Real time a chapter's steps take when animated (waits and tweens), in ms. */
export function animatedDuration(steps: readonly Step[]): number {
  return steps.reduce((sum, s) => sum + ('wait' in s ? s.wait : 'tween' in s ? s.tween.ms : 0), 0);
}

export type { ScenarioName };
