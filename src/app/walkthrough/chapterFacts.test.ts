import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FactIndex, parseFactsFile } from '../../data/facts.ts';
import { CHAPTERS } from './chapters/index.ts';
import { QUIZ } from './chapters/quiz.ts';

const facts = new FactIndex(parseFactsFile(JSON.parse(readFileSync(new URL('../../../public/facts.json', import.meta.url), 'utf8'))));

describe('walkthrough text and the facts file', () => {
  it('every figure a fact-citing paragraph states is stated by a fact it cites', () => {
    for (const ch of CHAPTERS) {
      for (const p of ch.paragraphs) {
        if (!('facts' in p.evidence)) continue;
        const cited = p.evidence.facts.map((id) => facts.byId.get(id));
        expect(cited.every(Boolean), `${ch.id}: cites an unknown fact`).toBe(true);
        const source = cited.map((f) => `${f!.en} ${(f!.figures ?? []).map((g) => g.value.toLocaleString('en-US')).join(' ')}`).join(' ');
        // Large figures only (counts, token sizes): small numbers such as "one page" are prose.
        for (const n of p.text.en.match(/\d{1,3}(,\d{3})+|\d{3,}/g) ?? []) {
          expect(source, `${ch.id}: "${n}" in "${p.text.en}"`).toContain(n);
        }
      }
    }
  });

  it('the room\u2019s three questions rest on facts that exist, and their figures are the facts\u2019', () => {
    expect(QUIZ).toHaveLength(3);
    for (const q of QUIZ) {
      const cited = q.facts.map((id) => facts.byId.get(id));
      expect(cited.every(Boolean), `${q.question.en}: cites an unknown fact`).toBe(true);
      expect(q.answer).toBeGreaterThanOrEqual(0);
      expect(q.answer).toBeLessThan(q.options.length);
      expect(q.options.every((o) => o.en !== o.fr)).toBe(true);
      const source = cited.map((f) => f!.en).join(' ');
      for (const n of q.options[q.answer]!.en.match(/\d{1,3}(,\d{3})+|\d{3,}/g) ?? []) expect(source).toContain(n);
    }
  });
});
