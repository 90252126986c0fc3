/** Fetches and validates public/facts.json (relative to the page, so the site works from any sub-path). */
import { FactIndex, parseFactsFile } from './facts.ts';

export const FACTS_URL = 'facts.json';

export async function loadFacts(fetchImpl: typeof fetch = fetch, url: string = FACTS_URL): Promise<FactIndex> {
  const res = await fetchImpl(url);
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  return new FactIndex(parseFactsFile(await res.json()));
}
