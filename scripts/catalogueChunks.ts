/**
 * Vite plugin: the UI catalogue (src/app/i18n/messages.ts, both languages) served to the page as
 * modules per language, each the language's finished table (switch labels merged, French typeset),
 * in two parts: `virtual:catalogue/<lang>` holds the entries the first screen can show, and
 * `virtual:catalogue/<lang>/later` the rest (the drawer's, the walkthrough's, the Transfer and
 * Response tabs', the panels'), which the page loads with those views (src/app/i18n/catalogue.ts).
 * A language's first part stands alone (English fills any entry it lacks): the page loads only its
 * own language's first part before its first render.
 * A visitor reading English never downloads the French text, and nobody downloads the panels' text
 * before the first screen is usable. The tables are read from messages.ts as this config loads it;
 * Vite restarts the dev server when a file the config imports changes, so an edit shows at once.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';
import { MESSAGES } from '../src/app/i18n/messages.ts';
import type { Language } from '../src/engine/switches.ts';

const PREFIX = 'virtual:catalogue/';
const LATER = '/later';
const ENTRY = resolve(dirname(fileURLToPath(import.meta.url)), '../src/main.tsx');

/**
 * The source files the page runs before any of its lazy imports: `entry` and everything it imports
 * statically (`import type` and `import(...)` are not followed), relative paths only.
 */
export function staticGraph(entry: string): Map<string, string> {
  const files = new Map<string, string>();
  const visit = (file: string) => {
    if (files.has(file) || !/\.tsx?$/.test(file) || !existsSync(file)) return;
    const source = readFileSync(file, 'utf8');
    files.set(file, source);
    for (const m of source.matchAll(/^\s*(import|export)\s+(type\s)?[^;'"]*?\bfrom\s+'(\.[^']+)'|^\s*import\s+'(\.[^']+)'/gm)) {
      if (m[2]) continue;
      visit(resolve(dirname(file), (m[3] ?? m[4])!));
    }
  };
  visit(entry);
  return files;
}

/**
 * A template that builds a catalogue key: its fixed part is a key's namespace, up to a dot
 * (`` `notice.${kind}` ``, `` `switch.${key}.label` ``). Class names and test ids (`` `tab-${v}` ``) are not keys.
 */
export const KEY_TEMPLATE = /`([\w-]+(?:\.[\w-]+)*\.)\$\{/g;

/**
 * The catalogue keys the first screen can look up: each one written as a string literal in a file of
 * the static graph, and each one a template there can build: `` t(`switch.${key}.label`) `` keeps
 * every `switch.….label` key (a placeholder stands for one or more name characters), and a template
 * whose placeholders are not plain expressions keeps its whole namespace (`switch.`). The catalogue
 * itself is not searched (it names every key). Generous on purpose: a key wrongly left to the later
 * part would show as "…" until that part arrives.
 */
export function firstScreenKeys(sources: Iterable<string>, keys: readonly string[]): Set<string> {
  const literals = new Set<string>();
  const patterns: RegExp[] = [];
  const escape = (s: string) => s.replace(/[.*+?^$()|[\]\\{}]/g, '\\$&');
  for (const source of sources) {
    for (const m of source.matchAll(/(['"`])([\w.-]+)\1/g)) literals.add(m[2]!);
    for (const m of source.matchAll(KEY_TEMPLATE)) {
      const rest = source.slice(m.index + 1);
      const template = /^((?:[\w.-]|\$\{[\w.!?\s]+\})+)`/.exec(rest)?.[1];
      patterns.push(
        template
          ? new RegExp(`^${template.split(/\$\{[^}]*\}/).map(escape).join('[\\w.-]+')}$`)
          : new RegExp(`^${escape(m[1]!)}`),
      );
    }
  }
  return new Set(keys.filter((k) => literals.has(k) || patterns.some((p) => p.test(k))));
}

export function catalogueChunks(entry = ENTRY): Plugin {
  const firstKeys = () => {
    const sources = [...staticGraph(entry)].filter(([file]) => !file.endsWith('/i18n/messages.ts')).map(([, source]) => source);
    return firstScreenKeys(sources, Object.keys(MESSAGES.en));
  };
  return {
    name: 'stale-pages:catalogue-chunks',
    resolveId(id) {
      if (!id.startsWith(PREFIX)) return null;
      const lang = id.slice(PREFIX.length).replace(LATER, '');
      if (!(lang in MESSAGES)) throw new Error(`${id}: the catalogue has no language "${lang}" (it has ${Object.keys(MESSAGES).join(', ')})`);
      return `\0${id}`;
    },
    load(id) {
      if (!id.startsWith(`\0${PREFIX}`)) return null;
      const part = id.slice(PREFIX.length + 1);
      const later = part.endsWith(LATER);
      const lang = part.replace(LATER, '') as Language;
      // Read at each load, so that the dev server splits by the sources as they are now.
      const first = firstKeys();
      const inPart = ([key]: [string, string]) => first.has(key) !== later;
      // Another language's first part is complete on its own: English for any entry it lacks, so
      // that a page opened in that language need not load English's first part as its fallback.
      const fallback = later || lang === 'en' ? [] : Object.entries(MESSAGES.en).filter((e) => inPart(e) && !(e[0] in MESSAGES[lang]));
      const table = Object.fromEntries([...fallback, ...Object.entries(MESSAGES[lang]).filter(inPart)]);
      // JSON.parse of a string literal: faster for V8 to read than the same object as code.
      return `export default JSON.parse(${JSON.stringify(JSON.stringify(table))});`;
    },
  };
}
