/** The facts, loaded once per page through react-query; a view renders loading and error states from it. */
import { useQuery } from '@tanstack/react-query';
import type { FactIndex } from './facts.ts';
import { loadFacts } from './loadFacts.ts';

export const FACTS_QUERY_KEY = ['facts'] as const;

export function useFacts() {
  return useQuery<FactIndex, Error>({ queryKey: FACTS_QUERY_KEY, queryFn: () => loadFacts(), staleTime: Infinity, gcTime: Infinity });
}
