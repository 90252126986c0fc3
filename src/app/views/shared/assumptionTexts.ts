/**
 * The assumptions' texts (engine/incident/assumptions.ts) for the page: not part of the first
 * screen's code, whose badges name an assumption by its id; the texts the badges' tips and the
 * evidence panel show load once the first screen is drawn (App.tsx), or as soon as a badge is
 * pointed at or focused.
 */
import { useSyncExternalStore } from 'react';
import { trackPending } from '../../state/settled.ts';
import type { Assumption } from '../../../engine/incident/assumptions.ts';

let texts: readonly Assumption[] | undefined;
let loading: Promise<void> | undefined;
const listeners = new Set<() => void>();

/** Starts loading the texts once; a failed load is retried by the next call. */
export function loadAssumptionTexts(): Promise<void> {
  loading ??= trackPending(import('../../../engine/incident/assumptions.ts')).then(
    (m) => {
      texts = m.ASSUMPTIONS;
      for (const listener of listeners) listener();
    },
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}

const subscribe = (listener: () => void) => {
  listeners.add(listener);
  return () => listeners.delete(listener);
};

/** The assumptions, or undefined while their texts are on their way. */
export function useAssumptionTexts(): readonly Assumption[] | undefined {
  return useSyncExternalStore(subscribe, () => texts);
}
