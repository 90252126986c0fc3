import { describe, expect, it } from 'vitest';
import { CHECKED_CONFIGS, checkedConfig } from './configs.ts';
import { PROPERTIES, explore, isSafe, judgeRead, judgeState, replay, type PropertyId } from './explore.ts';
import { NONE, deploymentRefused, encodeState, initialState, successors, type Mutation, type ProtocolConfig, type ProtocolState } from './model.ts';

function cfg(id: string): ProtocolConfig {
  const c = checkedConfig(id);
  if (!c) throw new Error(`no config ${id}`);
  return c.config;
}

/**
 * Independent check of minimality: depth-first search with a depth bound, no BFS queue. Returns
 * true when some path of at most `bound` transitions breaks `property`.
 */
function violatedWithin(c: ProtocolConfig, property: PropertyId, bound: number): boolean {
  // Best remaining budget a state was already searched with: a smaller one cannot find more.
  const seen = new Map<string, number>();
  const dfs = (s: ProtocolState, left: number): boolean => {
    if (property === 'exclusiveOwnership' && judgeState(c, s)) return true;
    if (left === 0) return false;
    const key = encodeState(s);
    if ((seen.get(key) ?? -1) >= left) return false;
    seen.set(key, left);
    for (const t of successors(c, s)) {
      if (t.read && (property === 'confidentiality' || property === 'integrity') && judgeRead(c, t.read)[property]) return true;
      if (dfs(t.next, left - 1)) return true;
    }
    return false;
  };
  return dfs(initialState(c), bound);
}

describe('verdicts of the checked configurations', () => {
  for (const { config, expectHolds } of CHECKED_CONFIGS) {
    it(`${config.id}: ${PROPERTIES.map((p) => `${p} ${expectHolds[p] ? 'holds' : 'violated'}`).join(', ')}`, () => {
      const r = explore(config);
      expect(r.complete).toBe(true);
      for (const p of PROPERTIES) expect(r.verdicts[p].holds, p).toBe(expectHolds[p]);
      if (deploymentRefused(config)) {
        // A refused deployment never starts: its one state is the start-up state, and nothing moves.
        expect(r.statesExplored).toBe(1);
      } else {
        // Every run of the model ends with each request answered: no configuration hangs.
        expect(r.stuckStates).toBe(0);
        expect(r.finalStates).toBeGreaterThan(0);
      }
    });
  }

  it('the buggy path with a gap leaks, and the fixed and transferred-length configurations are safe', () => {
    expect(isSafe(explore(cfg('incident')))).toBe(false);
    expect(isSafe(explore(cfg('fixed')))).toBe(true);
    expect(isSafe(explore(cfg('length-check')))).toBe(true);
  });

  it('clear-on-free: nothing foreign is read, but a 200 is still served over zeros', () => {
    const r = explore(cfg('clear-on-free'));
    expect(r.verdicts.confidentiality.holds).toBe(true);
    const ce = r.verdicts.integrity.counterexample!;
    const last = ce.steps[ce.steps.length - 1]!;
    expect(last.read?.status).toBe(200);
    expect(last.read!.pages.some((p) => p.head === NONE || p.tail === NONE)).toBe(true);
    expect(last.read!.pages.every((p) => p.head === NONE || p.head === last.request)).toBe(true);
  });
});

describe('counterexamples', () => {
  it('the incident leak: B (tenant 2) is answered 200 over A\'s stale KV after a one-page placeholder transfer', () => {
    const ce = explore(cfg('incident')).verdicts.confidentiality.counterexample!;
    expect(ce.length).toBe(13);
    expect(ce.steps).toHaveLength(13);
    const labels = ce.steps.map((s) => s.label);
    expect(labels.some((l) => l.includes('prefill marks B aborted') && l.includes('1 placeholder token'))).toBe(true);
    expect(labels.some((l) => l.includes('reserves d0,d1,d2 for B'))).toBe(true);
    expect(labels.some((l) => l.includes('done(room B, Success)') && l.includes('1 of 1'))).toBe(true);
    const last = ce.steps[ce.steps.length - 1]!;
    expect(last.kind).toBe('decode-done');
    expect(last.read?.request).toBe(1);
    // Page 0 carries the placeholder plus stale slots; page 1 is wholly another tenant's.
    expect(last.read?.pages).toEqual([
      { page: 0, head: 1, tail: 0 },
      { page: 1, head: 0, tail: 0 },
      { page: 2, head: NONE, tail: NONE },
    ]);
    expect(last.violation).toMatch(/tenant 1/);
  });

  it('the race: a late write from an aborted request lands in the next owner\'s page', () => {
    const ce = explore(cfg('abort-race')).verdicts.confidentiality.counterexample!;
    expect(ce.length).toBe(11);
    expect(ce.steps.some((s) => s.label.includes('late write'))).toBe(true);
    expect(ce.steps.map((s) => s.kind)).toContain('decode-abort');
  });

  it('the race survives the transferred-length check and clear-on-free: neither sees a late write', () => {
    const race = cfg('abort-race');
    for (const m of [{ transferredLengthCheck: true }, { clearPagesOnFree: true }]) {
      const r = explore({ ...race, mitigations: { ...race.mitigations, ...m } });
      expect(r.verdicts.confidentiality.holds).toBe(false);
    }
  });

  for (const [id, property] of [
    ['incident', 'confidentiality'],
    ['incident', 'integrity'],
    ['clear-on-free', 'integrity'],
    ['abort-race', 'confidentiality'],
  ] as const) {
    it(`${id}/${property}: breadth-first finds a shortest counterexample (checked by bounded depth-first search)`, () => {
      const c = cfg(id);
      const ce = explore(c).verdicts[property].counterexample!;
      expect(violatedWithin(c, property, ce.length)).toBe(true);
      expect(violatedWithin(c, property, ce.length - 1)).toBe(false);
    });
  }

  it('a counterexample replays: every step is a real transition and ends in the recorded state', () => {
    const c = cfg('incident');
    const ce = explore(c).verdicts.confidentiality.counterexample!;
    let s = ce.initial;
    const choices: number[] = [];
    for (const step of ce.steps) {
      const next = successors(c, s);
      const k = next.findIndex((t) => t.label === step.label && encodeState(t.next) === encodeState(step.state));
      expect(k).toBeGreaterThanOrEqual(0);
      choices.push(k);
      s = step.state;
    }
    expect(replay(c, choices).steps.map((st) => st.label)).toEqual(ce.steps.map((st) => st.label));
  });
});

describe('the explorer catches injected bugs', () => {
  const mutants: [Mutation, PropertyId][] = [
    ['decode-frees-early', 'exclusiveOwnership'],
    ['double-allocation', 'exclusiveOwnership'],
    ['success-without-send', 'integrity'],
  ];
  for (const [mutation, property] of mutants) {
    it(`${mutation} in the otherwise safe fixed configuration breaks ${property}`, () => {
      const base = cfg('fixed');
      expect(isSafe(explore(base))).toBe(true);
      const r = explore({ ...base, mutation });
      expect(r.verdicts[property].holds).toBe(false);
      const ce = r.verdicts[property].counterexample!;
      expect(ce.steps[ce.steps.length - 1]!.violation).toBeTruthy();
      expect(violatedWithin({ ...base, mutation }, property, ce.length - 1)).toBe(false);
    });
  }

  it('prefill reporting Success early in the fixed configuration also leaks another tenant\'s KV', () => {
    const r = explore({ ...cfg('fixed'), mutation: 'success-without-send' });
    expect(r.verdicts.confidentiality.holds).toBe(false);
  });
});

describe('determinism', () => {
  it('state and transition counts are the same on every run', () => {
    const counts = () => CHECKED_CONFIGS.map(({ config }) => {
      const r = explore(config);
      return [config.id, r.statesExplored, r.transitions, r.depth];
    });
    const first = counts();
    expect(counts()).toEqual(first);
    // Pinned: a change to the model shows up here and must be explained in docs/VERIFY.md.
    expect(Object.fromEntries(first.map(([id, states]) => [id, states]))).toEqual({
      incident: 195,
      fixed: 82,
      retire: 184,
      'no-gap': 215,
      'length-check': 195,
      'per-read': 195,
      'clear-on-free': 178,
      'deploy-check': 1,
      'zero-on-allocate': 193,
      chunked: 195,
      'tokenizer-sglang': 195,
      'staged-free-list': 195,
      unchunked: 175,
      'abort-race': 2128,
      'abort-fenced': 1848,
      'abort-race-per-read': 2152,
    });
  });

  it('the state cap stops the search and says the result is incomplete', () => {
    const r = explore(cfg('abort-race'), { maxStates: 100 });
    expect(r.complete).toBe(false);
    expect(r.statesExplored).toBe(100);
    expect(isSafe(r)).toBe(false);
  });
});
