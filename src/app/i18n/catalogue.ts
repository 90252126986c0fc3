/**
 * The catalogue as the page holds it: English, the language every key is written in first and the
 * fallback of every lookup, comes with the first screen; French is loaded the first time it is
 * asked for (a page opened in French asks before its first render: main.tsx). Both tables are
 * messages.ts's MESSAGES, typeset, which the build splits into one module per language
 * (scripts/catalogueChunks.ts): messages.ts stays the one place the text is written and checked.
 */
/// <reference path="./catalogue.d.ts" />
import english from 'virtual:catalogue/en';
import type { Language, MessageKey } from './messages.ts';
import { fill } from './text.ts';

type Table = Record<MessageKey, string>;

const LOADERS: Record<Exclude<Language, 'en'>, () => Promise<{ default: Table }>> = {
  fr: () => import('virtual:catalogue/fr'),
};

const tables: Partial<Record<Language, Table>> = { en: english };
const pending = new Map<Language, Promise<void>>();
const listeners = new Set<() => void>();
let loadedCount = 1;

export function languageLoaded(lang: Language): boolean {
  return tables[lang] !== undefined;
}

/** Loads a language's table once; the promise rejects (and a later call retries) if its module cannot be fetched. */
export function loadLanguage(lang: Language): Promise<void> {
  if (lang === 'en' || tables[lang]) return Promise.resolve();
  let loading = pending.get(lang);
  if (!loading) {
    loading = LOADERS[lang]().then(
      (m) => {
        tables[lang] = m.default;
        loadedCount++;
        for (const listener of listeners) listener();
      },
      (error: unknown) => {
        pending.delete(lang);
        throw new Error(`The ${lang} text of the page could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
    pending.set(lang, loading);
  }
  return loading;
}

/** For React's useSyncExternalStore: changes each time a language arrives. */
export function subscribeCatalogue(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
export const catalogueVersion = (): number => loadedCount;

/** A catalogue entry with its `{placeholders}` filled; in English while the language's table is not there yet. */
export function translate(lang: Language, key: MessageKey, vars?: Record<string, string>): string {
  return fill(tables[lang]?.[key] ?? english[key], vars);
}
