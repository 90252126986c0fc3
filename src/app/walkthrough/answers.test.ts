import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAnswers, serializeAnswers, type Answer } from './answers.ts';
import { CHAPTERS } from './chapters/index.ts';

const asking = CHAPTERS.flatMap((c, i) => (c.checkpoint ? [{ n: i + 1, options: c.checkpoint.options.map((o) => o.id) }] : []));

describe('kept answers', () => {
  it('read back as they were written, for any answers to the chapters that ask', () => {
    const one = fc.oneof(...asking.map((q) => fc.tuple(fc.constant(q.n), fc.option(fc.constantFrom(...q.options), { nil: null }))));
    fc.assert(
      fc.property(fc.array(one), (pairs) => {
        const answers = new Map<number, Answer>(pairs);
        expect(parseAnswers(serializeAnswers(answers))).toEqual(answers);
      }),
    );
  });
  it('drop what no question asks: a chapter without one, an option it has not, a broken value', () => {
    const [q] = asking;
    const none = CHAPTERS.findIndex((c) => !c.checkpoint) + 1;
    expect(parseAnswers(JSON.stringify({ [q!.n]: 'no-such-option', [none]: null, 99: null, x: q!.options[0] }))).toEqual(new Map());
    expect(parseAnswers(JSON.stringify({ [q!.n]: q!.options[0], [asking[1]!.n]: 7 }))).toEqual(new Map([[q!.n, q!.options[0]]]));
    for (const bad of ['{', '[]', '"x"', 'null', '', null]) expect(parseAnswers(bad)).toEqual(new Map());
  });
});
