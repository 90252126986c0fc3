import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_STATE, type AppState } from './store.ts';
import { parseUrlState, serializeUrlState } from './urlState.ts';
import { CHAPTER_COUNT } from '../walkthrough/chapterCount.ts';

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
      chapter: 4,
      presenter: true,
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

  it('reads the walkthrough chapter and presenter mode, and drops bad values', () => {
    expect(parseUrlState('?ch=1&pm=1').state).toEqual({ chapter: 1, presenter: true });
    expect(parseUrlState(`?ch=${CHAPTER_COUNT}`).state).toEqual({ chapter: CHAPTER_COUNT });
    const bad = parseUrlState(`?ch=0&pm=yes`);
    expect(bad.state).toEqual({});
    expect(bad.ignored).toEqual(['ch=0', 'pm=yes']);
    expect(parseUrlState(`?ch=${CHAPTER_COUNT + 1}`).ignored).toEqual([`ch=${CHAPTER_COUNT + 1}`]);
    expect(parseUrlState('?ch=2.5').ignored).toEqual(['ch=2.5']);
    // Closed walkthrough and normal mode leave no trace in the link.
    expect(serializeUrlState(DEFAULT_STATE)).not.toMatch(/ch=|pm=/);
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
