import { describe, expect, it } from 'vitest';
import { InputError, parseConfigFile, parseTrace } from './schema.ts';
import { simulate } from './simulation.ts';
import { INCIDENT_CONFIG } from './config.ts';
import { MAX_VOCABULARY } from './vocab.ts';

const problemsOf = (f: () => unknown): string[] => {
  try {
    f();
  } catch (e) {
    if (e instanceof InputError) return e.problems;
    throw e;
  }
  throw new Error('no InputError');
};

describe('config files', () => {
  it('refuse anything but a JSON object, saying what they got', () => {
    expect(problemsOf(() => parseConfigFile([], 'c.json'))).toEqual(['(top level): a config must be a JSON object, got an array']);
    expect(problemsOf(() => parseConfigFile([{ pageSize: 16 }], 'c.json'))).toEqual(['(top level): a config must be a JSON object, got an array']);
    expect(problemsOf(() => parseConfigFile(null, 'c.json'))).toEqual(['(top level): a config must be a JSON object, got null']);
    expect(problemsOf(() => parseConfigFile(64, 'c.json'))).toEqual(['(top level): a config must be a JSON object, got a number']);
    expect(parseConfigFile({}, 'c.json')).toEqual({});
  });
});

describe('trace files', () => {
  const base = { version: 1, tenants: [{ name: 'acme' }, { name: 'borealis' }], requests: [{ id: 'a1', at: 0, tenant: 'acme', promptTokens: 10 }] };

  it('refuse an array', () => {
    expect(problemsOf(() => parseTrace([base], 't.json'))).toEqual(['(top level): a trace must be a JSON object, got an array']);
  });

  it('name the tenant listed twice, and both places', () => {
    const problems = problemsOf(() => parseTrace({ ...base, tenants: [{ name: 'acme' }, { name: 'borealis' }, { name: 'acme' }] }, 't.json'));
    expect(problems).toEqual(['tenants.2.name: tenant "acme" is already listed as tenants.0; tenant names must be unique']);
  });

  it('name the request and the tenant it names when that tenant is not listed', () => {
    const requests = [{ id: 'a1', at: 0, tenant: 'acme', promptTokens: 10 }, { at: 5, tenant: 'nobody', promptTokens: 10 }, { id: 'x', at: 6, tenant: 'zed', promptTokens: 1 }];
    expect(problemsOf(() => parseTrace({ ...base, requests }, 't.json'))).toEqual([
      'requests.1.tenant: request "r1" names tenant "nobody", which is not in tenants',
      'requests.2.tenant: request "x" names tenant "zed", which is not in tenants',
    ]);
  });

  it('name the text that takes the vocabulary past what the model takes; a trace just under it runs', () => {
    const words = (from: number, n: number) => Array.from({ length: n }, (_, i) => `w${from + i}`).join(' ');
    // ~1,100 distinct words: valid for the schema, too many for the decode model.
    const tooMany = { ...base, requests: [...base.requests, { id: 'big', at: 1, tenant: 'borealis', promptTokens: 2000, text: words(0, 1100) }] };
    const problems = problemsOf(() => parseTrace(tooMany, 't.json'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^requests\\.1\\.text: takes the vocabulary past the decode model's 1,024 distinct words .*need 1,\\d{3}$`));
    // The engine refuses the same trace itself, naming the same field, rather than failing deep inside.
    expect(() => simulate(INCIDENT_CONFIG, tooMany as never)).toThrow(/requests\.1\.text takes the vocabulary past the decode model's 1,024 words/);
    // Fill up to the limit exactly: accepted, and it runs.
    const builtIn = 100 + 4; // 3 special + 96 shared + 'at', and two tenants' names and canaries
    const fits = { ...base, requests: [...base.requests, { id: 'big', at: 1, tenant: 'borealis', promptTokens: 2000, text: words(0, MAX_VOCABULARY - builtIn) }] };
    const trace = parseTrace(fits, 't.json');
    const sim = simulate(INCIDENT_CONFIG, trace, { keepEvents: false });
    expect(sim.vocab.size).toBe(MAX_VOCABULARY);
    expect(sim.responses).toHaveLength(2);
    const over = { ...base, requests: [...base.requests, { id: 'big', at: 1, tenant: 'borealis', promptTokens: 2000, text: words(0, MAX_VOCABULARY - builtIn + 1) }] };
    expect(problemsOf(() => parseTrace(over, 't.json'))[0]).toMatch(/^requests\.1\.text: .*need 1,025$/);
  });

  it('refuse a text with no words', () => {
    expect(problemsOf(() => parseTrace({ ...base, tenants: [{ name: 'acme', text: ' ' }, { name: 'borealis' }] }, 't.json'))).toEqual(['tenants.0.text: has no words']);
  });
});
