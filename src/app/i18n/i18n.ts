/**
 * UI text for React: the catalogue (messages.ts, both languages) and the hook that picks the page's
 * language. `{name}` placeholders are filled by `t(key, { name })`; `<Tx>` fills them with elements.
 * Incident facts are not here: they come from the facts file.
 */
import { Fragment, createElement, useCallback, type ReactNode } from 'react';
import { useApp } from '../state/store.ts';
import { translate, type MessageKey, type Translate } from './messages.ts';

export { MESSAGES, SAME_IN_BOTH, frenchTypography, pick, translate, type BaseKey, type Language, type MessageKey, type Translate } from './messages.ts';

export function useT(): Translate {
  const lang = useApp((s) => s.lang);
  return useCallback((key, vars) => translate(lang, key, vars), [lang]);
}

/**
 * A catalogue entry whose placeholders are elements (a bold name, a test id on a number):
 * `<Tx k="decodeResult" vars={{ tenant: <b>{name}</b> }} />`. Text outside the placeholders is the
 * catalogue's, in the page's language.
 */
export function Tx({ k, vars }: { k: MessageKey; vars: Record<string, ReactNode> }) {
  const lang = useApp((s) => s.lang);
  const template = translate(lang, k);
  const out: ReactNode[] = [];
  let last = 0;
  for (const m of template.matchAll(/\{(\w+)\}/g)) {
    if (m.index > last) out.push(template.slice(last, m.index));
    out.push(m[1]! in vars ? vars[m[1]!] : m[0]);
    last = m.index + m[0].length;
  }
  if (last < template.length) out.push(template.slice(last));
  return createElement(Fragment, null, ...out.map((node, i) => createElement(Fragment, { key: i }, node)));
}
