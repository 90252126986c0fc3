/**
 * The event log: every state change the engine makes, in order, with simulated time in ms.
 * Page lists are run-length ranges [first, count] so that a view can rebuild page state from the log.
 * A reservation carries `cleared` only when its pages were zeroed as they were handed out, so logs
 * (and their hashes) of runs without that rule are as they were.
 */

export type PageRanges = [first: number, count: number][];

export type EngineEvent =
  | { t: number; type: 'arrive'; req: number; tenant: string; tokens: number }
  | { t: number; type: 'reject'; req: number; status: 400; stage: 'tokenizer' | 'admission' | 'decode-admission'; reason: string }
  | { t: number; type: 'abort-marked'; req: number; placeholderTokens: 1; pendingStatus: 400 }
  | { t: number; type: 'route'; req: number; prefill: number; decode: number; room: number }
  | { t: number; type: 'decode-wait'; req: number; node: number; needPages: number; freePages: number }
  | { t: number; type: 'decode-reserve'; req: number; node: number; pages: PageRanges; pageCount: number; cleared?: true }
  | { t: number; type: 'prefill-wait'; req: number; node: number; needPages: number; freePages: number }
  | { t: number; type: 'prefill-alloc'; req: number; node: number; pages: PageRanges; computeTokens: number; cleared?: true }
  | { t: number; type: 'prefill-compute'; req: number; node: number; tokens: number; firstToken: number }
  | { t: number; type: 'kv-transfer'; req: number; from: number; to: number; srcPages: PageRanges; dstPages: PageRanges; pagesWritten: number }
  | { t: number; type: 'prefill-free'; req: number; node: number; pages: PageRanges; cleared: boolean }
  | { t: number; type: 'transfer-done'; req: number; room: number; status: 'Success' }
  | { t: number; type: 'decode-check-failed'; req: number; node: number; check: 'transferred-length' | 'per-read-integrity'; reason: string }
  /** stalePages: pages holding an earlier request's KV; zeroPages: never written (or cleared) pages. */
  | { t: number; type: 'decode-read'; req: number; node: number; seqLen: number; pageCount: number; stalePages: number; zeroPages: number; foreignTenants: string[] }
  | { t: number; type: 'response'; req: number; status: 200 | 400 | 500; leaked: boolean; correct: boolean | null }
  | { t: number; type: 'decode-free'; req: number; node: number; pages: PageRanges; cleared: boolean };

export type EngineEventType = EngineEvent['type'];

export function toRanges(pages: ArrayLike<number>): PageRanges {
  const ranges: PageRanges = [];
  for (let i = 0; i < pages.length; i++) {
    const p = pages[i]!;
    const last = ranges[ranges.length - 1];
    if (last && last[0] + last[1] === p) last[1]++;
    else ranges.push([p, 1]);
  }
  return ranges;
}

export function* pagesOf(ranges: PageRanges): Generator<number> {
  for (const [first, count] of ranges) for (let p = first; p < first + count; p++) yield p;
}
