import fc from 'fast-check';
import { generateNaive, type KvContext } from './attention.ts';
import { describe, expect, it } from 'vitest';
import { INCIDENT_CONFIG, withOverrides, type ConfigOverrides, type EngineConfig } from './config.ts';
import { pagesOf, type EngineEvent } from './events.ts';
import { demoTrace } from './scenarios.ts';
import { Simulation, UnansweredRequests, answeredFromForeignMemory, simulate } from './simulation.ts';
import type { Trace, TraceRequest } from './trace.ts';
import { TENANT_NAMES, TOKEN_PLACEHOLDER } from './core/vocab.ts';
import { RESERVED_PAGE } from './kvPool.ts';
import { OVER, SMALL, small } from './smallDeployment.ts';
import { countRequests, runScenario, singlePhaseSpec } from './run.ts';


/**
 * Random workloads: `warm` tenants fill the decode pools with concurrent prompts, then a different
 * tenant (the requester, who sent nothing before) sends prompts, some longer than the prefill cache.
 */
const workloadArb = fc
  .record({
    warmTenants: fc.integer({ min: 1, max: 3 }),
    warmSizes: fc.array(fc.integer({ min: 600, max: 1800 }), { minLength: 8, maxLength: 12 }),
    requests: fc.array(fc.record({ gap: fc.integer({ min: 0, max: 3000 }), tokens: fc.oneof(fc.integer({ min: 20, max: OVER }), fc.integer({ min: OVER + 1, max: 4096 })) }), { minLength: 1, maxLength: 6 }),
    seed: fc.string({ maxLength: 6 }),
  })
  .map(({ warmTenants, warmSizes, requests, seed }) => {
    const tenants = TENANT_NAMES.slice(0, warmTenants + 1);
    const requester = tenants[warmTenants]!;
    const list: TraceRequest[] = warmSizes.map((n, i) => ({ id: `warm-${i}`, at: 0, tenant: tenants[i % warmTenants]!, promptTokens: n }));
    let at = 600_000;
    requests.forEach((r, i) => {
      at += r.gap;
      list.push({ id: `req-${i}`, at, tenant: requester, promptTokens: r.tokens });
    });
    const trace: Trace = { version: 1, tenants: tenants.map((name) => ({ name })), requests: list };
    return { trace, requester, seed };
  });

describe('simulation: invariants over random workloads', () => {
  it('conserves pages and never gives one page to two live requests', () => {
    fc.assert(
      fc.property(workloadArb, fc.boolean(), ({ trace, seed }, clear) => {
        const owner = new Map<string, number>();
        const check = (e: EngineEvent) => {
          if (e.type === 'decode-grow') {
            expect(owner.has(`d${e.node}:${e.page}`)).toBe(false);
            owner.set(`d${e.node}:${e.page}`, e.req);
          }
          if (e.type === 'decode-reserve' || e.type === 'prefill-alloc') {
            const kind = e.type === 'decode-reserve' ? 'd' : 'p';
            for (const p of pagesOf(e.pages)) {
              const key = `${kind}${e.node}:${p}`;
              expect(owner.has(key)).toBe(false);
              owner.set(key, e.req);
            }
          }
          if (e.type === 'decode-free' || e.type === 'prefill-free') {
            const kind = e.type === 'decode-free' ? 'd' : 'p';
            for (const p of pagesOf(e.pages)) {
              const key = `${kind}${e.node}:${p}`;
              expect(owner.get(key)).toBe(e.req);
              owner.delete(key);
            }
          }
        };
        const sim = new Simulation(small({ seed, mitigations: { clearPagesOnFree: clear } }), trace, { onEvent: check, keepEvents: false });
        while (sim.step()) {
          for (const pool of [...sim.prefillPools, ...sim.decodePools]) {
            let owned = 0;
            for (let p = 0; p < pool.pageCount; p++) if (pool.pageOwner[p] !== -1) owned++;
            expect(owned + pool.freePages).toBe(pool.usablePages);
            expect(pool.pageOwner[RESERVED_PAGE]).toBe(-1); // page 0 is never handed out
          }
        }
        expect(owner.size).toBe(0); // everything reserved was freed by the end
      }),
      { numRuns: 25 },
    );
  });

  it('with the fixed reject path, or prefill capacity ≥ advertised, no response draws on another tenant', () => {
    fc.assert(
      fc.property(workloadArb, fc.constantFrom<ConfigOverrides>({ rejectPath: 'fixed' }, { prefillCapacityTokens: 4096 }), ({ trace, seed }, fix) => {
        const sim = simulate(small({ seed, ...fix }), trace, { keepEvents: false });
        for (const r of sim.responses) {
          expect(r.leakedFrom).toEqual([]);
          expect(r.canaryHits).toEqual([]);
          if (r.status === 200) expect(r.correct).toBe(true);
        }
      }),
      { numRuns: 25 },
    );
  });

  it('with both defects on a warm pool, every over-capacity request is answered 200 from other tenants\' KV', () => {
    // Warm = what the long prompts read was written by others: the requester sends only long prompts
    // here (its own earlier short prompts would otherwise be the stale content it reads).
    const warmArb = workloadArb.filter(({ trace, requester }) => {
      const warmTokens = trace.requests.filter((r) => r.tenant !== requester).reduce((a, r) => a + r.promptTokens, 0);
      return warmTokens >= 11_000 && trace.requests.every((r) => r.tenant !== requester || r.promptTokens > OVER);
    });
    fc.assert(
      fc.property(warmArb, ({ trace, seed }) => {
        const sim = simulate(small({ seed }), trace, { keepEvents: false });
        const over = sim.responses.filter((r) => r.promptTokens > OVER);
        for (const r of over) {
          expect(r.status).toBe(200);
          expect(r.computedTokens).toBe(1);
          expect(r.leakedFrom.length).toBeGreaterThan(0);
          expect(r.correct).toBe(false);
        }
        // Ordinary requests are untouched by the bug.
        for (const r of sim.responses.filter((x) => x.promptTokens <= OVER)) expect(r.leakedFrom).toEqual([]);
      }),
      { numRuns: 25 },
    );
  });

  it('clearing pages on free removes all foreign content from every response', () => {
    fc.assert(
      fc.property(workloadArb, ({ trace, seed }) => {
        const sim = simulate(small({ seed, mitigations: { clearPagesOnFree: true } }), trace, { keepEvents: false });
        for (const r of sim.responses) {
          expect(r.leakedFrom).toEqual([]);
          expect(r.canaryHits).toEqual([]);
          for (const p of r.provenance) expect(p.foreignShare).toBe(0);
        }
      }),
      { numRuns: 25 },
    );
  });
});

describe('simulation: two counts, the integrity breach and the wrong text', () => {
  it('counts every request answered from memory it did not write, apart from the wrong texts', () => {
    fc.assert(
      fc.property(workloadArb, fc.boolean(), ({ trace, seed }, clear) => {
        const sim = simulate(small({ seed, mitigations: { clearPagesOnFree: clear } }), trace, { keepEvents: false });
        const c = sim.counters();
        const breached = sim.responses.filter(answeredFromForeignMemory);
        expect(c.integrityBreaches).toBe(breached.length);
        expect(c.wrongOutputs).toBe(sim.responses.filter((r) => r.status === 200 && r.correct === false).length);
        // A wrong text or a leak needs memory the request did not write; the reverse need not hold.
        for (const r of sim.responses) {
          if (r.status === 200 && (r.correct === false || r.leakedFrom.length > 0)) expect(answeredFromForeignMemory(r), r.id).toBe(true);
          if (answeredFromForeignMemory(r)) expect(r.pagesReadStale + r.pagesReadZero).toBeGreaterThan(0);
        }
        // On the buggy path every over-long prompt answered 200 is a breach, whatever its words.
        for (const r of sim.responses) if (r.status === 200 && r.promptTokens > OVER) expect(answeredFromForeignMemory(r), r.id).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it("counts an over-long request that re-reads only its own tenant's leftovers as a breach, not a leak", () => {
    const tenant = TENANT_NAMES[0]!;
    const requests: TraceRequest[] = [
      ...Array.from({ length: 10 }, (_, i) => ({ id: `own-${i}`, at: 0, tenant, promptTokens: 1500 })),
      { id: 'long', at: 600_000, tenant, promptTokens: OVER + 500 },
    ];
    const sim = simulate(small(), { version: 1, tenants: [{ name: tenant }], requests }, { keepEvents: false });
    const long = sim.responses.find((r) => r.id === 'long')!;
    expect(long.status).toBe(200);
    expect(long.leakedFrom).toEqual([]);
    expect(long.pagesReadStale).toBeGreaterThan(0);
    expect(answeredFromForeignMemory(long)).toBe(true);
    expect(sim.counters().leaked).toBe(0);
    expect(sim.counters().integrityBreaches).toBe(1);
  });
});

describe('simulation: the leak comes from memory, not from a rule', () => {
  /** One earlier tenant, whose text we control, warms decode; then an over-long prompt arrives. */
  function secretTrace(secret: string, earlier = 8): Trace {
    return {
      version: 1,
      tenants: [{ name: 'acme', text: `the vault code is ${secret} and the door opens at noon .` }, { name: 'borealis', canary: false }],
      requests: [
        // Eight or more: the long request then finds decode's free list short, so SGLang's list merges and hands it their pages.
        ...Array.from({ length: earlier }, (_, i) => ({ id: `acme-${i}`, at: 0, tenant: 'acme', promptTokens: 900 })),
        { id: 'long', at: 600_000, tenant: 'borealis', promptTokens: 3000 },
      ],
    };
  }
  const longOf = (sim: Simulation) => sim.responses.find((r) => r.id === 'long')!;

  it("changing what an earlier tenant sent changes the leaked text with it", () => {
    const walrus = longOf(simulate(small(), secretTrace('walrus')));
    const narwhal = longOf(simulate(small(), secretTrace('narwhal')));
    expect(walrus.leakedFrom).toEqual(['acme']);
    expect(walrus.text).toContain('walrus');
    expect(walrus.text).not.toContain('narwhal');
    expect(narwhal.text).toContain('narwhal');
    expect(narwhal.text).not.toContain('walrus');
    // Nothing but the secret differs.
    expect(narwhal.text.replaceAll('narwhal', 'walrus')).toBe(walrus.text);
  });

  it('zeroing every pool by hand before the long request removes the leak', () => {
    const sim = new Simulation(small(), secretTrace('walrus'));
    sim.runUntil(599_999);
    for (const pool of [...sim.decodePools, ...sim.prefillPools]) {
      pool.keyTokens.fill(0);
      pool.valueTokens.fill(0);
      pool.slotWriter.fill(-1);
    }
    sim.run();
    const r = longOf(sim);
    expect(r.status).toBe(200);
    expect(r.leakedFrom).toEqual([]);
    expect(r.text).not.toContain('walrus');
  });

  it('zeroing only decode leaves the placeholder page: its stale prefill slots still leak', () => {
    // Thirteen: prefill's free list merged just before the placeholder, so its page is one acme used
    // (with most counts SGLang's list hands it a page never written, and there is nothing to carry).
    const sim = new Simulation(small(), secretTrace('walrus', 13));
    sim.runUntil(599_999);
    for (const pool of sim.decodePools) {
      pool.keyTokens.fill(0);
      pool.valueTokens.fill(0);
      pool.slotWriter.fill(-1);
    }
    sim.run();
    const r = longOf(sim);
    const reserve = sim.events.find((e) => e.type === 'decode-reserve' && e.req === r.request)!;
    const placeholderPage = reserve.type === 'decode-reserve' ? reserve.pages[0]![0] : -1;
    expect(r.leakedFrom).toEqual(['acme']);
    // Every foreign token drew on the one page prefill copied over: page-granular RDMA moved the
    // placeholder plus the rest of a prefill page that acme had used.
    for (const p of r.provenance) if (p.writerTenant === 'acme') expect(p.page).toBe(placeholderPage);
  });

  it('without earlier tenants there is nothing to leak: a cold pool gives garbage, not text', () => {
    const trace: Trace = { version: 1, tenants: [{ name: 'borealis' }], requests: [{ id: 'long', at: 0, tenant: 'borealis', promptTokens: 3000 }] };
    const r = longOf(simulate(small(), trace));
    expect(r.status).toBe(200);
    expect(r.leakedFrom).toEqual([]);
    expect(r.correct).toBe(false);
    // Never-written pages are zeros, counted apart from pages holding someone's leftovers.
    expect(r.pagesReserved).toBe(Math.ceil(3000 / 16));
    expect(r.pagesWritten).toBe(1);
    expect(r.pagesReadStale).toBe(0);
    expect(r.pagesReadZero).toBe(r.pagesReserved - 1);
  });

  it('a warm pool is read as stale pages, and the rest as zero pages', () => {
    const sim = simulate(small(), secretTrace('walrus'));
    const r = longOf(sim);
    const read = sim.events.find((e) => e.type === 'decode-read' && e.req === r.request)!;
    expect(r.pagesReadStale).toBeGreaterThan(0);
    expect(r.pagesReadStale + r.pagesReadZero + r.pagesWritten).toBe(r.pagesReserved);
    expect(read).toMatchObject({ stalePages: r.pagesReadStale, zeroPages: r.pagesReadZero });
    const c = sim.counters();
    expect(c.pagesReadStale).toBe(sim.responses.reduce((n, x) => n + x.pagesReadStale, 0));
    expect(c.pagesReadZero).toBe(r.pagesReadZero); // the ordinary requests read only their own pages
  });
});

describe('simulation: decode attends over its whole block table, from the first token on', () => {
  /** Runs `trace`, copying the slots of `id`'s block table just before its decode finishes (what it read). */
  function readContext(config: EngineConfig, trace: Trace, id: string) {
    const index = trace.requests.findIndex((r) => r.id === id);
    let ctx: KvContext | null = null;
    let pages: number[] = [];
    let node = -1;
    const sim = new Simulation(config, trace, {
      onEvent: (e) => {
        if (e.type === 'decode-reserve' && e.req === index) {
          pages = [...pagesOf(e.pages)];
          node = e.node;
        }
      },
      beforeStep: (s, next) => {
        if (next.kind !== 'decode-done' || next.req !== index) return;
        // The pages are this request's until decode-done: their slots are what decode read.
        const pool = s.decodePools[node]!;
        const copy = (a: Uint16Array | Int32Array) => a.slice();
        ctx = { keyTokens: copy(pool.keyTokens) as Uint16Array, valueTokens: copy(pool.valueTokens) as Uint16Array, slotWriter: copy(pool.slotWriter) as Int32Array, pageSize: pool.pageSize, blockTable: pages, seqLen: trace.requests[index]!.promptTokens };
      },
    }).run();
    return { sim, ctx: ctx!, node, response: sim.responses.find((r) => r.id === id)! };
  }

  it("an aborted request's every token, the first included, is the per-slot reference decode over its block table, the placeholder as query", () => {
    for (const secret of ['walrus', 'narwhal', 'orca']) {
      const trace: Trace = {
        version: 1,
        tenants: [{ name: 'acme', text: `vault code ${secret} opens door at noon .` }, { name: 'borealis', topic: 'clinic' }, { name: 'cobalt', canary: false }],
        requests: [
          ...Array.from({ length: 6 }, (_, i) => ({ id: `w-${i}`, at: 0, tenant: i % 2 ? 'acme' : 'borealis', promptTokens: 700 + 90 * i })),
          { id: 'long', at: 600_000, tenant: 'cobalt', promptTokens: 3000 },
        ],
      };
      const { sim, ctx, node, response } = readContext(small(), trace, 'long');
      expect(response.computedTokens).toBe(1);
      const reference = generateNaive(sim.model, ctx, { requestTenant: sim.requestTenant, tenant: 2 }, { query: TOKEN_PLACEHOLDER, steps: response.tokens.length });
      expect(response.tokens).toEqual(reference.map((t) => t.token));
      expect(response.provenance.map((p) => [p.node, p.page, p.writerRequest])).toEqual(reference.map((t) => [`decode-${node}`, t.page, t.writer]));
      // The first token came from memory: it drew on a stale slot another tenant wrote.
      expect(response.provenance[0]!.writerTenant).not.toBeNull();
      expect(response.provenance[0]!.writerTenant).not.toBe('cobalt');
    }
  });

  it('the first word is whatever memory holds, not a fixed default', () => {
    const firstWord = (text: string) => {
      const trace: Trace = {
        version: 1,
        tenants: [{ name: 'acme', text }, { name: 'borealis', canary: false }],
        requests: [...Array.from({ length: 8 }, (_, i) => ({ id: `a-${i}`, at: 0, tenant: 'acme', promptTokens: 900 })), { id: 'long', at: 600_000, tenant: 'borealis', promptTokens: 3000 }],
      };
      const r = simulate(small(), trace, { keepEvents: false }).responses.find((x) => x.id === 'long')!;
      expect(r.leakedFrom).toEqual(['acme']);
      return r.text.split(' ')[0]!;
    };
    const a = firstWord('alice paid invoice 12 on monday .');
    const b = firstWord('bruno booked flight to lisbon friday .');
    expect('alice paid invoice 12 on monday .').toContain(a.replace(/[.,:]$/, ''));
    expect('bruno booked flight to lisbon friday .').toContain(b.replace(/[.,:]$/, ''));
    expect(a).not.toBe(b);
  });

  it("an ordinary request's answer starts with the token prefill computed, over the same KV", () => {
    fc.assert(
      fc.property(workloadArb, ({ trace, seed }) => {
        const sim = simulate(small({ seed }), trace);
        for (const r of sim.responses) {
          if (r.status !== 200 || r.computedTokens === 1) continue;
          const compute = sim.events.find((e) => e.type === 'prefill-compute' && e.req === r.request)!;
          expect(compute.type === 'prefill-compute' && compute.firstToken).toBe(r.tokens[0]);
          expect(r.correct).toBe(true);
        }
      }),
      { numRuns: 25 },
    );
  });
});

describe('simulation: control flow of the two defects', () => {
  const one = (tokens: number, o: ConfigOverrides = {}) => {
    const trace: Trace = { version: 1, tenants: [{ name: 'acme' }], requests: [{ id: 'x', at: 0, tenant: 'acme', promptTokens: tokens }] };
    return simulate(withOverrides(INCIDENT_CONFIG, o), trace);
  };

  it('the fixed reject path answers 400 before any reservation, naming both numbers', () => {
    const sim = one(700_000, { rejectPath: 'fixed' });
    const r = sim.responses[0]!;
    expect(r.status).toBe(400);
    expect(r.reason).toContain('700,000');
    expect(r.reason).toContain('681,280');
    // Refused before prefill: nothing computed, nothing reserved.
    expect(r.computedTokens).toBe(0);
    expect(r.pagesReserved).toBe(0);
    expect(sim.events.map((e) => e.type)).toEqual(['arrive', 'reject', 'response']);
  });

  it('the buggy path computes one placeholder token, sends one page and reports Success', () => {
    const sim = one(700_000);
    const types = sim.events.map((e) => e.type);
    expect(types).toContain('abort-marked');
    const reserve = sim.events.find((e) => e.type === 'decode-reserve')!;
    const transfer = sim.events.find((e) => e.type === 'kv-transfer')!;
    expect(reserve.type === 'decode-reserve' && reserve.pageCount).toBe(Math.ceil(700_000 / 64));
    expect(transfer.type === 'kv-transfer' && transfer.pagesWritten).toBe(1);
    expect(sim.events.find((e) => e.type === 'transfer-done')).toMatchObject({ status: 'Success' });
    expect(sim.responses[0]!.status).toBe(200);
  });

  it('prompts longer than the advertised context are refused by the tokenizer on either path', () => {
    expect(one(1_048_577).responses[0]).toMatchObject({ status: 400, computedTokens: 0 });
    expect(one(1_048_577).events.map((e) => e.type)).toEqual(['arrive', 'reject', 'response']);
  });

  it('threshold rules: the report counts prompts over 681,280; SGLang rejects at 681,274 and over', () => {
    expect(one(681_280).responses[0]!.computedTokens).toBe(681_280);
    expect(one(681_281).responses[0]!.computedTokens).toBe(1);
    expect(one(681_273, { thresholdRule: 'sglang' }).responses[0]!.computedTokens).toBe(681_273);
    expect(one(681_274, { thresholdRule: 'sglang' }).responses[0]!.computedTokens).toBe(1);
  });

  it('decode admission blocks the FIFO head while its pages are not free', () => {
    const trace: Trace = {
      version: 1,
      tenants: [{ name: 'acme' }, { name: 'borealis' }],
      requests: [
        { id: 'big', at: 0, tenant: 'acme', promptTokens: 3500 },
        { id: 'blocked', at: 1, tenant: 'borealis', promptTokens: 4000 },
        { id: 'small', at: 2, tenant: 'borealis', promptTokens: 100 },
      ],
    };
    const sim = simulate(small({ decodeNodes: 1, prefillCapacityTokens: 4096 }), trace);
    const reserveOrder = sim.events.filter((e) => e.type === 'decode-reserve').map((e) => e.req);
    expect(reserveOrder).toEqual([0, 1, 2]); // the small one does not overtake the blocked head
    expect(sim.events.some((e) => e.type === 'decode-wait' && e.req === 1)).toBe(true);
    expect(sim.responses.every((r) => r.status === 200 && r.correct)).toBe(true);
  });
});

describe('simulation: no request vanishes', () => {
  // The incident's prefill cache is 681,280 tokens: a whole number of 64-token pages, not of 128 or 256.
  const edgeTrace = (): Trace => ({
    version: 1,
    tenants: [{ name: 'acme' }, { name: 'borealis' }],
    requests: [
      { id: 'warm', at: 0, tenant: 'acme', promptTokens: 300_000 },
      { id: 'edge', at: 100_000, tenant: 'borealis', promptTokens: 681_280 },
      { id: 'after', at: 100_001, tenant: 'borealis', promptTokens: 2_000 },
    ],
  });

  it.each([128, 256])('with %i-token pages a prompt of the configured capacity is over the real pool, and every request is answered', (pageSize) => {
    const buggy = simulate(withOverrides(INCIDENT_CONFIG, { pageSize }), edgeTrace(), { keepEvents: false });
    expect(buggy.responses.map((r) => [r.id, r.status, r.computedTokens])).toEqual([
      ['warm', 200, 300_000],
      ['edge', 200, 1], // over the 681,216 tokens the pool holds: the buggy path aborts it
      ['after', 200, 2_000],
    ]);
    const fixed = simulate(withOverrides(INCIDENT_CONFIG, { pageSize, rejectPath: 'fixed' }), edgeTrace(), { keepEvents: false });
    const edge = fixed.responses.find((r) => r.id === 'edge')!;
    expect(edge.status).toBe(400);
    expect(edge.reason).toContain('681,216');
    expect(fixed.responses).toHaveLength(3);
  });

  it('a run that would end with a request unanswered throws, naming it and where it waited', () => {
    // Take every free page of decode-1 just before borealis's request arrives there: it can never be
    // reserved, and nothing would ever answer it.
    const trace: Trace = {
      version: 1,
      tenants: [{ name: 'acme' }, { name: 'borealis' }],
      requests: [
        { id: 'first', at: 0, tenant: 'acme', promptTokens: 1000 },
        { id: 'stuck', at: 10, tenant: 'borealis', promptTokens: 1000 },
        { id: 'behind', at: 20, tenant: 'acme', promptTokens: 1000 },
      ],
    };
    const sim = new Simulation(small({ decodeNodes: 2 }), trace, {
      beforeStep: (s, next) => {
        if (next.kind === 'arrive' && next.req === 1) s.decodePools[1]!.allocate(s.decodePools[1]!.freePages, 99);
      },
    });
    let error: unknown;
    try {
      sim.run();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UnansweredRequests);
    const message = (error as Error).message;
    expect(message).toMatch(/^run ended with 1 of 3 requests unanswered: stuck \(tenant borealis, 1,000 tokens; queued for decode-1 pages: needs 63 of 384, 0 free\)$/);
    expect(sim.responses.map((r) => r.id)).toEqual(['first', 'behind']);
  });

  it('an empty trace is a run with nothing to answer', () => {
    const sim = simulate(SMALL, { version: 1, tenants: [{ name: 'acme' }], requests: [] });
    expect(sim.responses).toEqual([]);
    expect(sim.step()).toBe(false);
  });
});

describe('simulation: determinism', () => {
  it('the same config and trace give a byte-identical event log', () => {
    const a = simulate(INCIDENT_CONFIG, demoTrace());
    const b = simulate(INCIDENT_CONFIG, demoTrace());
    expect(JSON.stringify(a.events)).toBe(JSON.stringify(b.events));
    expect(a.eventLogHash).toBe(b.eventLogHash);
    expect(JSON.stringify(a.responses)).toBe(JSON.stringify(b.responses));
  });

  it('a different seed gives a different log', () => {
    const a = simulate(INCIDENT_CONFIG, demoTrace());
    const b = simulate(withOverrides(INCIDENT_CONFIG, { seed: 'other' }), demoTrace());
    expect(a.eventLogHash).not.toBe(b.eventLogHash);
  });

  it('a run counts its outcome as the simulation does: one Counters, from the request columns and the reads', () => {
    for (const config of [INCIDENT_CONFIG, withOverrides(INCIDENT_CONFIG, { mitigations: { clearPagesOnFree: true } })]) {
      const sim = simulate(config, demoTrace());
      const run = runScenario(singlePhaseSpec('demo', demoTrace(), config, 0), { record: false });
      expect(countRequests(run.requests, run.reads)).toEqual(sim.counters());
    }
  });

  it('golden: the demo trace under the incident deployment', () => {
    const sim = simulate(INCIDENT_CONFIG, demoTrace());
    const leak = sim.responses.find((r) => r.leakedFrom.length > 0)!;
    expect({ counters: sim.counters(), hash: sim.eventLogHash, leak: { id: leak.id, from: leak.leakedFrom, text: leak.text } }).toMatchSnapshot();
  });
});

describe("decode steps: the answer's KV where SGLang's alloc_decode puts it", () => {
  /** The decode pool's page at block-table index `k` of request `req`, from its reservation. */
  const reservedPage = (events: EngineEvent[], req: number, k: number) => [...pagesOf((events.find((e) => e.type === 'decode-reserve' && e.req === req) as Extract<EngineEvent, { type: 'decode-reserve' }>).pages)][k]!;

  it('a 900,000-token prompt (900,000 mod 64 = 32) writes its 24 answer tokens in slots 32–55 of its last page; the next request given that page reads them', () => {
    const config = withOverrides(INCIDENT_CONFIG, {
      decodeNodes: 1,
      pageSize: 64,
      // Prefill admits 900,000 tokens; the next prompt, 1,000,000, takes the placeholder path.
      prefillCapacityTokens: 950_016,
      // 16,384 pages: the second prompt's 15,625 are more than the list holds once the first's are
      // staged, so SGLang's allocator merges and sorts, and hands out the first's pages from page 1.
      decodeCapacityTokens: 1_048_576,
      outputTokens: 24,
    });
    const trace: Trace = {
      version: 1,
      tenants: [{ name: 'cobalt' }, { name: 'acme' }],
      requests: [
        { id: 'first', at: 0, tenant: 'cobalt', promptTokens: 900_000 },
        { id: 'next', at: 120_000, tenant: 'acme', promptTokens: 1_000_000 },
      ],
    };
    const lastPage = Math.ceil(900_000 / 64) - 1; // block-table index 14,062
    for (const overlapOff of [false, true]) {
      let seen: { writers: number[]; values: number[]; reads: boolean } | null = null;
      const events: EngineEvent[] = [];
      const sim: Simulation = new Simulation(withOverrides(config, { disableOverlapSchedule: overlapOff }), trace, {
        keepEvents: false,
        onEvent: (e) => {
          events.push(e);
          // What the next request's decode reads, at its read.
          if (e.type === 'decode-read' && e.req === 1) {
            const page = reservedPage(events, 1, lastPage);
            const base = page * 64;
            const pool = sim.decodePools[0]!;
            seen = {
              writers: [...pool.slotWriter.subarray(base, base + 64)],
              values: [...pool.valueTokens.subarray(base, base + 64)],
              reads: e.seqLen > (lastPage + 1) * 64,
            };
          }
        },
      });
      sim.run();
      const first = sim.responses.find((r) => r.id === 'first')!;
      const next = sim.responses.find((r) => r.id === 'next')!;
      expect(first).toMatchObject({ status: 200, correct: true, computedTokens: 900_000 });
      expect(first.tokens).toHaveLength(24);
      expect(next).toMatchObject({ status: 200, computedTokens: 1 });
      // The first request's last prompt page is the next one's page at the same block-table index.
      const page = reservedPage(events, 0, lastPage);
      expect(reservedPage(events, 1, lastPage)).toBe(page);
      const read = events.find((e) => e.type === 'decode-read' && e.req === 0) as Extract<EngineEvent, { type: 'decode-read' }>;
      // No new page: 32 + 24 slots fit in the last prompt page.
      expect(events.filter((e) => e.type === 'decode-grow' && e.req === 0)).toHaveLength(0);
      const got = seen as { writers: number[]; values: number[]; reads: boolean } | null;
      expect(got).not.toBeNull();
      expect(got!.values).toHaveLength(64);
      expect(got!.reads).toBe(true); // the page lies inside the next request's sequence: decode attends over all 64 slots
      // Slots 0–31: the first request's prompt.
      expect(got!.writers.slice(0, 32).every((w) => w === 0)).toBe(true);
      const written = overlapOff ? 23 : 24;
      expect(read.answerSlots).toBe(written);
      // Slots 32–55 (32–54 with --disable-overlap-schedule): the first request's answer, token for token.
      expect(got!.writers.slice(32, 32 + written).every((w) => w === 0)).toBe(true);
      expect(got!.values.slice(32, 32 + written)).toEqual(first.tokens.slice(0, written));
      expect(sim.vocab.decode(got!.values.slice(32, 32 + written))).toBe(sim.vocab.decode(first.tokens.slice(0, written)));
      // The rest came from prefill's page, copied whole: never the first request's.
      expect(got!.writers.slice(32 + written).every((w) => w !== 0)).toBe(true);
    }
  }, 60_000);

  it('T output tokens take T steps: at a page boundary the overlap step takes a page of its own (T − 1 with --disable-overlap-schedule)', () => {
    const trace = (output: number, prompt: number): Trace => ({
      version: 1,
      tenants: [{ name: 'acme' }],
      requests: [{ id: 'a', at: 0, tenant: 'acme', promptTokens: prompt, outputTokens: output }],
    });
    const grows = (config: EngineConfig, output: number, prompt: number) => {
      const sim = new Simulation(config, trace(output, prompt)).run();
      return { sim, pages: sim.events.filter((e): e is Extract<EngineEvent, { type: 'decode-grow' }> => e.type === 'decode-grow') };
    };
    // Page size 1: every step starts a page, so T output tokens take T pages.
    for (const T of [1, 2, 5, 24]) {
      expect(grows(small({ pageSize: 1 }), T, 300).pages).toHaveLength(T === 1 ? 0 : T);
      expect(grows(small({ pageSize: 1, disableOverlapSchedule: true }), T, 300).pages).toHaveLength(T - 1);
    }
    // Page size 16, a prompt of whole pages: step j writes position prompt + j − 1, so T = 17 tokens
    // need two pages under the overlap scheduler (its 17th step starts the second) and one without.
    for (const [T, on, off] of [[16, 1, 1], [17, 2, 1], [18, 2, 2], [33, 3, 2]] as const) {
      const { sim, pages } = grows(small(), T, 320);
      expect(pages.map((p) => p.tokens), `T = ${T}`).toEqual(Array.from({ length: on }, (_, i) => Math.min(16, T - 16 * i)));
      expect(grows(small({ disableOverlapSchedule: true }), T, 320).pages, `T = ${T}`).toHaveLength(off);
      // The last step's page holds the answer's last token, and is freed with the request.
      const last = pages[pages.length - 1]!;
      const slot = last.page * 16 + ((320 + T - 1) % 16);
      const answer = sim.responses[0]!;
      expect(sim.decodePools[0]!.slotWriter[slot]).toBe(0);
      expect(sim.decodePools[0]!.valueTokens[slot]).toBe(answer.tokens[T - 1]);
      const freed = sim.events.find((e) => e.type === 'decode-free')!;
      expect([...pagesOf((freed as Extract<EngineEvent, { type: 'decode-free' }>).pages)]).toContain(last.page);
      expect(sim.decodePools[0]!.freePages).toBe(sim.decodePools[0]!.usablePages);
    }
  });
});
