import { QueryClient, QueryObserver } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { forgetHiddenRuns } from './hooks.ts';

const keys = (client: QueryClient) => client.getQueryCache().findAll().map((q) => JSON.stringify(q.queryKey)).sort();

describe('the run cache', () => {
  it('keeps the runs a view observes and the latest hidden one, and drops older hidden runs with their details', () => {
    const client = new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, gcTime: Infinity } } });
    let now = 1_000;
    for (const runKey of ['a', 'b', 'c', 'd']) {
      client.setQueryData(['run', runKey], { runKey }, { updatedAt: now++ });
      client.setQueryData(['detail', runKey, 7], { req: 7 }, { updatedAt: now++ });
    }
    // 'a' (the oldest) is on screen, as the current run or the comparison.
    const shown = new QueryObserver(client, { queryKey: ['run', 'a'], queryFn: () => ({ runKey: 'a' }), staleTime: Infinity });
    const stop = shown.subscribe(() => {});
    forgetHiddenRuns(client);
    expect(keys(client)).toEqual(['["detail","a",7]', '["detail","d",7]', '["run","a"]', '["run","d"]']);
    stop();
    // Once no view shows 'a', it is older than 'd': only 'd' stays.
    forgetHiddenRuns(client);
    expect(keys(client)).toEqual(['["detail","d",7]', '["run","d"]']);
  });
});
