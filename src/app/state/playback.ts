/**
 * Playback of the incident's clock, on the one frame clock, beside it: while the store says
 * `playing`, simulated time advances at `speed`× real time (0: the whole run in about 30 s), in whole
 * one-second steps with reduced motion, and stops at the run's end. It belongs to the store it is
 * started on, not to a view: the page plays whether or not the timeline is on screen.
 */
import type { StoreApi } from 'zustand';
import { everyFrame } from './clock.ts';
import type { AppState } from './store.ts';

const FIT_RUN_MS = 30_000;

/** Simulated ms per real ms: the chosen multiplier, or (0) the run's length over 30 s. */
export function effectiveSpeed(speed: number, runMs: number): number {
  return speed > 0 ? speed : Math.max(1, runMs / FIT_RUN_MS);
}

const prefersReducedMotion = () => typeof window !== 'undefined' && (window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false);

/**
 * Follows `store`'s `playing` flag until the returned function is called: each play runs on the
 * frame clock up to `endMs()` (the run on screen; null while none is).
 */
export function startPlayback(store: Pick<StoreApi<AppState>, 'getState' | 'subscribe'>, endMs: () => number | null): () => void {
  let stopFrames: (() => void) | null = null;
  const begin = () => {
    stopFrames?.();
    const reduced = prefersReducedMotion();
    let owed = 0;
    stopFrames = everyFrame((_now, dt) => {
      const s = store.getState();
      const end = endMs();
      if (!s.playing || end === null) {
        stopFrames = null;
        return false;
      }
      owed += dt;
      if (reduced && owed < 1000) return true;
      const next = s.time + owed * effectiveSpeed(s.speed, end);
      owed = 0;
      if (next >= end) {
        s.set({ time: end, playing: false });
        stopFrames = null;
        return false;
      }
      s.set({ time: next });
      return true;
    });
  };
  if (store.getState().playing) begin();
  const unsubscribe = store.subscribe((s, prev) => {
    if (s.playing && !prev.playing) begin();
  });
  return () => {
    unsubscribe();
    stopFrames?.();
    stopFrames = null;
  };
}
