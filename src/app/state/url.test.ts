import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SWITCHES, SWITCH_KEYS, type Switches } from '../../engine/switches.ts';
import { DEFAULT_STATE, type UrlState } from './store.ts';
import { INCIDENT_DEPLOYMENT } from '../../engine/deployment.ts';
import { LINK_MAX_CHARS, URL_PARAM_NAMES, parseUrl, serializeUrl, serializeUrlChecked } from './url.ts';
import { linkNotice } from '../i18n/linkNotice.ts';
import { loadLaterText } from '../i18n/catalogue.ts';

describe('URL codec', () => {
  it('round-trips the whole situation', () => {
    const s: UrlState = {
      ...DEFAULT_STATE,
      scenario: 'matrix',
      time: 123456,
      selectedRequest: 14,
      selectedPage: { node: 'decode-1', page: 4242 },
      view: 'response',
      switches: { ...DEFAULT_STATE.switches, capacityGap: false, buggyRejectPath: false, clearPagesOnFree: true, transferredLengthCheck: true },
      compare: 'perReadIntegrityCheck',
      lang: 'fr',
      lens: 'report',
      speed: 600,
      backend: 'js',
      gpuFault: 'lost',
      requestsPerDay: 60,
      tenants: 12,
      chapter: 4,
      beat: 12,
      presenter: true,
      bench: true,
      screen: 'render',
      room: 'talk-1',
    };
    const { state, ignored } = parseUrl(serializeUrl(s));
    expect(ignored).toEqual([]);
    expect({ ...DEFAULT_STATE, ...state }).toEqual(s);
  });

  it('reads a room name and names a bad one, keeping no room', () => {
    expect(parseUrl('?room=workshop').state.room).toBe('workshop');
    const bad = parseUrl('?room=two%20words');
    expect(bad.state.room).toBeUndefined();
    expect(bad.ignored).toEqual([{ kind: 'malformed', name: 'room', value: 'two words' }]);
    expect(parseUrl(`?room=${'x'.repeat(33)}`).state.room).toBeUndefined();
    // The presenter key is never part of the query string.
    expect(serializeUrl({ ...DEFAULT_STATE, room: 'talk' })).not.toContain('key');
  });

  it('reads the screen layout modes and names a bad one', () => {
    expect(parseUrl('?screen').state.screen).toBe('live');
    expect(parseUrl('?screen=1').state.screen).toBe('live');
    expect(parseUrl('?screen=render').state.screen).toBe('render');
    const bad = parseUrl('?screen=tv');
    expect(bad.state.screen).toBeUndefined();
    expect(bad.ignored).toEqual([{ kind: 'malformed', name: 'screen', value: 'tv' }]);
  });

  it('round-trips every combination of switches and every comparison the registry declares (fast-check)', () => {
    const switches = fc.record(Object.fromEntries(SWITCH_KEYS.map((k) => [k, fc.boolean()])) as Record<keyof Switches, fc.Arbitrary<boolean>>);
    fc.assert(
      fc.property(switches, fc.constantFrom(null, ...SWITCH_KEYS), (sw, compare) => {
        const s: UrlState = { ...DEFAULT_STATE, switches: sw, compare };
        const { state, ignored } = parseUrl(serializeUrl(s));
        expect(ignored).toEqual([]);
        expect({ ...DEFAULT_STATE, ...state }).toEqual(s);
      }),
    );
  });

  it('gives every switch a distinct code and fix code', () => {
    expect(new Set(SWITCHES.map((s) => s.code)).size).toBe(SWITCHES.length);
    expect(new Set(SWITCHES.map((s) => s.fixCode)).size).toBe(SWITCHES.length);
  });

  it('keeps defaults and names every malformed or unknown parameter', () => {
    const { state, ignored } = parseUrl('?v=1&s=nope&t=-5&req=abc&page=decode-1&view=cluster&m=clear,bogus&zzz=1');
    expect(state).toEqual({ view: 'cluster' });
    const malformed = (name: string, value: string) => ({ kind: 'malformed', name, value });
    expect(ignored).toEqual([malformed('s', 'nope'), malformed('t', '-5'), malformed('req', 'abc'), malformed('page', 'decode-1'), malformed('m', 'clear,bogus'), { kind: 'unknown', name: 'zzz' }]);
  });

  it('reads the walkthrough chapter and presenter mode, and drops bad values', () => {
    expect(parseUrl('?ch=1&pm=1').state).toEqual({ chapter: 1, presenter: true });
    // Any chapter number is read; the walkthrough notices one it does not have.
    expect(parseUrl('?ch=99').state).toEqual({ chapter: 99 });
    // A beat of the chapter, only with a chapter, and back into the link.
    expect(parseUrl('?ch=3&beat=2').state).toEqual({ chapter: 3, beat: 2 });
    expect(parseUrl('?beat=2')).toEqual({ state: {}, ignored: [{ kind: 'needs', name: 'beat', value: '2', needs: 'ch' }] });
    expect(parseUrl('?ch=3&beat=x').ignored).toEqual([{ kind: 'malformed', name: 'beat', value: 'x' }]);
    expect(serializeUrl({ ...DEFAULT_STATE, chapter: 3, beat: 2 })).toMatch(/ch=3&beat=2/);
    const bad = parseUrl(`?ch=0&pm=yes`);
    expect(bad.state).toEqual({});
    expect(bad.ignored).toEqual([
      { kind: 'malformed', name: 'ch', value: '0' },
      { kind: 'malformed', name: 'pm', value: 'yes' },
    ]);
    expect(parseUrl('?ch=2.5').ignored).toEqual([{ kind: 'malformed', name: 'ch', value: '2.5' }]);
    // Closed walkthrough and normal mode leave no trace in the link.
    expect(serializeUrl(DEFAULT_STATE)).not.toMatch(/ch=|pm=/);
  });

  it('reads an outdated version with a notice', () => {
    const { state, ignored } = parseUrl('?v=0&s=matrix');
    expect(state.scenario).toBe('matrix');
    expect(ignored).toEqual([{ kind: 'version', value: '0', current: 1 }]);
  });

  it('reads a beat only with its chapter, and writes none without one', () => {
    expect(parseUrl('?ch=3&beat=7').state).toEqual({ chapter: 3, beat: 7 });
    expect(parseUrl('?beat=7')).toEqual({ state: {}, ignored: [{ kind: 'needs', name: 'beat', value: '7', needs: 'ch' }] });
    expect(parseUrl('?ch=0&beat=7').ignored.map((i) => i.kind)).toEqual(['malformed', 'needs']);
    expect(parseUrl('?ch=3&beat=1000').ignored).toEqual([{ kind: 'malformed', name: 'beat', value: '1000' }]);
    expect(serializeUrl({ ...DEFAULT_STATE, chapter: null, beat: 4 })).not.toMatch(/beat=/);
    expect(serializeUrl({ ...DEFAULT_STATE, chapter: 2, beat: 4 })).toMatch(/ch=2&beat=4/);
  });

  it('knows exactly the parameters it writes (one table), the bench flag bare and last', () => {
    const every: UrlState = { ...DEFAULT_STATE, selectedRequest: 1, handoff: 2, handoffSpeed: 2, selectedPage: { node: 'decode-0', page: 1 }, compare: 'capacityGap', lang: 'fr', lens: 'report', speed: 9, backend: 'js', gpuFault: 'lost', requestsPerDay: 10, tenants: 3, chapter: 1, beat: 0, presenter: true, screen: 'live', room: 'talk', bench: true, switches: { ...DEFAULT_STATE.switches, chunkedPrefill: true } };
    every.deployment = { ...INCIDENT_DEPLOYMENT, contextTokens: 8, prefillCapacities: [8], decodeCapacities: [8], pageSize: 1, chunkTokens: 0, disaggregated: true, rule: 'report', behaviour: { buggyRejectPath: 'incident', retireWithoutSend: 'incident', transferredLengthCheck: 'incident', clearPagesOnFree: 'incident' } };
    const query = serializeUrl(every);
    expect(query.endsWith('&bench')).toBe(true);
    expect([...new URLSearchParams(query).keys()]).toEqual(URL_PARAM_NAMES);
  });

  it('never throws, whatever the query', () => {
    fc.assert(
      fc.property(fc.string(), (q) => {
        const r = parseUrl(q);
        expect(Array.isArray(r.ignored)).toBe(true);
      }),
    );
  });
});

describe('URL codec: an operator’s deployment (`dep`)', () => {
  const deployment: NonNullable<UrlState['deployment']> = {
    ...INCIDENT_DEPLOYMENT,
    contextTokens: 1_048_576,
    prefillCapacities: [681_280, 900_032],
    decodeCapacities: [1_310_720],
    pageSize: 64,
    chunkTokens: 8192,
    disaggregated: true,
    rule: 'sglang',
    behaviour: { buggyRejectPath: 'incident', retireWithoutSend: 'unknown', transferredLengthCheck: 'fixed', clearPagesOnFree: 'incident' },
  };

  it('round-trips the numbers and each behaviour by its switch’s code', () => {
    const query = serializeUrl({ ...DEFAULT_STATE, deployment });
    expect(new URLSearchParams(query).get('dep')).toBe('1048576.681280_900032.1310720.64.8192.d.s.buggy-i_retire-u_length-f_clear-i');
    const { state, ignored } = parseUrl(query);
    expect(ignored).toEqual([]);
    expect(state.deployment).toEqual(deployment);
  });

  it('holds the figures beyond the first eight only when they are not the incident’s, and reads older links the same', () => {
    const more = { ...deployment, reservedDecodeTokens: 1024, decodeContextTokens: 131_072, inputLimitMargin: 0, maxReqInputLen: 681_279, maxNewTokens: 4096, allowAutoTruncate: true };
    const query = serializeUrl({ ...DEFAULT_STATE, deployment: more });
    expect(new URLSearchParams(query).get('dep')).toBe('1048576.681280_900032.1310720.64.8192.d.s.buggy-i_retire-u_length-f_clear-i.r1024_x131072_m0_q681279_n4096_t');
    expect(parseUrl(query).state.deployment).toEqual(more);
    expect(parseUrl('?dep=1048576.681280.1310720.64.0.d.r.buggy-i.r512_r1024').state.deployment).toBeUndefined();
  });

  it('names a malformed one and keeps none', () => {
    for (const bad of ['1048576.681280', '1048576.681280.1310720.64.0.d.r.nosuch-i', '1048576.681280.1310720.64.0.d.r.buggy-i_buggy-f', 'x.1.1.1.0.d.r.buggy-i']) {
      const parsed = parseUrl(`?dep=${bad}`);
      expect(parsed.state.deployment).toBeUndefined();
      expect(parsed.ignored).toEqual([{ kind: 'malformed', name: 'dep', value: bad.slice(0, 40) }]);
    }
  });
});

describe('URL codec: links stay short', () => {
  const huge: NonNullable<UrlState['deployment']> = {
    ...INCIDENT_DEPLOYMENT,
    contextTokens: 1048576,
    // More servers than any real deployment a person types: the state the page holds can be this big.
    prefillCapacities: Array.from({ length: 400 }, (_, i) => 681280 + i),
    decodeCapacities: Array.from({ length: 400 }, (_, i) => 1310720 + i),
    pageSize: 64,
    chunkTokens: 0,
    disaggregated: true,
    rule: 'report',
    behaviour: { buggyRejectPath: 'incident', retireWithoutSend: 'incident', transferredLengthCheck: 'incident', clearPagesOnFree: 'incident' },
  };

  it('keeps state that cannot fit out of the link, names it, and keeps the rest', () => {
    const s: UrlState = { ...DEFAULT_STATE, time: 4321, selectedRequest: 7, deployment: huge };
    const { search, left } = serializeUrlChecked(s);
    expect(search.length).toBeLessThanOrEqual(LINK_MAX_CHARS + 1);
    expect(left).toEqual([expect.objectContaining({ kind: 'not-written', name: 'dep', max: LINK_MAX_CHARS })]);
    expect(serializeUrl(s)).toBe(search);
    const back = parseUrl(search);
    expect(back.ignored).toEqual([]);
    expect(back.state).toMatchObject({ time: 4321, selectedRequest: 7 });
    expect(back.state.deployment).toBeUndefined();
  });

  it('writes every state of ordinary size whole', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e9 }), fc.integer({ min: 0, max: 1e6 }), (time, req) => {
        const { search, left } = serializeUrlChecked({ ...DEFAULT_STATE, time, selectedRequest: req });
        return left.length === 0 && search.length <= LINK_MAX_CHARS + 1;
      }),
    );
  });

  it('reads nothing of a link longer than its links are, and says how long it was', async () => {
    await Promise.all([loadLaterText('en'), loadLaterText('fr')]);
    const long = `?v=1&s=demo&t=5&junk=${'x'.repeat(30_000)}`;
    const { state, ignored } = parseUrl(long);
    expect(state).toEqual({});
    expect(ignored).toEqual([{ kind: 'too-long', length: long.length - 1, max: LINK_MAX_CHARS }]);
    expect(linkNotice('en', ignored)).toContain((long.length - 1).toLocaleString('en-US'));
    expect(linkNotice('fr', ignored)).toMatch(/Ce lien fait/);
    expect(linkNotice('en', [{ kind: 'not-written', name: 'dep', length: 6000, max: LINK_MAX_CHARS }])).toMatch(/dep/);
  });
});
