/**
 * Where the walkthrough gets the report's quotes and the background sources' addresses: the facts
 * file (public/facts.json) through `useFacts`. Until it has loaded (or if it fails), chapters show
 * fact ids with "quote not loaded", never a retyped quote.
 */
import { useMemo } from 'react';
import type { Background, Fact } from '../../data/facts.ts';
import { useFacts } from '../../data/useFacts.ts';

export interface EvidenceIndex {
  fact(id: string): Fact | undefined;
  background(id: string): Background | undefined;
}

export function useEvidence(): { index: EvidenceIndex | null; error: string | null } {
  const facts = useFacts();
  const index = useMemo<EvidenceIndex | null>(() => {
    const data = facts.data;
    if (!data) return null;
    const background = new Map(data.file.background.map((b) => [b.id, b]));
    return { fact: (id) => data.byId.get(id), background: (id) => background.get(id) };
  }, [facts.data]);
  return { index, error: facts.error?.message ?? null };
}
