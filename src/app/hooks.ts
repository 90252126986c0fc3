/** Data hooks over the engine worker: runs, snapshots at the scrubber's time, request details. */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { callEngine } from './engineClient.ts';
import { runKeyOf, type RunRequest, type RunSummary, type Snapshot } from './protocol.ts';
import { overridesOf, useApp, withFix, type Switches } from './state/store.ts';

function useSwitches(): Switches {
  return useApp(useShallow((s) => ({ capacityGap: s.capacityGap, rejectPath: s.rejectPath, mitigations: s.mitigations })));
}

function useRunOf(run: RunRequest | null) {
  const runKey = run ? runKeyOf(run) : '';
  return useQuery({
    queryKey: ['run', runKey],
    enabled: run !== null,
    queryFn: async (): Promise<RunSummary> => (await callEngine({ kind: 'run', run: run!, runKey })).summary,
  });
}

/** The run as the switches describe it. */
export function useMainRun() {
  const scenario = useApp((s) => s.scenario);
  const switches = useSwitches();
  return useRunOf({ scenario, overrides: overridesOf(switches) });
}

/** The comparison run (the same with one fix applied), when a fix is chosen. */
export function useCompareRun() {
  const scenario = useApp((s) => s.scenario);
  const compare = useApp((s) => s.compare);
  const switches = useSwitches();
  return useRunOf(compare ? { scenario, overrides: overridesOf(withFix(switches, compare)) } : null);
}

/**
 * The page state at the scrubber's time. At most one seek is in flight; while it runs, further time
 * changes collapse into the latest, so scrubbing never queues stale work.
 */
let latest: Snapshot | null = null;

/** The snapshot the views last drew, for exports (null if it belongs to another run). */
export function latestSnapshot(runKey: string): Snapshot | null {
  return latest?.runKey === runKey ? latest : null;
}

export function useSnapshot(run: RunSummary | undefined): Snapshot | null {
  const time = useApp((s) => s.time);
  const [snapshot, setSnapshot] = useState<Snapshot | null>(null);
  const inFlight = useRef(false);
  const wanted = useRef<{ runKey: string; t: number } | null>(null);

  useEffect(() => {
    if (!run || run.refused) {
      setSnapshot(null);
      return;
    }
    wanted.current = { runKey: run.runKey, t: time };
    let cancelled = false;
    const pump = async () => {
      if (inFlight.current) return;
      inFlight.current = true;
      try {
        while (wanted.current && !cancelled) {
          const w = wanted.current;
          wanted.current = null;
          const reply = await callEngine({ kind: 'seek', runKey: w.runKey, t: w.t });
          if (!cancelled) {
            latest = reply.snapshot;
            setSnapshot(reply.snapshot);
          }
        }
      } finally {
        inFlight.current = false;
      }
    };
    void pump();
    return () => {
      cancelled = true;
    };
  }, [run, time]);
  return snapshot;
}

export function useRequestDetail(run: RunSummary | undefined, req: number | null) {
  return useQuery({
    queryKey: ['detail', run?.runKey, req],
    enabled: !!run && !run.refused && req !== null && req < run.requests.ids.length,
    queryFn: async () => (await callEngine({ kind: 'detail', runKey: run!.runKey, req: req! })).detail,
  });
}

export function useMatrix() {
  return useQuery({ queryKey: ['matrix'], queryFn: async () => await callEngine({ kind: 'matrix' }) });
}
