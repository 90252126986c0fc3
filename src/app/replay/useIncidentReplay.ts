/**
 * The incident replay as a react-query query: one worker per traffic setting, cached by it, with
 * progress kept beside the query (a query has no progress of its own).
 */
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import type { TrafficOptions } from '../../engine/incident/index.ts';
import { startReplay, type LoadedReplay, type ReplayProgressInfo } from './replayClient.ts';

export function useIncidentReplay(traffic: Partial<TrafficOptions> = {}) {
  const [progress, setProgress] = useState<ReplayProgressInfo | null>(null);
  const query = useQuery<LoadedReplay, Error>({
    queryKey: ['incident-replay', traffic],
    queryFn: ({ signal }) => {
      setProgress({ fraction: 0, simulatedT: 0, phase: 'incident' });
      const job = startReplay(traffic, setProgress);
      signal.addEventListener('abort', () => job.cancel());
      return job.promise;
    },
    staleTime: Infinity,
    gcTime: 5 * 60_000,
    retry: false,
  });
  return { ...query, progress };
}
