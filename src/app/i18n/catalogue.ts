/**
 * The catalogue as the page holds it, each language in two parts (scripts/catalogueChunks.ts): the
 * entries the first screen can show, and the rest. The page loads its language's first part before
 * its first render (main.tsx): a page opened in French loads the French part only, which the build
 * completes with English for any first-screen entry French lacks, so it never downloads the English
 * table it would not show. English is the fallback of every lookup once loaded. The later parts come
 * with the views that need them: every lazy view of the page loads through `withLaterText`, and the
 * page asks for them once its first screen is drawn (App.tsx). Both tables are messages.ts's
 * MESSAGES, typeset: messages.ts stays the one place the text is written and checked.
 */
/// <reference path="./catalogue.d.ts" />
import type { Language, MessageKey } from './messages.ts';
import { trackPending } from '../state/settled.ts';
import { fill } from './text.ts';

type Table = Partial<Record<MessageKey, string>>;
type Part = 'first' | 'later';
type Loader = () => Promise<{ default: Table }>;

const LOADERS: Record<Language, Partial<Record<Part, Loader>>> = {
  en: { first: () => import('virtual:catalogue/en'), later: () => import('virtual:catalogue/en/later') },
  fr: { first: () => import('virtual:catalogue/fr'), later: () => import('virtual:catalogue/fr/later') },
};

/** What a lookup shows while the part of the catalogue that holds its entry is on its way. */
export const TEXT_PENDING = '…';

const tables: Record<Language, Table> = { en: {}, fr: {} };
const loaded = new Set<string>();
const pending = new Map<string, Promise<void>>();
const listeners = new Set<() => void>();
let loadedCount = 0;
/** Set once the later text has been asked for: a language switched to afterwards comes whole. */
let laterWanted = false;

function loadPart(lang: Language, part: Part): Promise<void> {
  const name = `${lang} ${part}`;
  if (loaded.has(name)) return Promise.resolve();
  let loading = pending.get(name);
  if (!loading) {
    loading = LOADERS[lang][part]!().then(
      (m) => {
        Object.assign(tables[lang], m.default);
        loaded.add(name);
        pending.delete(name);
        loadedCount++;
        for (const listener of listeners) listener();
      },
      (error: unknown) => {
        pending.delete(name);
        throw new Error(`The ${lang} text of the page could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
      },
    );
    // Counted as the page still loading (state/settled.ts) until it is there.
    pending.set(name, trackPending(loading));
  }
  return loading;
}

/** True once the language's first-screen text is there. */
export function languageLoaded(lang: Language): boolean {
  return loaded.has(`${lang} first`);
}

/**
 * Loads a language's first-screen text once (and its later text too once the page has asked for
 * that); the promise rejects (and a later call retries) if a module cannot be fetched.
 */
export function loadLanguage(lang: Language): Promise<void> {
  return laterWanted ? loadLaterText(lang) : loadPart(lang, 'first');
}

/**
 * Loads the rest of the catalogue in `lang` and in English (the fallback of its later entries): the
 * text of the views that load later. Another language's first part carries its own fallbacks.
 */
export function loadLaterText(lang: Language): Promise<void> {
  laterWanted = true;
  return Promise.all(lang === 'en' ? [loadPart('en', 'first'), loadPart('en', 'later')] : [loadPart('en', 'later'), loadPart(lang, 'first'), loadPart(lang, 'later')]).then(() => undefined);
}

/** The language the page shows (followLanguage in i18n.ts keeps it): the catalogue is the page's, one for all its stores. */
let pageLanguage: Language = 'en';
export function setPageLanguage(lang: Language): void {
  pageLanguage = lang;
}

/** A lazy view's module, resolved once the later text is there too (in the page's language), so that it never renders "…". */
export function withLaterText<M>(load: () => Promise<M>): Promise<M> {
  return trackPending(Promise.all([load(), loadLaterText(pageLanguage)]).then(([m]) => m));
}

/** For React's useSyncExternalStore: changes each time a part of the catalogue arrives. */
export function subscribeCatalogue(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
export const catalogueVersion = (): number => loadedCount;

/**
 * A catalogue entry with its `{placeholders}` filled; in English while the language's table is not
 * there yet. An entry whose part has not arrived reads TEXT_PENDING and asks for it (views re-render
 * through the catalogue's version when it comes).
 */
export function translate(lang: Language, key: MessageKey, vars?: Record<string, string>): string {
  const template = templateOf(lang, key);
  return template === TEXT_PENDING ? template : fill(template, vars, lang);
}

/** A catalogue entry as written, its placeholders and count words unfilled (for `<Tx>`, which fills them with elements); TEXT_PENDING as translate. */
export function templateOf(lang: Language, key: MessageKey): string {
  const template = tables[lang][key] ?? tables.en[key];
  if (template !== undefined) return template;
  loadLaterText(lang).catch(() => undefined);
  return TEXT_PENDING;
}
