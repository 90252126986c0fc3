/**
 * Vite plugin: the UI catalogue (src/app/i18n/messages.ts, both languages) served to the page as one
 * module per language, `virtual:catalogue/en` and `virtual:catalogue/fr`, each the language's
 * finished table (switch labels merged, French typeset). The page imports English with its first
 * screen and French only when it is shown (src/app/i18n/catalogue.ts), so a visitor reading English
 * never downloads the French text. The tables are read from messages.ts as this config loads it;
 * Vite restarts the dev server when a file the config imports changes, so an edit shows at once.
 */
import type { Plugin } from 'vite';
import { MESSAGES, type Language } from '../src/app/i18n/messages.ts';

const PREFIX = 'virtual:catalogue/';

export function catalogueChunks(): Plugin {
  return {
    name: 'stale-pages:catalogue-chunks',
    resolveId(id) {
      if (!id.startsWith(PREFIX)) return null;
      const lang = id.slice(PREFIX.length);
      if (!(lang in MESSAGES)) throw new Error(`${id}: the catalogue has no language "${lang}" (it has ${Object.keys(MESSAGES).join(', ')})`);
      return `\0${id}`;
    },
    load(id) {
      if (!id.startsWith(`\0${PREFIX}`)) return null;
      const lang = id.slice(PREFIX.length + 1) as Language;
      // JSON.parse of a string literal: faster for V8 to read than the same object as code.
      return `export default JSON.parse(${JSON.stringify(JSON.stringify(MESSAGES[lang]))});`;
    },
  };
}
