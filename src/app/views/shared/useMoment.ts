/**
 * The selected request at this moment, for every view that shows it (the stage, the Transfer view,
 * the counter): the store's clocks and the reader's motion preference, put through the one moment
 * function (moment/moment.ts). Views read the moment; none computes a handoff position.
 */
import { useEffect, useMemo, useState } from 'react';
import { useRequestDetail, type RequestDetail, type RunSummary, type Snapshot } from '../../run/hooks.ts';
import { useApp, type AppStore } from '../../state/store.ts';
import { seekHandoff } from '../../state/handoffClock.ts';
import { momentOf, outcomesBy, positionOf, stepEnd, type HandoffScript, type Moment } from '../../moment/moment.ts';
import type { Counters } from '../../../engine/index.ts';

export function useReducedMotion(): boolean {
  const query = '(prefers-reduced-motion: reduce)';
  const [reduced, setReduced] = useState(() => typeof window !== 'undefined' && window.matchMedia?.(query).matches === true);
  useEffect(() => {
    const m = window.matchMedia?.(query);
    if (!m) return;
    const on = () => setReduced(m.matches);
    m.addEventListener('change', on);
    return () => m.removeEventListener('change', on);
  }, []);
  return reduced;
}

/** The moment of `req` in `run` at the store's clocks, or null until its detail is there. */
export function useMoment(run: RunSummary | undefined, req: number | null, detail: RequestDetail | undefined): Moment | null {
  const time = useApp((s) => s.time);
  const handoff = useApp((s) => s.handoff);
  const reducedMotion = useReducedMotion();
  if (!run || req === null || !detail) return null;
  return momentOf({ run, req, detail, time, handoff, reducedMotion });
}

/**
 * A value of the moment's engine time (the instant its pools, counters and story stand at: the
 * handoff's when its clock runs, else the incident's), through a store selector, so the view
 * re-renders only when the value changes (a counter, a story's standing), not on every frame.
 */
export function useMomentValue<T>(run: RunSummary | undefined, req: number | null, detail: RequestDetail | undefined, pick: (engineT: number) => T): T {
  const reducedMotion = useReducedMotion();
  return useApp((s) => pick(momentEngineTime(run, req, detail, s.time, s.handoff, reducedMotion)));
}

/**
 * The moment's engine time from the store's clocks: the handoff's position's when the request's
 * detail is this run's, else the incident's instant. What the leak counter, the story's standing,
 * the outcome tiles and the grids stand at (a Node test holds it to `momentOf`'s).
 */
export function momentEngineTime(run: RunSummary | undefined, req: number | null, detail: RequestDetail | undefined, time: number, handoff: number | null, reducedMotion: boolean): number {
  return run && !run.refused && req !== null && detail && detail.runKey === run.runKey && detail.response.request === req ? positionOf({ run, req, detail, time, handoff, reducedMotion }).engineT : time;
}

/** The moment's engine time for the selected request (the incident's instant until its detail is there). */
function useSelectedEngineTime(run: RunSummary | undefined): number {
  const req = useApp((s) => s.selectedRequest);
  const detail = useRequestDetail(run && !run.refused ? run : undefined, req);
  return useMomentValue(run, req, detail.data, (t) => t);
}

/**
 * The pools at the moment's engine time, for the views that draw whole pools (the page grids and
 * their inspector): the instant the stage and the Transfer view show, so no two views seek two
 * instants of one run (a seek's arrays serve until the next seek).
 */
export function useMomentSnapshot(run: RunSummary | undefined): Snapshot | null {
  const engineT = useSelectedEngineTime(run);
  return useMemo(() => (run && !run.refused ? run.seek(engineT) : null), [run, engineT]);
}

/**
 * The run's outcomes as of the moment's engine time (the instant the stage and the leak counter
 * show): the outcome tiles (moment.ts `outcomesBy`, the moment's `outcomes.now`).
 */
export function useMomentOutcomes(run: RunSummary | undefined): Counters | null {
  const engineT = useSelectedEngineTime(run);
  return useMemo(() => (run && !run.refused ? outcomesBy(run, engineT) : null), [run, engineT]);
}

/** Puts the handoff clock at the end state of step `index` (clamped). */
export function goToStep(store: AppStore, script: HandoffScript, index: number): void {
  const s = script.steps[Math.max(0, Math.min(script.steps.length - 1, index))];
  if (s) seekHandoff(store, stepEnd(s));
}
