/** A word the story needs, glossed where it first appears: the term, then a short definition. */
import type { MessageKey } from '../../i18n/messages.ts';
import { useT } from '../../i18n/i18n.ts';

export function Term({ term, gloss, vars }: { term: MessageKey; gloss: MessageKey; vars?: Record<string, string> }) {
  const t = useT();
  return (
    <>
      <dfn className="term">{t(term)}</dfn>
      <span className="gloss"> ({t(gloss, vars)})</span>
    </>
  );
}
