/** Data hooks over the engine worker: runs, snapshots at the scrubber's time, request details. */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { callEngine } from './engineClient.ts';
import { runKeyOf, type RunRequest, type RunSummary, type Snapshot } from './protocol.ts';
import { summaryFromReplay } from './replay/incidentRun.ts';
import type { ReplayProgressInfo } from './replay/replayClient.ts';
import { useIncidentReplay } from './replay/useIncidentReplay.ts';
import { overridesOf, useApp, withFix, type Switches } from './state/store.ts';

function useSwitches(): Switches {
  return useApp(useShallow((s) => ({ capacityGap: s.capacityGap, rejectPath: s.rejectPath, mitigations: s.mitigations })));
}

const knownRuns = new Map<string, RunSummary>();

/** The latest summary produced for a run key (scenario + overrides), whichever worker made it. */
export function knownRun(runKey: string): RunSummary | undefined {
  return knownRuns.get(runKey);
}

export interface RunState {
  data: RunSummary | undefined;
  isError: boolean;
  error: Error | null;
  /** Progress of the incident replay while it runs (null for the small scenarios). */
  progress: ReplayProgressInfo | null;
}

/**
 * A run of the chosen scenario: the small ones simulate in the engine worker; the incident window
 * is replayed by its own worker and then seeks on the page.
 */
function useRunOf(run: RunRequest | null): RunState {
  const runKey = run ? runKeyOf(run) : '';
  const isIncident = run?.scenario === 'incident';
  const small = useQuery({
    queryKey: ['run', runKey],
    enabled: run !== null && !isIncident,
    queryFn: async (): Promise<RunSummary> => (await callEngine({ kind: 'run', run: run!, runKey })).summary,
  });
  const requestsPerDay = useApp((s) => s.requestsPerDay);
  const tenants = useApp((s) => s.tenants);
  const traffic = useMemo(() => ({ requestsPerDay, tenants }), [requestsPerDay, tenants]);
  const replay = useIncidentReplay(traffic, run?.overrides ?? {}, isIncident);
  const replayKey = `${runKey}:${requestsPerDay}:${tenants}`;
  const replaySummary = useMemo(() => (replay.data ? summaryFromReplay(replay.data, replayKey) : undefined), [replay.data, replayKey]);
  const data = isIncident ? replaySummary : run ? small.data : undefined;
  useEffect(() => {
    if (data) knownRuns.set(runKey, data);
  }, [data, runKey]);
  if (isIncident) return { data, isError: replay.isError, error: replay.error, progress: replay.isFetching ? replay.progress : null };
  return { data, isError: small.isError, error: small.error, progress: null };
}

/** The run as the switches describe it. */
export function useMainRun(): RunState {
  const scenario = useApp((s) => s.scenario);
  const switches = useSwitches();
  return useRunOf({ scenario, overrides: overridesOf(switches) });
}

/** The comparison run (the same with one fix applied), when a fix is chosen. */
export function useCompareRun(): RunState {
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
  const mounted = useRef(true);
  const wanted = useRef<{ runKey: string; t: number } | null>(null);
  const currentRun = useRef<string | null>(null);

  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);

  // Held on the page: seeking is a millisecond or two of replay from the nearest checkpoint, so it
  // runs during render and the grids draw in the same frame (an effect would wait for a paint).
  const local = run && !run.refused && run.local ? run.local : null;
  const localSnapshot = useMemo(() => (local ? local.seek(time) : null), [local, time]);
  if (localSnapshot) latest = localSnapshot;

  useEffect(() => {
    currentRun.current = run && !run.refused ? run.runKey : null;
    if (!run || run.refused || run.local) {
      wanted.current = null;
      setSnapshot(null);
      return;
    }
    wanted.current = { runKey: run.runKey, t: time };
    if (inFlight.current) return; // the running loop picks up the newest wish when its seek returns
    inFlight.current = true;
    void (async () => {
      try {
        while (wanted.current) {
          const w = wanted.current;
          wanted.current = null;
          const reply = await callEngine({ kind: 'seek', runKey: w.runKey, t: w.t });
          // Drop answers for a run the view no longer shows.
          if (mounted.current && reply.snapshot.runKey === currentRun.current) {
            latest = reply.snapshot;
            setSnapshot(reply.snapshot);
          }
        }
      } finally {
        inFlight.current = false;
      }
    })();
  }, [run, time]);
  return localSnapshot ?? snapshot;
}

export function useRequestDetail(run: RunSummary | undefined, req: number | null) {
  return useQuery({
    queryKey: ['detail', run?.runKey, req],
    enabled: !!run && !run.refused && req !== null && req < run.requests.ids.length,
    queryFn: async () => (run!.local ? await run!.local.detail(req!) : (await callEngine({ kind: 'detail', runKey: run!.runKey, req: req! })).detail),
  });
}

export function useMatrix() {
  return useQuery({ queryKey: ['matrix'], queryFn: async () => await callEngine({ kind: 'matrix' }) });
}
