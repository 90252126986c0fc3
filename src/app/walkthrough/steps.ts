/**
 * The walkthrough's step language and the runner that plays it against the real store.
 *
 * A chapter is data: a list of steps. `set` patches the store (scenario, switches, time, selection,
 * view), `wait` pauses, `tween` moves the scrubber over a span of real time, `seekUtc` moves it to a
 * wall-clock instant of the current run, `caption` says what to look at, `highlight` outlines part of
 * the page, `checkpoint` stops until the audience has answered. Animation is only ever waits and
 * tweens, so skipping it (or reduced motion) is the same list with every wait and tween made
 * instant; leaving a chapter aborts the run, and the next chapter starts from its own known state.
 */
import { DEFAULT_STATE, type AppState } from '../state/store.ts';

export interface Localised {
  en: string;
  fr: string;
}

/** What a chapter may set: the situation, never the language, presenter mode or notices. */
export type StorePatch = Partial<
  Pick<AppState, 'scenario' | 'capacityGap' | 'rejectPath' | 'mitigations' | 'compare' | 'time' | 'selectedRequest' | 'selectedPage' | 'view' | 'playing' | 'speed'>
>;

export type Step =
  | { set: StorePatch }
  | { wait: number }
  | { tween: { time: number; ms: number } }
  | { seekUtc: string }
  | { caption: Localised }
  | { highlight: string | null }
  | { checkpoint: true };

/** Where a chapter starts before its own steps: the incident as it happened, nothing selected. */
export const CHAPTER_BASE: StorePatch = {
  scenario: 'demo',
  capacityGap: DEFAULT_STATE.capacityGap,
  rejectPath: DEFAULT_STATE.rejectPath,
  mitigations: DEFAULT_STATE.mitigations,
  compare: null,
  time: 0,
  selectedRequest: null,
  selectedPage: null,
  view: 'cluster',
  playing: false,
};

export interface StepHost {
  apply(patch: StorePatch): void;
  caption(text: Localised | null): void;
  highlight(selector: string | null): void;
  /** Current simulated time (for tweens). */
  time(): number;
  /** Simulated ms of a UTC instant in the current run; resolves once that run is known. */
  timeOfUtc(iso: string, signal: AbortSignal): Promise<number>;
  /** Read at every wait and tween, so turning animation off mid-chapter finishes it at once. */
  animating(): boolean;
  /** Next animation frame (tests give a fake clock). */
  frame(): Promise<number>;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

export type StopReason = 'checkpoint' | 'end' | 'aborted';

/**
 * Runs `steps` from index `from` until a checkpoint (returned with its index) or the end.
 * While `host.animating()` is false every wait and tween is instant, so a chapter lands in its final
 * state at once.
 */
export async function runSteps(
  steps: readonly Step[],
  from: number,
  host: StepHost,
  signal: AbortSignal,
): Promise<{ stop: StopReason; index: number }> {
  for (let i = from; i < steps.length; i++) {
    if (signal.aborted) return { stop: 'aborted', index: i };
    const step = steps[i]!;
    if ('set' in step) host.apply(step.set);
    else if ('caption' in step) host.caption(step.caption);
    else if ('highlight' in step) host.highlight(step.highlight);
    else if ('checkpoint' in step) return { stop: 'checkpoint', index: i };
    else if ('wait' in step) {
      if (host.animating()) await host.sleep(step.wait, signal);
    } else if ('seekUtc' in step) {
      try {
        host.apply({ time: await host.timeOfUtc(step.seekUtc, signal) });
      } catch {
        if (signal.aborted) return { stop: 'aborted', index: i };
        // A run that cannot place the instant (a fallback scenario) keeps its time.
      }
    } else if ('tween' in step) {
      const { time: target, ms } = step.tween;
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
