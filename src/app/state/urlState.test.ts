import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_STATE, type AppState } from './store.ts';
import { parseUrlState, serializeUrlState } from './urlState.ts';

describe('URL state', () => {
  it('round-trips the whole situation', () => {
    const s: AppState = {
      ...DEFAULT_STATE,
      scenario: 'matrix',
      time: 123456,
      selectedRequest: 14,
      selectedPage: { node: 'decode-1', page: 4242 },
      view: 'response',
      capacityGap: false,
      rejectPath: 'fixed',
      mitigations: { clearPagesOnFree: true, perReadIntegrityCheck: false, transferredLengthCheck: true, deploymentCapacityCheck: false },
      compare: 'perReadIntegrityCheck',
      lang: 'fr',
      speed: 600,
      backend: 'js',
      gpuFault: 'lost',
      requestsPerDay: 60,
      tenants: 12,
    };
    const { state, ignored } = parseUrlState(serializeUrlState(s));
    expect(ignored).toEqual([]);
    expect({ ...DEFAULT_STATE, ...state }).toEqual(s);
  });

  it('keeps defaults and names every malformed or unknown parameter', () => {
    const { state, ignored } = parseUrlState('?v=1&s=nope&t=-5&req=abc&page=decode-1&view=cluster&m=clear,bogus&zzz=1');
    expect(state).toEqual({ view: 'cluster' });
    expect(ignored).toEqual(['s=nope', 't=-5', 'req=abc', 'page=decode-1', 'm=clear,bogus', 'zzz (unknown parameter)']);
  });

  it('reads an outdated version with a notice', () => {
    const { state, ignored } = parseUrlState('?v=0&s=matrix');
    expect(state.scenario).toBe('matrix');
    expect(ignored[0]).toMatch(/^v=0/);
  });

  it('never throws, whatever the query', () => {
    fc.assert(
      fc.property(fc.string(), (q) => {
        const r = parseUrlState(q);
        expect(Array.isArray(r.ignored)).toBe(true);
      }),
    );
  });
});
