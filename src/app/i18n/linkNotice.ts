/**
 * The notice naming what a link had that this page ignored, in the page's language. The URL codec
 * (state/url.ts) says what each item is; the words are the catalogue's.
 */
import type { IgnoredParam } from '../state/url.ts';
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
  }
}

export function linkNotice(lang: Language, ignored: readonly IgnoredParam[]): string {
  return translate(lang, 'ignoredInLink', { list: ignored.map((item) => itemText(lang, item)).join(lang === 'fr' ? '\u202f; ' : '; ') });
}
