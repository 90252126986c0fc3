/**
 * The properties the protocol check proves or breaks (src/engine/protocol/explore.ts), measured on a
 * replayed run, request by request, so that the timeline can draw each as a lane:
 *
 * - `confidentiality` (the protocol's name): a response draws only on KV written for its own request,
 *   or on zeros. Broken by a 200 whose decode read pages holding an earlier request's KV
 *   (`pagesReadStale`); in the engine every decode step attends over the whole block table, so a page
 *   read is a page drawn on.
 * - `integrity` (the protocol's name): a request answered 200 read only pages fully written for it.
 *   Broken also by zero-filled pages: clearing pages on free keeps confidentiality, not integrity.
 * - `admission`: no reservation before admission. A request over the prefill limit gets no decode
 *   pages; the buggy reject path reserves them anyway (the protocol's `retire` and `fixed` paths
 *   reject "before any reservation or transfer"). Not one of the protocol's three verdicts, whose
 *   third, exclusive ownership of a page, the pool's allocator holds by construction in every run.
 *
 * Instants: the decode read for the first two, the request's arrival for the third (the table has
 * no reservation time; reservation follows admission at arrival).
 */
import { FLAG_LEAK_PROVENANCE, FLAG_OVER_LIMIT, type ReadTable, type RequestTable } from '../../../engine/run.ts';

export type InvariantKey = 'confidentiality' | 'integrity' | 'admission';
export const INVARIANTS: readonly InvariantKey[] = ['confidentiality', 'integrity', 'admission'];

export interface InvariantBreach {
  /** Simulated ms. */
  t: number;
  /** Request index. */
  req: number;
  /** The response also leaked by the provenance audit (confidentiality only). */
  leaked: boolean;
}

type Tables = { requests: RequestTable; reads: ReadTable };

/** Every breach of each property in a run, in time order. */
export function invariantBreaches(run: Tables): Record<InvariantKey, InvariantBreach[]> {
  const out: Record<InvariantKey, InvariantBreach[]> = { confidentiality: [], integrity: [], admission: [] };
  const { requests: q, reads } = run;
  for (let r = 0; r < reads.count; r++) {
    const req = reads.req[r]!;
    if (q.status[req] !== 200) continue;
    const leaked = (q.flags[req]! & FLAG_LEAK_PROVENANCE) !== 0;
    if (q.pagesReadStale[req]! > 0) out.confidentiality.push({ t: reads.t[r]!, req, leaked });
    if (reads.stalePages[r]! > 0) out.integrity.push({ t: reads.t[r]!, req, leaked });
  }
  for (let i = 0; i < q.count; i++) {
    if ((q.flags[i]! & FLAG_OVER_LIMIT) !== 0 && q.pagesReserved[i]! > 0) out.admission.push({ t: q.arrivedAt[i]!, req: i, leaked: false });
  }
  for (const k of INVARIANTS) out[k].sort((a, b) => a.t - b.t || a.req - b.req);
  return out;
}
