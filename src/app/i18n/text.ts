/**
 * The catalogue's small text functions, apart from its tables so that code can use them without
 * loading either language's text (the page loads French only when it is asked for: catalogue.ts).
 */
import type { Language } from './messages.ts';
import { isSingular } from './format.ts';

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

/**
 * The catalogue's grammar, in one place, so that no entry has to get it right by hand:
 *
 * - A count's words agree with the count. `{n#s}` after `{n}` is "s" unless the count takes the
 *   singular in the page's language (1 in English; 0 and 1 in French: « 0 réponse touchée »,
 *   « 1 page de plus »), and `{n#one|other}` picks between two words: « {n} réponse{n#s}
 *   touchée{n#s} », "{n} {n#page|pages}". The count is read from the filled value, as formatNumber
 *   wrote it (« 14 459 », "14,459").
 * - French elides before a vowel: « de {tenant} » reads « d’acme » when the name starts with a
 *   vowel, and « que {x} » « qu’iris ».
 *
 * A catalogue test (i18n.test.ts) keeps every entry to these rules. Times take « à » in French from
 * formatUtc (format.ts), never from an entry.
 */
const PLACEHOLDER = /\{(\w+)(?:#([^{}]*))?\}/g;
const ELIDES = /(^|[^\p{L}])([dD]e|[qQ]ue) $/u;
const VOWEL_START = /^[aeiouyàâäéèêëîïôöùûüœæ]/i;

/** The count a filled value starts with, in the page's language (« 14 459 » → 14459, "1,048,576" → 1048576); NaN if none. */
export function countOf(value: string, lang: Language): number {
  const m = /^[−-]?\d[\d\u00a0\u202f ,.]*/.exec(value.trim());
  if (!m) return NaN;
  const digits = m[0].replace(/[\u00a0\u202f ]/g, '').replace('−', '-').replace(/[.,]$/, '');
  return Number(lang === 'fr' ? digits.replace(/\./g, '').replace(',', '.') : digits.replace(/,/g, ''));
}

/** One of a count's words: `{n#s}` ("" or "s"), `{n#one|other}`. */
function countWord(spec: string, value: string | undefined, lang: Language): string {
  const bar = spec.indexOf('|');
  const [one, other] = bar < 0 ? ['', spec] : [spec.slice(0, bar), spec.slice(bar + 1)];
  return value !== undefined && isSingular(countOf(value, lang), lang) ? one : other;
}

/** A template cut into its text (grammar applied) and its placeholders, for `fill` and for `<Tx>`. */
export type Piece = string | { name: string };

/**
 * Cuts an entry into text and placeholders, with the count words chosen and French elision made
 * from each placeholder's text (`textOf`, undefined when the caller gives no value: the placeholder
 * is then kept as written).
 */
export function fillPieces(template: string, lang: Language, textOf: (name: string) => string | undefined): Piece[] {
  const out: Piece[] = [];
  let text = '';
  for (const part of parsed(template)) {
    if (typeof part === 'string') {
      text += part;
      continue;
    }
    const value = textOf(part.name);
    if (part.count !== undefined) {
      text += countWord(part.count, value, lang);
      continue;
    }
    if (value === undefined) {
      text += part.raw;
      continue;
    }
    if (lang === 'fr' && VOWEL_START.test(value)) text = text.replace(ELIDES, (_, before: string, word: string) => `${before}${word.slice(0, -1)}\u2019`);
    if (text) out.push(text);
    out.push({ name: part.name });
    text = '';
  }
  if (text) out.push(text);
  return out;
}

/** A template's text and placeholders (`count`: a count word's spec, `{n#s}`), as written. */
type TemplatePart = string | { name: string; count: string | undefined; raw: string };

/**
 * Templates cut once: the catalogue holds a few hundred, and a view that re-renders every frame (the
 * stage playing) fills the same ones hundreds of times a second.
 */
const parsedTemplates = new Map<string, TemplatePart[]>();

function parsed(template: string): TemplatePart[] {
  let parts = parsedTemplates.get(template);
  if (parts) return parts;
  parts = [];
  let last = 0;
  for (const m of template.matchAll(PLACEHOLDER)) {
    if (m.index > last) parts.push(template.slice(last, m.index));
    parts.push({ name: m[1]!, count: m[2], raw: m[0] });
    last = m.index + m[0].length;
  }
  if (last < template.length) parts.push(template.slice(last));
  // Templates are the catalogue's (and a few built in code): bounded; a runaway caller would not grow it past this.
  if (parsedTemplates.size < 5000) parsedTemplates.set(template, parts);
  return parts;
}

/** A catalogue entry with its `{placeholders}` filled, its count words and French elisions made (fillPieces). */
export function fill(template: string, vars: Record<string, string> | undefined, lang: Language): string {
  return fillPieces(template, lang, (name) => vars?.[name])
    .map((p) => (typeof p === 'string' ? p : vars![p.name]))
    .join('');
}
