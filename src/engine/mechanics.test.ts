/**
 * Invariants of the upstream mechanics the registry switches on (retire without KV send, chunked
 * prefill, the fence on late writes, the tokenizer's rule), over random workloads.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { pagesFor, tokenizerRefusal, type EngineConfig } from './config.ts';
import { pagesOf, type EngineEvent } from './events.ts';
import { ABORT_RACE_TIMING } from './scenarios.ts';
import { Simulation } from './simulation.ts';
import type { Trace, TraceRequest } from './trace.ts';
import { TENANT_NAMES } from './core/vocab.ts';
import { OVER, SMALL, small } from './smallDeployment.ts';


/** Warm tenants fill the pools, then a fresh tenant sends prompts, some longer than the prefill cache. */
const workloadArb = fc
  .record({
    warmSizes: fc.array(fc.integer({ min: 100, max: 1800 }), { minLength: 4, maxLength: 10 }),
    requests: fc.array(fc.record({ gap: fc.integer({ min: 0, max: 3000 }), tokens: fc.oneof(fc.integer({ min: 1, max: OVER }), fc.integer({ min: OVER + 1, max: 4096 })) }), { minLength: 1, maxLength: 6 }),
    seed: fc.string({ maxLength: 6 }),
  })
  .map(({ warmSizes, requests, seed }) => {
    const [w1, w2, requester] = TENANT_NAMES;
    const list: TraceRequest[] = warmSizes.map((n, i) => ({ id: `warm-${i}`, at: i * 5, tenant: i % 2 ? w1! : w2!, promptTokens: n }));
    let at = 600_000;
    requests.forEach((r, i) => {
      at += r.gap;
      list.push({ id: `req-${i}`, at, tenant: requester!, promptTokens: r.tokens });
    });
    const trace: Trace = { version: 1, tenants: [w1!, w2!, requester!].map((name) => ({ name })), requests: list };
    return { trace, seed };
  });

/** Tracks who holds each page from the log, failing on a double grant or a free by a non-holder. */
function pageLedger() {
  const owner = new Map<string, number>();
  const key = (kind: string, node: number, p: number) => `${kind}${node}:${p}`;
  return {
    owner,
    ownerOf: (node: number, p: number) => owner.get(key('d', node, p)),
    apply(e: EngineEvent) {
      if (e.type === 'decode-grow') {
        // A decode step took one more page for the request's output.
        expect(owner.has(key('d', e.node, e.page)), `decode-grow of d${e.node}:${e.page} to ${e.req}`).toBe(false);
        owner.set(key('d', e.node, e.page), e.req);
      }
      if (e.type === 'decode-reserve' || e.type === 'prefill-alloc') {
        const kind = e.type === 'decode-reserve' ? 'd' : 'p';
        for (const p of pagesOf(e.pages)) {
          expect(owner.has(key(kind, e.node, p)), `${e.type} of ${kind}${e.node}:${p} to ${e.req}`).toBe(false);
          owner.set(key(kind, e.node, p), e.req);
        }
      }
      if (e.type === 'decode-free' || e.type === 'prefill-free') {
        const kind = e.type === 'decode-free' ? 'd' : 'p';
        for (const p of pagesOf(e.pages)) {
          expect(owner.get(key(kind, e.node, p)), `${e.type} of ${kind}${e.node}:${p} by ${e.req}`).toBe(e.req);
          owner.delete(key(kind, e.node, p));
        }
      }
    },
  };
}

function runLogged(config: EngineConfig, trace: Trace, onEvent?: (e: EngineEvent) => void) {
  const events: EngineEvent[] = [];
  const sim = new Simulation(config, trace, {
    keepEvents: false,
    onEvent: (e) => {
      events.push(e);
      onEvent?.(e);
    },
  }).run();
  return { sim, events };
}

function expectOneResponseEach(sim: Simulation, trace: Trace): void {
  expect(sim.responses.length).toBe(trace.requests.length);
  expect(new Set(sim.responses.map((r) => r.request)).size).toBe(trace.requests.length);
}

describe('retire without KV send', () => {
  it('reserves and frees pages consistently, sends no page of an aborted request, and answers every request once', () => {
    fc.assert(
      fc.property(workloadArb, fc.boolean(), ({ trace, seed }, clear) => {
        const ledger = pageLedger();
        const { sim, events } = runLogged(small({ seed, mitigations: { retireWithoutSend: true, clearPagesOnFree: clear } }), trace, (e) => ledger.apply(e));
        expect(ledger.owner.size).toBe(0);
        expectOneResponseEach(sim, trace);
        for (const r of sim.responses) {
          const mine = events.filter((e) => 'req' in e && e.req === r.request);
          const aborted = r.promptTokens > OVER && r.promptTokens <= SMALL.advertisedContextTokens;
          if (!aborted) {
            expect(mine.some((e) => e.type === 'prefill-retire'), r.id).toBe(false);
            continue;
          }
          expect(r.status, r.id).toBe(500);
          expect(r.leakedFrom, r.id).toEqual([]);
          expect(mine.some((e) => e.type === 'kv-transfer' || e.type === 'decode-read'), r.id).toBe(false);
          expect(mine.filter((e) => e.type === 'prefill-retire').length, r.id).toBe(1);
          expect(mine.find((e) => e.type === 'transfer-done'), r.id).toMatchObject({ status: 'Failed' });
          // Decode gives back exactly what it reserved for the whole prompt.
          const reserved = mine.find((e) => e.type === 'decode-reserve');
          const freed = mine.find((e) => e.type === 'decode-free');
          expect(reserved && freed, r.id).toBeTruthy();
          if (reserved?.type === 'decode-reserve' && freed?.type === 'decode-free') {
            // It never decoded: no decode step took a page.
            expect([...pagesOf(freed.pages)]).toEqual([...pagesOf(reserved.pages)]);
            expect(reserved.pageCount).toBe(pagesFor(r.promptTokens, SMALL.pageSize));
          }
        }
        // No response anywhere draws on another tenant's KV.
        expect(sim.responses.filter((r) => r.leakedFrom.length > 0)).toEqual([]);
      }),
      { numRuns: 30 },
    );
  });
});

describe('chunked prefill', () => {
  it("writes exactly the prompt's pages, in chunk-sized steps of whole pages, and never chunks the placeholder", () => {
    fc.assert(
      fc.property(workloadArb, fc.integer({ min: 1, max: 1500 }), fc.constantFrom<'buggy' | 'fixed'>('buggy', 'fixed'), ({ trace, seed }, chunk, rejectPath) => {
        const ledger = pageLedger();
        const { sim, events } = runLogged(small({ seed, rejectPath, prefillChunkTokens: chunk }), trace, (e) => ledger.apply(e));
        expect(ledger.owner.size).toBe(0);
        expectOneResponseEach(sim, trace);
        const page = SMALL.pageSize;
        for (const r of sim.responses) {
          const mine = events.filter((e) => 'req' in e && e.req === r.request);
          const chunks = mine.filter((e) => e.type === 'prefill-chunk');
          const alloc = mine.find((e) => e.type === 'prefill-alloc');
          if (!alloc || alloc.type !== 'prefill-alloc') continue; // refused before prefill
          if (alloc.computeTokens <= chunk) {
            // One step: the placeholder (1 token) always, and prompts that fit one chunk.
            expect(chunks, r.id).toEqual([]);
            continue;
          }
          const n = Math.ceil(r.promptTokens / chunk);
          expect(chunks.map((e) => (e.type === 'prefill-chunk' ? [e.chunk, e.chunks, e.from, e.to] : [])), r.id).toEqual(
            Array.from({ length: n }, (_, i) => [i + 1, n, i * chunk, Math.min((i + 1) * chunk, r.promptTokens)]),
          );
          // The transfers, in order, cover the prefill pages and the reserved destinations once each.
          const sends = mine.filter((e) => e.type === 'kv-transfer');
          const src = sends.flatMap((e) => (e.type === 'kv-transfer' ? [...pagesOf(e.srcPages)] : []));
          const dst = sends.flatMap((e) => (e.type === 'kv-transfer' ? [...pagesOf(e.dstPages)] : []));
          const reserve = mine.find((e) => e.type === 'decode-reserve');
          expect(src, r.id).toEqual([...pagesOf(alloc.pages)]);
          if (reserve?.type === 'decode-reserve') expect(dst, r.id).toEqual([...pagesOf(reserve.pages)]);
          // Every transfer before the last ends at a chunk's end rounded down to a whole page.
          const boundaries = new Set(chunks.map((e) => (e.type === 'prefill-chunk' ? Math.floor(e.to / page) : -1)));
          let sent = 0;
          for (const e of sends.slice(0, -1)) {
            if (e.type !== 'kv-transfer') continue;
            sent += e.pagesWritten;
            expect(boundaries.has(sent), `${r.id}: a transfer ends at page ${sent}`).toBe(true);
          }
        }
        if (rejectPath === 'fixed') {
          // Chunking changes when pages are written, not what they hold: every answer is the unchunked one.
          const whole = new Simulation(small({ seed, rejectPath }), trace, { keepEvents: false }).run();
          // Request by request: chunking can change the order in which answers go out, not what they say.
          const byId = (list: typeof sim.responses) => list.map((r) => [r.id, r.status, r.text] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
          expect(byId(sim.responses)).toEqual(byId(whole.responses));
        }
      }),
      { numRuns: 30 },
    );
  });
});

/**
 * Random abort races on the fixed reject path: clients cancel long prompts around their transfer,
 * and other tenants' short prompts arrive just after, to take the freed pages.
 */
const raceArb = fc
  .record({
    rounds: fc.array(
      fc.record({
        tokens: fc.integer({ min: 100, max: 2000 }),
        cancelAfter: fc.integer({ min: 0, max: 120 }),
        nextAfter: fc.integer({ min: 0, max: 60 }),
        nextTokens: fc.integer({ min: 1, max: 300 }),
      }),
      { minLength: 1, maxLength: 4 },
    ),
    seed: fc.string({ maxLength: 6 }),
    // One decode node: the next request can take the pages the cancelled one freed; two: the other node's.
    decodeNodes: fc.constantFrom(1, 1, 2),
  })
  .map(({ rounds, seed, decodeNodes }) => {
    const [a, b] = TENANT_NAMES;
    const requests: TraceRequest[] = [];
    rounds.forEach((r, i) => {
      const at = i * 2_000;
      requests.push({ id: `cancelled-${i}`, at, tenant: a!, promptTokens: r.tokens, cancelAt: at + r.cancelAfter });
      requests.push({ id: `next-${i}`, at: at + r.cancelAfter + r.nextAfter, tenant: b!, promptTokens: r.nextTokens });
    });
    const trace: Trace = { version: 1, tenants: [{ name: a! }, { name: b! }], requests };
    return { trace, seed, decodeNodes };
  });

type Race = typeof raceArb extends fc.Arbitrary<infer R> ? R : never;

/**
 * Runs one race with the fence on or off, checking what holds either way (the log's late marks, every
 * page returned, one response each, 499 only for the cancelled), and returns the writes that landed in
 * a page decode held for another request.
 */
function writesIntoOthers({ trace, seed, decodeNodes }: Race, fence: boolean): string[] {
  const ledger = pageLedger();
  const foreignWrites: string[] = [];
  // A decode pool the longest prompt nearly fills: SGLang's free list then runs short at the next
  // request and merges, handing it the pages the cancelled one freed (a roomy pool gives it fresh ones).
  const longest = Math.max(...trace.requests.map((r) => r.promptTokens));
  const decodeCapacityTokens = Math.max(Math.ceil(longest / 16) * 16 + 32, 400);
  const config = small({ seed, decodeNodes, decodeCapacityTokens, rejectPath: 'fixed', timing: ABORT_RACE_TIMING, mitigations: { fenceLateWrites: fence } });
  const { sim } = runLogged(config, trace, (e) => {
    if (e.type === 'kv-transfer') {
      const holders = [...pagesOf(e.dstPages)].map((p) => ledger.ownerOf(e.to, p));
      // The log marks a write late exactly when decode no longer holds its pages for the request.
      expect(e.late === true, `late mark of request ${e.req}`).toBe(holders.some((h) => h !== e.req));
      if (holders.some((h) => h !== undefined && h !== e.req)) foreignWrites.push(`request ${e.req} into d${e.to}`);
    }
    ledger.apply(e);
  });
  expect(ledger.owner.size).toBe(0);
  expectOneResponseEach(sim, trace);
  for (const r of sim.responses) {
    if (r.status === 499) expect(trace.requests[r.request]!.cancelAt, r.id).toBeDefined();
  }
  if (fence) expect(sim.responses.filter((r) => r.leakedFrom.length > 0)).toEqual([]);
  return foreignWrites;
}

describe('the abort race and the fence on late writes', () => {
  it('with the fence, no KV write ever lands in a page decode holds for another request', () => {
    fc.assert(
      fc.property(raceArb, (race) => {
        expect(writesIntoOthers(race, true)).toEqual([]);
        writesIntoOthers(race, false);
      }),
      { numRuns: 40 },
    );
  });

  it('without it, some do: the same kind of races, a fixed sample of them (so that this never depends on the draw)', () => {
    const landed = fc.sample(raceArb, { seed: 20260827, numRuns: 40 }).reduce((n, race) => n + writesIntoOthers(race, false).length, 0);
    expect(landed).toBeGreaterThan(0);
  });
});

describe("the tokenizer's rule", () => {
  it('report refuses prompts over the context; sglang also refuses one at it, or whose declared output takes it to it (SGLang’s `>=`); the run agrees', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ tokens: fc.integer({ min: 1, max: 4200 }), output: fc.integer({ min: 1, max: 64 }) }), { minLength: 1, maxLength: 5 }),
        fc.constantFrom<'report' | 'sglang'>('report', 'sglang'),
        (reqs, tokenizerRule) => {
          // Around the context: exactly at it, just under, just over.
          const ctx = SMALL.advertisedContextTokens;
          const list = [...reqs, { tokens: ctx, output: 1 }, { tokens: ctx - 1, output: 1 }, { tokens: ctx - 1, output: 2 }, { tokens: ctx + 1, output: 1 }];
          const config = small({ tokenizerRule, rejectPath: 'fixed' });
          for (const { tokens, output } of list) {
            const refused = tokenizerRefusal(config, tokens, output) !== null;
            const expected = tokenizerRule === 'report' ? tokens > ctx : tokens >= ctx || tokens + output >= ctx;
            expect(refused, `${tokens}+${output} under ${tokenizerRule}`).toBe(expected);
            // Upstream's rule refuses everything the report's does.
            if (tokenizerRefusal(small({ tokenizerRule: 'report' }), tokens, output) !== null) expect(tokenizerRefusal(small({ tokenizerRule: 'sglang' }), tokens, output)).not.toBeNull();
          }
          const trace: Trace = {
            version: 1,
            tenants: [{ name: TENANT_NAMES[0]! }],
            requests: list.map((r, i) => ({ id: `r${i}`, at: i * 10_000, tenant: TENANT_NAMES[0]!, promptTokens: r.tokens, outputTokens: r.output })),
          };
          const sim = new Simulation(config, trace, { keepEvents: false }).run();
          for (const r of sim.responses) {
            const why = tokenizerRefusal(config, list[r.request]!.tokens, list[r.request]!.output);
            expect(r.rejectedBy === 'tokenizer', r.id).toBe(why !== null);
            if (why !== null) expect([r.status, r.reason]).toEqual([400, why]);
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
