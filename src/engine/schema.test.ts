import { describe, expect, it } from 'vitest';
import { InputError, parseConfigFile, parseTrace } from './schema.ts';
import { simulate } from './simulation.ts';
import { INCIDENT_CONFIG } from './config.ts';
import { MAX_VOCABULARY } from './core/vocab.ts';

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

describe('config files: the upstream mechanics', () => {
  it('take a chunk size and a tokenizer rule, and say what is wrong with a bad one', () => {
    expect(parseConfigFile({ prefillChunkTokens: 4096, tokenizerRule: 'sglang' }, 'c.json')).toEqual({ prefillChunkTokens: 4096, tokenizerRule: 'sglang' });
    expect(parseConfigFile({ prefillChunkTokens: 0 }, 'c.json')).toEqual({ prefillChunkTokens: 0 });
    expect(problemsOf(() => parseConfigFile({ prefillChunkTokens: -1 }, 'c.json'))).toEqual(['prefillChunkTokens: must be 0 (no chunked prefill) or a positive number of tokens per chunk']);
    expect(problemsOf(() => parseConfigFile({ prefillChunkTokens: 1.5 }, 'c.json'))).toEqual(['prefillChunkTokens: must be a whole number of tokens per chunk (0: no chunked prefill)']);
    expect(problemsOf(() => parseConfigFile({ prefillChunkTokens: '8192' }, 'c.json'))).toEqual(['prefillChunkTokens: must be a number of tokens per chunk (0: no chunked prefill)']);
    expect(problemsOf(() => parseConfigFile({ prefillChunkTokens: 2e7 }, 'c.json'))).toEqual(['prefillChunkTokens: must be at most 16,777,216 tokens per chunk']);
    expect(problemsOf(() => parseConfigFile({ tokenizerRule: 'upstream' }, 'c.json'))).toEqual(['tokenizerRule: must be "report" (the advertised context admits it) or "sglang" (upstream\u2019s tokenizer manager)']);
    expect(problemsOf(() => parseConfigFile({ timing: { abortNoticeMs: -3 } }, 'c.json'))).toEqual(['timing.abortNoticeMs: must be 0 or more (milliseconds)']);
  });

  it("take SGLang's --disable-overlap-schedule as a boolean", () => {
    expect(parseConfigFile({ disableOverlapSchedule: true }, 'c.json')).toEqual({ disableOverlapSchedule: true });
    expect(problemsOf(() => parseConfigFile({ disableOverlapSchedule: 'yes' }, 'c.json'))).toEqual(['disableOverlapSchedule: must be true (SGLang\u2019s --disable-overlap-schedule: T \u2212 1 decode steps) or false (its default overlap scheduler: T steps)']);
  });

  it('refuse a cancellation before the request arrives, naming it', () => {
    const trace = { version: 1, tenants: [{ name: 'acme' }], requests: [{ id: 'a', at: 10, tenant: 'acme', promptTokens: 5, cancelAt: 5 }] };
    expect(problemsOf(() => parseTrace(trace, 't.json'))).toEqual(['requests.0.cancelAt: request "a" is cancelled at 5 ms, before it arrives at 10 ms']);
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
