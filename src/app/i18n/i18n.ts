/**
 * UI text for React: the catalogue (catalogue.ts: the page's language before its first render, another when shown) and the hook
 * that picks the page's language. `{name}` placeholders are filled by `t(key, { name })`; `<Tx>` fills them with elements.
 * Incident facts are not here: they come from the facts file.
 */
import { Fragment, createElement, isValidElement, useCallback, useSyncExternalStore, type ReactNode } from 'react';
import { useApp, type AppStore } from '../state/store.ts';
import { catalogueVersion, languageLoaded, loadLanguage, setPageLanguage, subscribeCatalogue, templateOf, translate } from './catalogue.ts';
import type { Language, MessageKey, Translate } from './messages.ts';
import { fillPieces } from './text.ts';

export { translate } from './catalogue.ts';
export { frenchTypography, pick } from './text.ts';
export type { BaseKey, Language, MessageKey, Translate } from './messages.ts';

/**
 * Switches the page's language once its text is there, so that no view shows the new language half
 * translated; if the text cannot be loaded the page stays in its language and says why.
 */
export function setLanguage(store: AppStore, lang: Language): void {
  void loadLanguage(lang).then(
    () => store.getState().set({ lang }),
    (error: unknown) => store.getState().notify(error instanceof Error ? error.message : String(error)),
  );
}

/**
 * However the store's language changes (a link, the back button, a chapter), its text is fetched;
 * views re-render through useLanguage when it arrives. Returns the function that stops following.
 */
export function followLanguage(store: AppStore): () => void {
  const follow = (lang: Language) => {
    setPageLanguage(lang);
    if (!languageLoaded(lang)) loadLanguage(lang).catch((error: unknown) => store.getState().notify(error instanceof Error ? error.message : String(error)));
  };
  follow(store.getState().lang);
  return store.subscribe((s, prev) => {
    if (s.lang !== prev.lang) follow(s.lang);
  });
}

/** The page's language, and the catalogue's version: a view re-renders when a language's text arrives. */
function useLanguage(): [Language, number] {
  return [useApp((s) => s.lang), useSyncExternalStore(subscribeCatalogue, catalogueVersion)];
}

export function useT(): Translate {
  const [lang, version] = useLanguage();
  // A new function when the text arrives, so that memoised views taking `t` re-render too.
  return useCallback((key, vars) => translate(lang, key, vars), [lang, version]);
}

/**
 * A catalogue entry whose placeholders are elements (a bold name, a test id on a number):
 * `<Tx k="decodeResult" vars={{ tenant: <b>{name}</b> }} />`. Text outside the placeholders is the
 * catalogue's, in the page's language.
 */
export function Tx({ k, vars }: { k: MessageKey; vars: Record<string, ReactNode> }) {
  const [lang] = useLanguage();
  const pieces = fillPieces(templateOf(lang, k), lang, (name) => (name in vars ? nodeText(vars[name]) : undefined));
  const out = pieces.map((p) => (typeof p === 'string' ? p : vars[p.name]));
  return createElement(Fragment, null, ...out.map((node, i) => createElement(Fragment, { key: i }, node)));
}

/** The text a node shows, for the catalogue's grammar (a count's words, French elision): its strings, in order. */
function nodeText(node: ReactNode): string {
  if (typeof node === 'string' || typeof node === 'number') return String(node);
  if (Array.isArray(node)) return node.map(nodeText).join('');
  if (isValidElement<{ children?: ReactNode }>(node)) return nodeText(node.props.children);
  return '';
}
