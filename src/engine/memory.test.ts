/**
 * Properties that separate memory from metadata. An engine that wrote the leak as a rule — "if the
 * request was aborted, paste another tenant's text", or "paste the prompt of the writer tag that
 * fills most of the block table" — passes a test that only checks outcomes against flags. These do
 * not let it: they change what the pools hold, or only the tags that say who wrote it, between
 * events (`beforeStep`), and check that the answers follow the memory and ignore the tags.
 *
 * Workloads are random: 1–4 tenants (the same tenant sending again, reading its own leftovers),
 * random page sizes against capacities they may not divide, 1–2 prefill and 1–4 decode nodes, both
 * reject paths and threshold rules, the mitigations, prompts under and over the prefill limit.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { INCIDENT_CONFIG, withOverrides, type EngineConfig } from './config.ts';
import { pagesOf, type EngineEvent } from './events.ts';
import type { KvPool } from './kvPool.ts';
import { Prng } from './core/prng.ts';
import { Simulation, type ResponseRecord, type SimulationOptions } from './simulation.ts';
import type { TenantSpec, Trace, TraceRequest } from './trace.ts';
import { TENANT_NAMES, TOPICS } from './core/vocab.ts';

const ADVERTISED = 4096;

const configArb = fc
  .record({
    seed: fc.string({ maxLength: 4 }),
    pageSize: fc.constantFrom(8, 12, 16, 24, 32),
    prefillCapacityTokens: fc.integer({ min: 600, max: 2600 }),
    decodeCapacityTokens: fc.integer({ min: 2600, max: 7000 }),
    prefillNodes: fc.integer({ min: 1, max: 2 }),
    decodeNodes: fc.integer({ min: 1, max: 4 }),
    rejectPath: fc.constantFrom<EngineConfig['rejectPath']>('buggy', 'buggy', 'buggy', 'fixed'),
    thresholdRule: fc.constantFrom<EngineConfig['thresholdRule']>('report', 'sglang'),
    outputTokens: fc.integer({ min: 4, max: 12 }),
    // Both orders of reuse: lowest page first, and SGLang's staged free list in PD mode.
    freeListPolicy: fc.constantFrom<EngineConfig['freeListPolicy']>('sorted', 'staged'),
    // Mostly the incident's deployment, so that most runs have something to leak; at most one mitigation.
    mitigation: fc.constantFrom('none', 'none', 'none', 'none', 'none', 'clearPagesOnFree', 'transferredLengthCheck', 'perReadIntegrityCheck'),
  })
  .map(({ mitigation, ...c }) =>
    withOverrides(INCIDENT_CONFIG, { ...c, advertisedContextTokens: ADVERTISED, mitigations: mitigation === 'none' ? {} : { [mitigation]: true } }),
  );

const requestArb = (tenants: number, at: fc.Arbitrary<number>) =>
  fc.record({
    tenant: fc.integer({ min: 0, max: tenants - 1 }),
    at,
    promptTokens: fc.oneof(fc.integer({ min: 1, max: 2600 }), fc.integer({ min: 2000, max: ADVERTISED + 200 })),
    offset: fc.nat({ max: 5000 }),
  });

/** A warm phase (concurrent prompts from any tenant), then later prompts from any tenant. */
const workloadArb = (texts: fc.Arbitrary<(string | undefined)[]> | null = null) =>
  fc
    .integer({ min: 1, max: 4 })
    .chain((tenants) =>
      fc.record({
        tenants: fc.constant(tenants),
        topics: fc.array(fc.constantFrom(...TOPICS), { minLength: tenants, maxLength: tenants }),
        texts: texts ?? fc.constant([] as (string | undefined)[]),
        warm: fc.array(requestArb(tenants, fc.integer({ min: 0, max: 3000 })), { minLength: 2, maxLength: 9 }),
        later: fc.array(requestArb(tenants, fc.integer({ min: 0, max: 200_000 })), { minLength: 1, maxLength: 7 }),
      }),
    )
    .map(({ tenants, topics, texts, warm, later }): Trace => {
      const names = TENANT_NAMES.slice(0, tenants);
      const requests: TraceRequest[] = [...warm, ...later.map((r) => ({ ...r, at: 600_000 + r.at }))]
        .sort((a, b) => a.at - b.at)
        .map((r, i) => ({ id: `q${i}`, at: r.at, tenant: names[r.tenant]!, promptTokens: r.promptTokens, offset: r.offset }));
      const specs: TenantSpec[] = names.map((name, i) => (texts[i] !== undefined ? { name, text: texts[i] } : { name, topic: topics[i]! }));
      return { version: 1, tenants: specs, requests };
    });

/** Each request's pages and nodes, followed from the event log. */
class PageBook {
  decode = new Map<number, { node: number; pages: number[] }>();
  prefill = new Map<number, { node: number; pages: number[] }>();
  onEvent = (e: EngineEvent) => {
    if (e.type === 'decode-reserve') this.decode.set(e.req, { node: e.node, pages: [...pagesOf(e.pages)] });
    if (e.type === 'prefill-alloc') this.prefill.set(e.req, { node: e.node, pages: [...pagesOf(e.pages)] });
  };
}

function run(config: EngineConfig, trace: Trace, options: SimulationOptions = {}): ResponseRecord[] {
  return runSim(config, trace, options).responses;
}

function runSim(config: EngineConfig, trace: Trace, options: SimulationOptions = {}): { responses: ResponseRecord[]; sim: Simulation } {
  const sim = new Simulation(config, trace, { keepEvents: false, ...options }).run();
  return { responses: [...sim.responses].sort((a, b) => a.request - b.request), sim };
}

const leaked = (r: ResponseRecord) => r.leakedFrom.length > 0 || r.canaryHits.length > 0;

describe('memory, not metadata, decides what a response says', () => {
  it('(a) zero the KV another tenant wrote, keep every writer tag: the leaked text disappears and no leak is reported', () => {
    let leakingRuns = 0;
    let zeroedSlots = 0;
    fc.assert(
      fc.property(configArb, workloadArb(), (config, trace) => {
        const before = run(config, trace);
        const book = new PageBook();
        let zeroed = 0;
        const zeroForeign = (pool: KvPool, pages: number[], reader: number, requestTenant: Int32Array) => {
          for (const p of pages) {
            for (let s = p * pool.pageSize, end = s + pool.pageSize; s < end; s++) {
              const w = pool.slotWriter[s]!;
              if (w >= 0 && requestTenant[w] !== reader) {
                pool.keyTokens[s] = 0;
                pool.valueTokens[s] = 0; // the tag in slotWriter stays
                zeroed++;
              }
            }
          }
        };
        const after = run(config, trace, {
          onEvent: book.onEvent,
          // Just before a request's pages are copied and read: what it will read, minus other tenants' KV.
          beforeStep: (sim, next) => {
            if (next.kind !== 'transfer-done') return;
            const reader = sim.requestTenant[next.req]!;
            const p = book.prefill.get(next.req)!;
            const d = book.decode.get(next.req)!;
            zeroForeign(sim.prefillPools[p.node]!, p.pages, reader, sim.requestTenant);
            zeroForeign(sim.decodePools[d.node]!, d.pages, reader, sim.requestTenant);
          },
        });
        if (before.some(leaked)) leakingRuns++;
        zeroedSlots += zeroed;
        expect(after.map((r) => r.status)).toEqual(before.map((r) => r.status));
        for (const [i, r] of after.entries()) {
          expect(r.leakedFrom).toEqual([]);
          expect(r.canaryHits).toEqual([]);
          for (const p of r.provenance) expect(p.foreignShare).toBe(0);
          // A request that prefill computed in full reads only its own KV: zeroing others' changes nothing.
          if (r.computedTokens === r.promptTokens) expect(r.tokens).toEqual(before[i]!.tokens);
        }
      }),
      { numRuns: 600 },
    );
    expect(leakingRuns).toBeGreaterThan(60); // about a quarter of the runs have a leak to remove
    expect(zeroedSlots).toBeGreaterThan(0);
  });

  it('(b) wipe or scramble the writer tags, keep the KV: every response says exactly the same', () => {
    let leakingRuns = 0;
    fc.assert(
      fc.property(configArb, workloadArb(), fc.constantFrom('wipe', 'random', 'rotate'), fc.integer(), (config, trace, how, seed) => {
        const before = run(config, trace);
        const rng = new Prng(`tags:${seed}`);
        const n = trace.requests.length;
        let x = rng.int(2 ** 31);
        const retag = (tags: Int32Array) => {
          if (how === 'wipe') tags.fill(-1);
          else if (how === 'random') {
            // Any request id, or none; a cheap generator, since this runs over every slot at every step.
            for (let i = 0; i < tags.length; i++) {
              x = (Math.imul(x, 1103515245) + 12345) >>> 0;
              tags[i] = (x % (n + 1)) - 1;
            }
          } else {
            // Every tag moves to another slot: the same tags, on the wrong KV.
            const k = 1 + rng.int(tags.length - 1 || 1);
            const copy = tags.slice();
            tags.set(copy.subarray(k));
            tags.set(copy.subarray(0, k), tags.length - k);
          }
        };
        const after = run(config, trace, {
          beforeStep: (sim) => {
            for (const pool of [...sim.prefillPools, ...sim.decodePools]) {
              retag(pool.slotWriter);
              // Page tags too, unless the per-read integrity check is on: reading them is its job.
              if (!config.mitigations.perReadIntegrityCheck) {
                retag(pool.pageWrittenFor);
                retag(pool.pageWriteHandoff);
              }
            }
          },
        });
        if (before.some(leaked)) leakingRuns++;
        expect(after.map((r) => [r.id, r.status, r.text])).toEqual(before.map((r) => [r.id, r.status, r.text]));
        for (const [i, r] of after.entries()) expect(r.tokens).toEqual(before[i]!.tokens);
      }),
      { numRuns: 500 },
    );
    expect(leakingRuns).toBeGreaterThan(45);
  });

  it("(c) change one word of an earlier tenant's document: answers change first at a token that is that word, its replacement, the word after it or one drawn from a slot the change reached, each drawn from a slot that holds it", () => {
    const WORDS = ['alpha', 'bravo', 'delta', 'echo', 'golf', 'hotel', 'kilo', 'lima', 'mike', 'oscar', 'papa', 'romeo', 'sierra', 'tango', '.', ','];
    const textArb = fc.array(fc.constantFrom(...WORDS), { minLength: 6, maxLength: 40 }).map((w) => w.join(' '));
    let shown = 0;
    let changed = 0;
    fc.assert(
      fc.property(
        configArb,
        workloadArb(fc.array(fc.option(textArb, { nil: undefined }), { minLength: 4, maxLength: 4 })),
        fc.nat(),
        fc.nat(),
        (config, trace, pickLength, pickWord) => {
          // The earlier tenant: the first one to send. One word of its document becomes a secret.
          const owner = trace.requests[0]!.tenant;
          const k = trace.tenants.findIndex((t) => t.name === owner);
          const words = (trace.tenants[k]!.text ?? WORDS.slice(0, 6 + (pickLength % 10)).join(' ')).split(' ');
          const at = pickWord % words.length;
          const withSecret = (secret: string): Trace => {
            const doc = [...words];
            doc[at] = secret;
            const tenants = trace.tenants.map((t, i) => (i === k ? { name: t.name, text: doc.join(' ') } : t));
            // A tenant that never sends brings both secrets into the vocabulary first, so both runs
            // share one vocabulary and one model: only the document differs.
            return { ...trace, tenants: [{ name: 'zz-vocab', text: 'secret-a secret-b' }, ...tenants] };
          };
          // Each run also keeps the values of every block table as decode read it (its pages are the
          // request's until decode-done), to check that every token's provenance slot holds that token.
          const read = () => {
            const book = new PageBook();
            const values = new Map<number, Uint16Array>();
            const keys = new Map<number, Uint16Array>();
            const options: SimulationOptions = {
              onEvent: book.onEvent,
              beforeStep: (s, next) => {
                if (next.kind !== 'decode-done') return;
                const d = book.decode.get(next.req)!;
                const pool = s.decodePools[d.node]!;
                const n = trace.requests[next.req]!.promptTokens;
                const slotOf = (i: number) => d.pages[Math.floor(i / pool.pageSize)]! * pool.pageSize + (i % pool.pageSize);
                values.set(next.req, Uint16Array.from({ length: n }, (_, i) => pool.valueTokens[slotOf(i)]!));
                // A slot's key is stored with it (the token before it when it was written): an earlier
                // answer's decode steps can leave the same word under another key.
                keys.set(next.req, Uint16Array.from({ length: n }, (_, i) => pool.keyTokens[slotOf(i)]!));
              },
            };
            return { values, keys, options };
          };
          const readA = read();
          const readB = read();
          const { responses: a, sim } = runSim(config, withSecret('secret-a'), readA.options);
          const b = run(config, withSecret('secret-b'), readB.options);
          for (const [responses, values] of [[a, readA.values], [b, readB.values]] as const) {
            for (const r of responses) {
              r.provenance.forEach((p, j) => {
                // A token credited to a writer must name the slot it was read from: a pasted answer cannot hide behind "no slot".
                if (p.writerRequest >= 0) expect(p.slot, `${r.id} token ${j}: a writer without a slot`).toBeGreaterThanOrEqual(0);
                if (p.slot >= 0) expect(values.get(r.request)![p.slot], `${r.id} token ${j}`).toBe(r.tokens[j]);
              });
            }
          }
          const secretA = sim.vocab.id('secret-a');
          const secretB = sim.vocab.id('secret-b');
          const after = sim.vocab.id(words[(at + 1) % words.length]!); // the word whose key changed
          expect(b.map((r) => r.status)).toEqual(a.map((r) => r.status));
          for (const [i, ra] of a.entries()) {
            const rb = b[i]!;
            // By the record's own request index: a missing record must not shift which spec a response is read against.
            const spec = trace.requests[ra.request]!;
            // Neither secret appears where memory does not hold it.
            expect(ra.tokens).not.toContain(secretB);
            expect(rb.tokens).not.toContain(secretA);
            // Drawn from the owner's KV, or from an earlier answer's, whose decode steps wrote the secret it had read.
            const wroteSecret = (writer: number) => b.find((x) => x.request === writer)?.tokens.includes(secretB) === true;
            rb.tokens.forEach((t, j) => t === secretB && expect(rb.provenance[j]!.writerTenant === owner || wroteSecret(rb.provenance[j]!.writerRequest), `${rb.id} token ${j}`).toBe(true));
            if (ra.tokens.includes(secretA)) shown++;
            const j0 = ra.tokens.findIndex((t, j) => t !== rb.tokens[j]);
            if (j0 < 0) continue;
            changed++;
            // A prompt of the owner's that ends on the changed word has a different first query.
            const last = (spec.offset! + spec.promptTokens - 1) % words.length;
            if (spec.tenant === owner && ra.computedTokens === ra.promptTokens && last === at) continue;
            const x = ra.tokens[j0]!;
            const y = rb.tokens[j0]!;
            // Or it drew on a slot the two runs filled differently: decode steps write an answer's
            // tokens after its prompt, and an earlier answer that changed with the secret left other words.
            const differs = (slot: number) => slot >= 0 && readA.values.get(ra.request)![slot] !== readB.values.get(rb.request)![slot];
            // Or the change moved the attention: a slot of the table holds another word, or the same
            // word under another key (an earlier answer that changed with the secret wrote it), and the
            // winner of a diffuse step changes with it, to a slot both runs fill alike.
            const tableDiffers = (req: number) => {
              const [va, vb, ka, kb] = [readA.values.get(req)!, readB.values.get(req)!, readA.keys.get(req)!, readB.keys.get(req)!];
              for (let i = 0; i < va.length; i++) if (va[i] !== vb[i] || ka[i] !== kb[i]) return true;
              return false;
            };
            expect(
              x === secretA || y === secretB || x === after || y === after || differs(ra.provenance[j0]!.slot) || differs(rb.provenance[j0]!.slot) || tableDiffers(ra.request),
              `request ${spec.id}: first change at token ${j0}: ${sim.vocab.word(x)} → ${sim.vocab.word(y)} (secret at word ${at})`,
            ).toBe(true);
          }
        },
      ),
      { numRuns: 600 },
    );
    expect(shown).toBeGreaterThan(100); // the secret did show up in answers
    expect(changed).toBeGreaterThan(100);
  });
});

describe('accounting over random workloads', () => {
  it('(d) every request gets exactly one response', () => {
    fc.assert(
      fc.property(configArb, workloadArb(), (config, trace) => {
        const responsesOf = new Map<number, number>();
        const sim = new Simulation(config, trace, {
          keepEvents: false,
          onEvent: (e) => {
            if (e.type === 'response') responsesOf.set(e.req, (responsesOf.get(e.req) ?? 0) + 1);
          },
        }).run();
        expect(sim.responses).toHaveLength(trace.requests.length);
        expect(new Set(sim.responses.map((r) => r.request)).size).toBe(trace.requests.length);
        for (let i = 0; i < trace.requests.length; i++) expect(responsesOf.get(i), trace.requests[i]!.id).toBe(1);
        expect(sim.done).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });

  it('(e) pages are conserved at every event: the log and every pool agree on who holds each page', () => {
    fc.assert(
      fc.property(configArb, workloadArb(), (config, trace) => {
        const sim = new Simulation(config, trace, { keepEvents: false, onEvent: (e) => check(e) });
        const pools = { p: sim.prefillPools, d: sim.decodePools };
        // Who holds each page, as the log tells it: reserve and alloc events take pages, frees give them back.
        const held = { p: sim.prefillPools.map((x) => new Int32Array(x.pageCount).fill(-1)), d: sim.decodePools.map((x) => new Int32Array(x.pageCount).fill(-1)) };
        const check = (e: EngineEvent) => {
          const wrong: string[] = [];
          if (e.type === 'decode-grow') {
            const log = held.d[e.node]!;
            if (log[e.page] !== -1) wrong.push(`decode-grow of ${e.req}: page ${e.page} already held by ${log[e.page]}`);
            log[e.page] = e.req;
          }
          if (e.type === 'decode-reserve' || e.type === 'prefill-alloc') {
            const log = held[e.type === 'decode-reserve' ? 'd' : 'p'][e.node]!;
            const want = e.type === 'decode-reserve' ? trace.requests[e.req]!.promptTokens : e.computeTokens;
            if (e.pages.reduce((n, r) => n + r[1], 0) !== Math.ceil(want / config.pageSize)) wrong.push(`${e.type} of ${e.req}: wrong page count`);
            for (const p of pagesOf(e.pages)) {
              if (log[p] !== -1) wrong.push(`${e.type} of ${e.req}: page ${p} already held by ${log[p]}`);
              log[p] = e.req;
            }
          }
          if (e.type === 'decode-free' || e.type === 'prefill-free') {
            const log = held[e.type === 'decode-free' ? 'd' : 'p'][e.node]!;
            for (const p of pagesOf(e.pages)) {
              if (log[p] !== e.req) wrong.push(`${e.type} of ${e.req}: page ${p} held by ${log[p]}`);
              log[p] = -1;
            }
          }
          // Plain comparisons (this runs over every page at every event); one assertion per event.
          for (const kind of ['p', 'd'] as const) {
            pools[kind].forEach((pool, node) => {
              const log = held[kind][node]!;
              let owned = 0;
              for (let p = 0; p < pool.pageCount; p++) {
                const owner = pool.pageOwner[p]!;
                if (owner !== log[p] || pool.isFree(p) !== (owner === -1 && p !== 0)) wrong.push(`${pool.name} page ${p}: pool says ${owner}, log says ${log[p]}`);
                if (owner !== -1) owned++;
              }
              if (owned + pool.freePages !== pool.usablePages) wrong.push(`${pool.name}: ${owned} owned + ${pool.freePages} free ≠ ${pool.usablePages}`);
              const capacity = kind === 'p' ? config.prefillCapacityTokens : config.decodeCapacityTokens;
              // Page 0 is reserved: the capacity's whole pages, plus that one.
              if (pool.usablePages !== Math.floor(capacity / config.pageSize) || pool.pageCount !== pool.usablePages + 1) wrong.push(`${pool.name}: ${pool.pageCount} pages`);
              if (pool.pageOwner[0] !== -1) wrong.push(`${pool.name}: page 0 handed out`);
            });
          }
          if (wrong.length > 0) expect(wrong.slice(0, 5), `after ${e.type} of request ${e.req} at ${e.t} ms`).toEqual([]);
        };
        sim.run();
        for (const pool of [...sim.prefillPools, ...sim.decodePools]) expect(pool.freePages).toBe(pool.usablePages);
        for (const log of [...held.p, ...held.d]) expect(log.every((x) => x === -1)).toBe(true);
      }),
      { numRuns: 600 },
    );
  });
});
