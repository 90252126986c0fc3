/**
 * The selected request's handoff at this moment, for any view that shows its steps (the stage, the
 * Transfer view's step list): from the handoff clock when it runs, else from the incident's instant.
 */
import { useEffect, useMemo, useState } from 'react';
import type { RequestDetail } from '../../run/hooks.ts';
import { useApp, type AppStore } from '../../state/store.ts';
import { seekHandoff } from '../../state/handoffClock.ts';
import { stepEnd, handoffScript, positionAtHandoff, positionAtInstant, type HandoffPosition, type HandoffScript } from './handoff.ts';

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

export function useHandoff(detail: RequestDetail | undefined): { script: HandoffScript; position: HandoffPosition; reducedMotion: boolean } {
  const time = useApp((s) => s.time);
  const handoff = useApp((s) => s.handoff);
  const reducedMotion = useReducedMotion();
  const script = useMemo(() => (detail ? handoffScript(detail.events, detail.response.tokens.length) : { steps: [], total: 0 }), [detail]);
  const position = handoff === null ? positionAtInstant(script, time, { reducedMotion }) : positionAtHandoff(script, handoff, { reducedMotion });
  return { script, position, reducedMotion };
}

/** Puts the handoff clock at the end state of step `index` (clamped). */
export function goToStep(store: AppStore, script: HandoffScript, index: number): void {
  const s = script.steps[Math.max(0, Math.min(script.steps.length - 1, index))];
  if (s) seekHandoff(store, stepEnd(s));
}
