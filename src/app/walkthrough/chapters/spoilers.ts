/**
 * What would give a chapter's question away, read from the chapters' own data, and the titles shown
 * while it waits. Until a question is revealed nothing on screen may say its answer: a title that
 * states an answer (`asked` in chapter.ts) shows its question-shaped form until the question it would
 * answer is revealed, and the spoiler test (e2e/spoilers.spec.ts) looks for `spoilerOf`'s
 * phrases and tenants on the page from a chapter's start to its reveal.
 */
import { TENANT_NAMES } from '../../../engine/core/vocab.ts';
import type { Chapter } from './chapter.ts';
import { CHAPTERS } from './index.ts';
import type { Localised } from './steps.ts';

/**
 * The question chapter m's title waits for: the last one asked at or before it (its own, or one its
 * title would answer before its chapter comes: chapter 5's "one page written" answers chapter 4's).
 * Null: none, or a title that gives nothing away.
 */
export function titleHeldFor(m: number, chapters: readonly Chapter[] = CHAPTERS): number | null {
  if (!chapters[m - 1]?.asked) return null;
  for (let k = m; k >= 1; k--) if (chapters[k - 1]!.checkpoint) return k;
  return null;
}

/** Chapter m's title as shown: its question-shaped form until the question it waits for is revealed. */
export function shownTitle(m: number, revealed: (n: number) => boolean, chapters: readonly Chapter[] = CHAPTERS): Localised {
  const k = titleHeldFor(m, chapters);
  return k !== null && !revealed(k) ? chapters[m - 1]!.asked! : chapters[m - 1]!.title;
}

/** What says question n's answer: sentences (in both languages) and the customers it names. */
export interface Spoiler {
  /** Whole sentences that say the answer: the paragraphs held for it, the explanation, the titles held back for it. */
  phrases: Localised[];
  /** The customers (of the engine's tenant names) the right option names: their names and colours give it away. */
  tenants: string[];
}

/** Question n's spoiler (null: chapter n asks none). */
export function spoilerOf(n: number, chapters: readonly Chapter[] = CHAPTERS): Spoiler | null {
  const ch = chapters[n - 1];
  const cp = ch?.checkpoint;
  if (!ch || !cp) return null;
  const answer = cp.options.find((o) => o.id === cp.answer)!;
  const named = new Set(answer.label.en.toLowerCase().match(/[a-z]+/g) ?? []);
  const others = new Set(cp.options.filter((o) => o !== answer).flatMap((o) => o.label.en.toLowerCase().match(/[a-z]+/g) ?? []));
  return {
    phrases: [
      ...ch.paragraphs.filter((p) => p.answers).map((p) => p.text),
      cp.explain,
      // The titles held back until this question is revealed (its own, a later chapter's).
      ...chapters.flatMap((c, i) => (titleHeldFor(i + 1, chapters) === n ? [c.title] : [])),
    ],
    tenants: TENANT_NAMES.filter((t) => named.has(t) && !others.has(t)),
  };
}
