import { describe, expect, it } from 'vitest';
import { CHAPTERS } from './index.ts';
import { shownTitle, spoilerOf, titleHeldFor } from './spoilers.ts';

const fold = (s: string) => s.toLowerCase();

describe('what gives a question away', () => {
  it('is read from the chapter: its held paragraphs, its explanation, the titles held for it, the customers its answer names', () => {
    CHAPTERS.forEach((ch, i) => {
      const s = spoilerOf(i + 1);
      if (!ch.checkpoint) return expect(s).toBeNull();
      expect(s!.phrases).toContainEqual(ch.checkpoint.explain);
      for (const p of ch.paragraphs.filter((x) => x.answers)) expect(s!.phrases).toContainEqual(p.text);
      const answer = ch.checkpoint.options.find((o) => o.id === ch.checkpoint!.answer)!;
      for (const t of s!.tenants) expect(fold(answer.label.en)).toContain(t);
    });
    // Chapter 6's answer names two customers; the others name none.
    expect(spoilerOf(CHAPTERS.findIndex((c) => c.id === 'mixed-response') + 1)!.tenants).toEqual(['acme', 'borealis']);
  });

  it('a title that would answer waits for its question: its question-shaped form until then, its own after', () => {
    let held = 0;
    CHAPTERS.forEach((ch, i) => {
      const m = i + 1;
      const k = titleHeldFor(m);
      if (!ch.asked) return expect(k).toBeNull();
      held++;
      expect(k).not.toBeNull();
      expect(k!).toBeLessThanOrEqual(m);
      expect(CHAPTERS[k! - 1]!.checkpoint).toBeDefined();
      // The last question at or before it.
      for (let j = k! + 1; j <= m; j++) expect(CHAPTERS[j - 1]!.checkpoint).toBeUndefined();
      expect(ch.asked.en).not.toBe(ch.title.en);
      expect(ch.asked.fr).not.toBe(ch.title.fr);
      expect(shownTitle(m, () => false)).toBe(ch.asked);
      expect(shownTitle(m, (n) => n !== k)).toBe(ch.asked);
      expect(shownTitle(m, (n) => n === k)).toBe(ch.title);
      expect(spoilerOf(k!)!.phrases).toContainEqual(ch.title);
    });
    expect(held).toBeGreaterThan(0);
    // A chapter whose title gives nothing away shows it whatever is answered.
    const plain = CHAPTERS.findIndex((c) => !c.asked) + 1;
    expect(shownTitle(plain, () => false)).toBe(CHAPTERS[plain - 1]!.title);
  });
});
