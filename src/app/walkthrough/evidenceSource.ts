/**
 * Where the walkthrough gets the report's quotes and the background sources' addresses.
 * The facts file (public/facts.json) is not on this branch yet: until it lands, nothing is known and
 * the chapters show fact ids with "quote not loaded", never a retyped quote.
 */
export interface QuotedFact {
  id: string;
  quote: string;
}

export interface BackgroundSource {
  id: string;
  url: string;
  en: string;
  fr: string;
}

export interface EvidenceIndex {
  fact(id: string): QuotedFact | undefined;
  background(id: string): BackgroundSource | undefined;
}

export function useEvidence(): { index: EvidenceIndex | null; error: string | null } {
  return { index: null, error: null };
}
