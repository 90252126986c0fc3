/**
 * Data hooks over the run workers: the run the switches describe, the comparison run, the page
 * state at the scrubber's time, one request's detail, the outcome matrix. Every scenario takes the
 * same path: a worker runs it (react-query caches it by its run key and cancels it when superseded),
 * and the page seeks it locally.
 */
import { useIsFetching, useQuery, type QueryClient } from '@tanstack/react-query';
import { useMemo, useState, useSyncExternalStore } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { RunProgress } from '../../engine/index.ts';
import { runKeyOf, type RunRequest } from '../../engine/runs/index.ts';
import { overridesOf, withFix, type SwitchKey } from '../../engine/switches.ts';
import { useApp, type AppState } from '../state/store.ts';
import { fetchRunAhead, runMatrixInWorker, startRun } from './runClient.ts';
import type { RunSummary, Snapshot } from './summary.ts';

export type { RunSummary, Snapshot } from './summary.ts';
export type { NodeSnapshot, RequestDetail } from './summary.ts';

/**
 * A run's progress as it is reported, read by the progress line alone (`useProgress`): a report every
 * 50 ms re-renders that line, not the page around it, so the page stays responsive while a replay runs.
 */
export class ProgressFeed {
  private value: RunProgress = { fraction: 0, simulatedT: 0, phase: '' };
  private readonly listeners = new Set<() => void>();
  readonly get = (): RunProgress => this.value;
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
  readonly set = (p: RunProgress): void => {
    this.value = p;
    for (const l of this.listeners) l();
  };
}

/** The latest progress of a feed, re-rendering only the component that reads it. */
export function useProgress(feed: ProgressFeed): RunProgress {
  return useSyncExternalStore(feed.subscribe, feed.get);
}

export interface RunState {
  data: RunSummary | undefined;
  isError: boolean;
  error: Error | null;
  /** Progress while the run is computed (null once it is there). */
  progress: ProgressFeed | null;
  /** `data` is the previous run of the same scenario, kept on screen while this one is computed. */
  recomputing: boolean;
}

type RunInputs = Pick<AppState, 'scenario' | 'switches' | 'requestsPerDay' | 'tenants'> & Partial<Pick<AppState, 'deploymentReplay'>>;

/** The run request a situation stands for: the replay on an operator's deployment when there is one, else the scenario's. */
export function runRequestOf(s: RunInputs): RunRequest {
  if (s.deploymentReplay && s.deploymentReplay !== 'none') return s.deploymentReplay;
  return { scenario: s.scenario, overrides: overridesOf(s.switches), ...(s.scenario === 'incident' ? { traffic: { requestsPerDay: s.requestsPerDay, tenants: s.tenants } } : {}) };
}

/**
 * Runs kept that no view shows. The ones on screen (the current run and the comparison) are
 * observed, so the cache keeps them anyway; of the others only the latest is worth its memory (a
 * full-scale run holds several MB): a switch turned back is the most common step, and it then
 * answers at once. Any older one is recomputed if asked again. The run client keeps a worker for
 * each of these three (runClient.ts MAX_KEPT_WORKERS).
 */
const KEPT_HIDDEN_RUNS = 1;

/** Drops the computed runs no view observes beyond the latest KEPT_HIDDEN_RUNS, with their request details. */
export function forgetHiddenRuns(client: QueryClient): void {
  const cache = client.getQueryCache();
  const hidden = cache
    .findAll({ queryKey: ['run'], type: 'inactive' })
    .filter((q) => q.state.status === 'success' && q.state.fetchStatus === 'idle')
    .sort((a, b) => b.state.dataUpdatedAt - a.state.dataUpdatedAt);
  for (const query of hidden.slice(KEPT_HIDDEN_RUNS)) {
    const runKey = query.queryKey[1];
    cache.remove(query);
    for (const detail of cache.findAll({ queryKey: ['detail', runKey], type: 'inactive' })) cache.remove(detail);
  }
}

const watched = new WeakSet<QueryClient>();

/** Applies the bound whenever a run is computed or a view stops showing one. */
function watchHiddenRuns(client: QueryClient): void {
  if (watched.has(client)) return;
  watched.add(client);
  client.getQueryCache().subscribe((event) => {
    if (event.query.queryKey[0] === 'run' && (event.type === 'observerRemoved' || (event.type === 'updated' && event.action.type === 'success'))) {
      // After the event: an observer moving to another run is removed before it is added there.
      queueMicrotask(() => forgetHiddenRuns(client));
    }
  });
}

function runQuery(request: RunRequest, onProgress?: (p: RunProgress) => void) {
  const runKey = runKeyOf(request);
  return {
    queryKey: ['run', runKey],
    queryFn: ({ signal, client }: { signal: AbortSignal; client: QueryClient }) => {
      watchHiddenRuns(client);
      onProgress?.({ fraction: 0, simulatedT: 0, phase: '' });
      return startRun(request, runKey, { signal, ...(onProgress ? { onProgress } : {}) });
    },
    staleTime: Infinity,
    gcTime: 5 * 60_000,
    retry: false,
  } as const;
}

/** A switch is about to be flipped (a pointer on it, or focus): fetch the file of the run it leads to, if one was built. */
export function fetchSwitchAhead(s: RunInputs, key: SwitchKey): void {
  fetchRunAhead(runKeyOf(runRequestOf({ ...s, switches: { ...s.switches, [key]: !s.switches[key] } })));
}

/** The run a situation stands for, once it is computed (the walkthrough waits on it to place instants). */
export function ensureRun(client: QueryClient, s: RunInputs): Promise<RunSummary> {
  return client.ensureQueryData(runQuery(runRequestOf(s)));
}

function useRunOf(request: RunRequest | null): RunState {
  const [feed] = useState(() => new ProgressFeed());
  const q = useQuery({
    ...runQuery(request ?? { scenario: 'demo', overrides: {} }, feed.set),
    enabled: request !== null,
    // Switching a defect or a mitigation keeps the last result of the same scenario on screen (its
    // time axis still holds) until the new one is there; another scenario starts empty.
    placeholderData: (previous: RunSummary | undefined) => (previous && request && scenarioOfKey(previous.runKey) === request.scenario ? previous : undefined),
  });
  if (!request) return { data: undefined, isError: false, error: null, progress: null, recomputing: false };
  return { data: q.data, isError: q.isError, error: q.error, progress: q.isFetching ? feed : null, recomputing: q.isPlaceholderData };
}

/** A run key's scenario (`runKeyOf` keys are JSON arrays that start with it). */
function scenarioOfKey(runKey: string): string {
  return (JSON.parse(runKey) as [string])[0];
}

function useInputs(): RunInputs {
  return useApp(useShallow((s) => ({ scenario: s.scenario, switches: s.switches, requestsPerDay: s.requestsPerDay, tenants: s.tenants, deploymentReplay: s.deploymentReplay })));
}

/** The run as the switches describe it (or the replay on an operator's deployment, once its view has built it). */
export function useMainRun(): RunState {
  const inputs = useInputs();
  const waiting = useApp((s) => s.deployment !== null && s.deploymentReplay === null);
  const request = useMemo(() => (waiting ? null : runRequestOf(inputs)), [inputs, waiting]);
  return useRunOf(request);
}

/** The comparison run (the same with one switch set to its fix), when a fix is chosen. */
export function useCompareRun(): RunState {
  const inputs = useInputs();
  const compare = useApp((s) => (s.deployment ? null : s.compare));
  const request = useMemo(() => (compare ? runRequestOf({ ...inputs, switches: withFix(inputs.switches, compare) }) : null), [inputs, compare]);
  return useRunOf(request);
}

export function useRequestDetail(run: RunSummary | undefined, req: number | null) {
  return useQuery({
    queryKey: ['detail', run?.runKey, req],
    enabled: !!run && !run.refused && req !== null && req < run.requests.count,
    queryFn: () => run!.detail(req!),
  });
}

/**
 * The outcome matrix, in its own worker, asked for once its section is opened (Controls.tsx) and
 * started only once no run is being computed: its two
 * seconds of simulation never compete with a first picture or a switch for the machine's cores.
 */
export function useMatrix() {
  const runsInFlight = useIsFetching({ queryKey: ['run'] });
  return useQuery({ queryKey: ['matrix'], queryFn: runMatrixInWorker, staleTime: Infinity, enabled: runsInFlight === 0 });
}

/** Any run request through the same worker path (the probe's small custom traces); null: none. */
export function useRunRequest(request: RunRequest | null): RunState {
  return useRunOf(request);
}
