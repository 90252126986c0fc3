/**
 * The event log: every state change the engine makes, in order, with simulated time in ms.
 * Page lists are run-length ranges [first, count] so that a view can rebuild page state from the log.
 * A reservation carries `cleared` only when its pages were zeroed as they were handed out, so logs
 * (and their hashes) of runs without that rule are as they were. Likewise the events and fields of
 * chunked prefill, the retire path, client cancellations and late writes appear only in runs that
 * have them.
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
  /** chunked: the prompt's pages were written chunk by chunk (prefill-chunk events); this one writes none. */
  | { t: number; type: 'prefill-compute'; req: number; node: number; tokens: number; firstToken: number; chunked?: true }
  /** One chunk of chunked prefill: prompt tokens [from, to) computed into the prefill pages. */
  | { t: number; type: 'prefill-chunk'; req: number; node: number; chunk: number; chunks: number; from: number; to: number }
  /** late: decode had already let go of the destination pages (a client cancelled, no fence). */
  | { t: number; type: 'kv-transfer'; req: number; from: number; to: number; srcPages: PageRanges; dstPages: PageRanges; pagesWritten: number; late?: true }
  | { t: number; type: 'prefill-free'; req: number; node: number; pages: PageRanges; cleared: boolean }
  /** Retire without KV send (PR #36988): prefill computed the placeholder and drops the result. */
  | { t: number; type: 'prefill-retire'; req: number; node: number }
  | { t: number; type: 'transfer-done'; req: number; room: number; status: 'Success' | 'Failed' }
  /** The client went away: decode aborts the request; fenced: it keeps its pages until prefill confirms. */
  | { t: number; type: 'client-cancel'; req: number; node: number; stage: 'queued' | 'in-flight' | 'decoding'; fenced: boolean }
  /** Prefill hears of a decode-side abort: it drops the request from its queue, stops, or had finished. */
  | { t: number; type: 'prefill-sees-abort'; req: number; node: number; what: 'dropped' | 'stopped' | 'finished' }
  | { t: number; type: 'decode-check-failed'; req: number; node: number; check: 'transferred-length' | 'per-read-integrity'; reason: string }
  /**
   * stalePages: pages holding an earlier request's KV; zeroPages: never written (or cleared) pages.
   * answerSlots: output tokens whose KV the request's decode steps write in the free slots of its
   * last prompt page, from slot seqLen mod pageSize on (SGLang's `alloc_decode` hands out
   * `last_loc + 1` until the page is full); the rest go to the pages of `decode-grow`.
   */
  | { t: number; type: 'decode-read'; req: number; node: number; seqLen: number; pageCount: number; stalePages: number; zeroPages: number; foreignTenants: string[]; answerSlots: number }
  | { t: number; type: 'response'; req: number; status: 200 | 400 | 499 | 500; leaked: boolean; correct: boolean | null }
  /**
   * A decode step crossed a page boundary of the request's output: it took one more page (SGLang's
   * `alloc_decode`), holding the KV of `tokens` of its generated tokens.
   */
  | { t: number; type: 'decode-grow'; req: number; node: number; page: number; tokens: number; cleared?: true }
  | { t: number; type: 'decode-free'; req: number; node: number; pages: PageRanges; cleared: boolean };

export type EngineEventType = EngineEvent['type'];

export function toRanges(pages: ArrayLike<number>): PageRanges {
  const ranges: PageRanges = [];
  // One range per run of consecutive ids, pushed once complete (block tables run to 16,384 pages).
  for (let i = 0, n = pages.length; i < n; ) {
    const first = pages[i]!;
    let j = i + 1;
    while (j < n && pages[j] === first + (j - i)) j++;
    ranges.push([first, j - i]);
    i = j;
  }
  return ranges;
}

export function* pagesOf(ranges: PageRanges): Generator<number> {
  for (const [first, count] of ranges) for (let p = first; p < first + count; p++) yield p;
}
