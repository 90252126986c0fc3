import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FactIndex, parseFactsFile } from '../../data/facts.ts';
import { CHAPTERS } from './chapters/index.ts';

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
});
