import { describe, expect, it } from 'vitest';
import { NO_MITIGATIONS } from '../config.ts';
import { explore, isSafe } from './explore.ts';
import { NONE, encodeState, initialState, successors, type ProtocolConfig, type ProtocolState, type Transition } from './model.ts';
import { CHECKED_CONFIGS, REQUESTS } from './configs.ts';

const base: ProtocolConfig = {
  id: 't',
  title: 't',
  rejectPath: 'buggy',
  advertisedPages: 3,
  prefillPages: 2,
  decodePages: 3,
  requests: REQUESTS,
  mitigations: NO_MITIGATIONS,
  decodeAbort: false,
  mutation: 'none',
};

/** Follows the first transition of the given kind for the given request. */
function take(c: ProtocolConfig, s: ProtocolState, kind: Transition['kind'], request: number): Transition {
  const t = successors(c, s).find((x) => x.kind === kind && x.request === request);
  if (!t) throw new Error(`no ${kind} for ${request}; have ${successors(c, s).map((x) => `${x.kind}:${x.request}`).join(' ')}`);
  return t;
}

describe('the handoff model', () => {
  it('decode reserves the full prompt for an over-limit request; prefill computes and sends one page', () => {
    const c = { ...base, requests: [{ name: 'B', tenant: 2, pages: 3 }] };
    let s = initialState(c);
    s = take(c, s, 'arrive', 0).next;
    expect(s.reqs[0]!.aborted).toBe(true);
    s = take(c, s, 'decode-reserve', 0).next;
    expect(s.reqs[0]!.dst).toEqual([0, 1, 2]);
    s = take(c, s, 'prefill-admit', 0).next;
    expect(s.reqs[0]!.src).toEqual([0]);
    s = take(c, s, 'prefill-chunk', 0).next;
    // One page written; the placeholder fills only its head.
    expect(s.decode.map((p) => [p.head, p.tail])).toEqual([[0, NONE], [NONE, NONE], [NONE, NONE]]);
    const done = take(c, s, 'prefill-done', 0);
    expect(done.label).toContain('1 of 1 computed page sent');
    const served = take(c, done.next, 'decode-done', 0);
    expect(served.read?.status).toBe(200);
    expect(served.next.reqs[0]!.status).toBe(200);
  });

  it('freed pages keep their contents and are handed out lowest id first', () => {
    const c = { ...base, requests: [{ name: 'A', tenant: 1, pages: 2 }, { name: 'C', tenant: 1, pages: 1 }] };
    let s = initialState(c);
    for (const k of ['arrive', 'decode-reserve', 'prefill-admit', 'prefill-chunk', 'prefill-chunk', 'prefill-done', 'decode-done'] as const) {
      s = take(c, s, k, 0).next;
    }
    expect(s.decode.map((p) => [p.owner, p.head])).toEqual([[NONE, 0], [NONE, 0], [NONE, NONE]]);
    s = take(c, s, 'arrive', 1).next;
    s = take(c, s, 'decode-reserve', 1).next;
    expect(s.reqs[1]!.dst).toEqual([0]);
  });

  it('clear-on-free zeroes pages on both nodes', () => {
    const c = { ...base, requests: [{ name: 'A', tenant: 1, pages: 1 }], mitigations: { ...NO_MITIGATIONS, clearPagesOnFree: true } };
    let s = initialState(c);
    for (const k of ['arrive', 'decode-reserve', 'prefill-admit', 'prefill-chunk', 'prefill-done', 'decode-done'] as const) s = take(c, s, k, 0).next;
    expect([...s.prefill, ...s.decode].every((p) => p.head === NONE && p.tail === NONE && p.owner === NONE)).toBe(true);
  });

  it('decode FIFO blocks at the head: a small request waits behind a large one', () => {
    const c = { ...base, requests: [{ name: 'A', tenant: 1, pages: 2 }, { name: 'B', tenant: 2, pages: 3 }, { name: 'C', tenant: 1, pages: 1 }] };
    let s = initialState(c);
    s = take(c, s, 'arrive', 0).next;
    s = take(c, s, 'decode-reserve', 0).next;
    s = take(c, s, 'arrive', 1).next;
    s = take(c, s, 'arrive', 2).next;
    // One page is free and C needs one, but B is at the head and needs three.
    expect(successors(c, s).some((t) => t.kind === 'decode-reserve')).toBe(false);
  });

  it('rejections: tokenizer over the advertised context, decode over its own pool, fixed path at admission', () => {
    const tooLong = { ...base, requests: [{ name: 'D', tenant: 1, pages: 4 }] };
    expect(take(tooLong, initialState(tooLong), 'arrive', 0).label).toContain('tokenizer rejects');
    const smallDecode = { ...base, decodePages: 2, requests: [{ name: 'B', tenant: 2, pages: 3 }] };
    const t = take(smallDecode, initialState(smallDecode), 'arrive', 0);
    expect(t.label).toContain('decode rejects');
    expect(t.next.reqs[0]!.status).toBe(400);
    const fixed = { ...base, rejectPath: 'fixed' as const, requests: [{ name: 'B', tenant: 2, pages: 3 }] };
    const f = take(fixed, initialState(fixed), 'arrive', 0);
    expect(f.next.reqs[0]!.status).toBe(400);
    expect(f.next.decodeQueue).toEqual([]);
  });

  it('the deployment capacity check refuses a deployment with a gap: nothing runs', () => {
    const c = { ...base, mitigations: { ...NO_MITIGATIONS, deploymentCapacityCheck: true } };
    const r = explore(c);
    expect(r.deploymentRefused).toBe(true);
    expect(r.statesExplored).toBe(1);
    expect(isSafe(r)).toBe(true);
  });

  it('the canonical key separates states that differ and names the same state the same way', () => {
    const c = CHECKED_CONFIGS[0]!.config;
    const s = initialState(c);
    expect(encodeState(s)).toBe(encodeState(initialState(c)));
    const keys = successors(c, s).map((t) => encodeState(t.next));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('rejects configurations too large for the single-digit canonical key', () => {
    expect(() => initialState({ ...base, decodePages: 12 })).toThrow(/decodePages/);
  });
});
