/**
 * The catalogue's small text functions, apart from its tables so that code can use them without
 * loading either language's text (the page loads French only when it is asked for: catalogue.ts).
 */
import type { Language } from './messages.ts';

/**
 * French typography: the typographic apostrophe (l’article), a no-break space before « : » and
 * inside guillemets, a narrow one before « ; ! ? », so punctuation never starts a line. Applied to the catalogue's French and to the
 * chapters' French when shown; never to a quote of the report, which stays as the article prints it.
 */
export function frenchTypography(s: string): string {
  return s
    .replace(/(\p{L})'(?=\p{L})/gu, '$1\u2019')
    .replace(/ ([:»])/g, '\u00a0$1')
    .replace(/« /g, '«\u00a0')
    .replace(/ ([;!?])/g, '\u202f$1');
}

/** A text given in both languages, in the page's (French typeset): for facts, chapters and assumptions. */
export function pick(lang: Language, en: string, fr: string): string {
  return lang === 'fr' ? frenchTypography(fr) : en;
}

/** A catalogue entry with its `{placeholders}` filled. */
export function fill(template: string, vars?: Record<string, string>): string {
  let s = template;
  if (vars) for (const [k, v] of Object.entries(vars)) s = s.replaceAll(`{${k}}`, v);
  return s;
}
