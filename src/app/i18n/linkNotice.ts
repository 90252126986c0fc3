/**
 * The notice naming what a link had that this page ignored, in the page's language. The URL codec
 * (state/url.ts) says what each item is; the words are the catalogue's.
 */
import { LINK_MAX_CHARS, type IgnoredParam } from '../state/url.ts';
import { formatNumber } from './format.ts';
import { translate } from './catalogue.ts';
import type { Language } from './messages.ts';

function itemText(lang: Language, item: IgnoredParam): string {
  switch (item.kind) {
    case 'malformed':
      return `${item.name}=${item.value}`;
    case 'unknown':
      return translate(lang, 'urlUnknown', { name: item.name });
    case 'version':
      return translate(lang, 'urlVersion', { v: item.value, current: String(item.current) });
    case 'needs':
      return translate(lang, 'urlNeeds', { item: `${item.name}=${item.value}`, needs: item.needs });
    case 'too-long':
    case 'not-written':
      return '';
  }
}

export function linkNotice(lang: Language, ignored: readonly IgnoredParam[]): string {
  // A whole link too long, or state too long to write: a sentence of its own, not an item of a list.
  const long = ignored.find((x) => x.kind === 'too-long');
  if (long && long.kind === 'too-long') return translate(lang, 'urlTooLong', { length: formatNumber(long.length, lang), max: formatNumber(long.max, lang) });
  const notWritten = ignored.filter((x) => x.kind === 'not-written');
  if (notWritten.length > 0) return translate(lang, 'urlNotWritten', { list: notWritten.map((x) => x.name).join(', '), max: formatNumber(LINK_MAX_CHARS, lang) });
  return translate(lang, 'ignoredInLink', { list: ignored.map((item) => itemText(lang, item)).join(lang === 'fr' ? '\u202f; ' : '; ') });
}
