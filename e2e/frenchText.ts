import { expect, type Page } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MESSAGES, SAME_IN_BOTH, type MessageKey } from '../src/app/i18n/messages.ts';
import { TENANT_NAMES } from '../src/engine/core/vocab.ts';
import { KIND_NAMES } from '../src/engine/incident/traffic.ts';

/**
 * What makes a page French, for the specs that read one (french.spec.ts, inview.spec.ts): no visible
 * text may be an English entry of the catalogue (or an English sentence built from one) or hold a word
 * only the English catalogue uses, and no number or date may be written the English way. Text a view
 * marks `lang="en"` (the model's toy vocabulary, a browser's own error message) is English on purpose
 * and is skipped; the report's quotes are French.
 */

/** Words and names that read the same in both languages, allowed as they are. */
const SAME_WORDS = new Set([...SAME_IN_BOTH.map((k) => MESSAGES.en[k]), 'WebGPU', 'RDMA', 'KV', 'JS', 'SGLang', 'Workers AI', 'Success', 'Failed', 'HTTP', 'UTC']);

const EN = MESSAGES.en;
const FR = MESSAGES.fr;
const keys = Object.keys(EN) as MessageKey[];
const hasPlaceholder = (s: string) => /\{\w+\}/.test(s);

/** English entries a French text node must never equal. */
const ENGLISH_ENTRIES = new Set(keys.filter((k) => !hasPlaceholder(EN[k]) && EN[k].trim() !== '' && EN[k] !== FR[k]).map((k) => EN[k].trim()).filter((s) => !SAME_WORDS.has(s)));

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Every word the French catalogue uses: a template made only of these (« {node} pages ») tells nothing apart. */
const FRENCH_WORDS = new Set(keys.flatMap((k) => FR[k].toLowerCase().match(/\p{L}+/gu) ?? []));
const englishOnly = (template: string) => (template.replace(/\{\w+(?:#[^{}]*)?\}/g, ' ').toLowerCase().match(/\p{L}{3,}/gu) ?? []).some((w) => !FRENCH_WORDS.has(w));
/**
 * Every word the project writes in French: the catalogue's, every `fr` or `…Fr` text of the sources
 * (the chapters, the assumptions, the switches, the matrix, the protocol's configurations) and the
 * facts file's French (the report's words and the article's quotes).
 */
function frenchVocabulary(): Set<string> {
  const words = new Set(FRENCH_WORDS);
  const add = (text: string) => {
    for (const w of text.toLowerCase().match(/\p{L}+/gu) ?? []) words.add(w);
  };
  const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
  for (const file of files('src')) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\b(?:fr|\w+Fr)\s*:\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)"|`((?:[^`\\]|\\.)*)`)/g)) add(m[1] ?? m[2] ?? m[3] ?? '');
  }
  const walk = (v: unknown, key: string) => {
    if (typeof v === 'string') {
      if (/^(fr|quote|title)$|Fr$/.test(key)) add(v);
    } else if (Array.isArray(v)) v.forEach((x) => walk(x, key));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(JSON.parse(readFileSync('public/facts.json', 'utf8')), '');
  return words;
}

/**
 * Words only the English catalogue uses (three letters or more): one of them in a French text node is
 * English left on the page, whether or not its sentence is a catalogue entry (a hard-coded label, an
 * entry half translated). Names the page shows in both languages are words of neither: the tenants
 * and the replay's kinds of traffic (researcher-1), the run's request ids (warm-3, long-1, short-1),
 * the probe's own request, « you ».
 */
const NAMES = new Set([...TENANT_NAMES, ...KIND_NAMES.flatMap((k) => k.split(/\W+/)), 'warm', 'long', 'short', 'you', ...[...SAME_WORDS].flatMap((w) => w.toLowerCase().match(/\p{L}+/gu) ?? [])]);
const FRENCH_VOCABULARY = frenchVocabulary();
const ENGLISH_WORDS = new Set(keys.flatMap((k) => EN[k].replace(/\{\w+(?:#[^{}]*)?\}/g, ' ').toLowerCase().match(/\p{L}{3,}/gu) ?? []).filter((w) => !FRENCH_VOCABULARY.has(w) && !NAMES.has(w)));
/** A text's words, less addresses, file names and identifiers (github.com/…, schedule_batch.py, set_finish_with_abort). */
const wordsOf = (text: string) => text.replace(/\S*[/_.]\S*[\p{L}\d]\S*/gu, ' ').toLowerCase().match(/\p{L}{3,}/gu) ?? [];

/** The pattern of a count's words, « {n#s} » or « {n#one|other} »; null for a plain placeholder. */
function countForms(placeholder: string): string | null {
  const forms = /^\{\w+#([^{}]*)\}$/.exec(placeholder)?.[1];
  if (forms === undefined) return null;
  return forms === 's' ? 's?' : `(?:${forms.split('|').map(escape).join('|')})`;
}

/**
 * English sentences with placeholders, as anchored patterns. A template whose words are too few to
 * tell the languages apart (it also matches its own French) is left out.
 */
const ENGLISH_TEMPLATES = keys
  .filter((k) => hasPlaceholder(EN[k]) && EN[k] !== FR[k])
  // A count's words match the forms the count can choose and nothing else: « {n#s} » an s or none,
  // « {n#page|pages} » one of its words (text.ts); "{tokens} token{tokens#s}" is not any text with
  // " token" in it (« le tokeniseur »).
  .map((k) => ({ key: k, re: new RegExp(`^${EN[k].trim().split(/(\{\w+(?:#[^{}]*)?\})/).map((part, i) => (i % 2 === 0 ? escape(part) : countForms(part) ?? '[\\s\\S]+?')).join('')}$`) }))
  .filter(({ key, re }) => !re.test(FR[key].replace(/\{\w+(?:#[^{}]*)?\}/g, 'x').trim()) && englishOnly(EN[key]));

/** Numbers and dates in the English way: 1,048,576; 0.125; Aug; Thu; 2 PM. */
const ENGLISH_FORMATS: [string, RegExp][] = [
  // 1,048,576 or 800,000; not a French decimal such as « 0,602 s ».
  ['comma thousands separator', /(?<![\d,])(?:\d{1,3}(?:,\d{3}){2,}|[1-9]\d{0,2},\d{3})(?![\d,])(?!\s?(?:s|ms|%)(?!\p{L}))/u],
  // 0.125 or 2.04; not a version (GLM 5.3) or an address (arxiv.org/abs/2401.16603).
  ['decimal point', /(?<![\p{L}\d./])\d+\.\d+(?![\p{L}\d.])/u],
  ['English month', /(?<!\p{L})(?:January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec)(?!\p{L})/u],
  ['English weekday', /(?<!\p{L})(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday|Mon|Tue|Wed|Thu|Fri|Sat|Sun)(?!\p{L})/u],
  ['AM/PM clock', /(?<!\p{L})\d{1,2}(?::\d{2})?\s?(?:AM|PM)(?!\p{L})/u],
];

interface Seen {
  text: string;
  where: string;
  code: boolean;
}

/** Every visible text node, and the text of every visible element (a sentence may span elements). */
async function visibleText(page: Page): Promise<{ nodes: Seen[]; elements: Seen[] }> {
  return page.evaluate(() => {
    const where = (el: Element) => {
      const parts: string[] = [];
      for (let e: Element | null = el; e && parts.length < 4; e = e.parentElement) {
        const id = e.getAttribute('data-testid') ?? e.id;
        parts.push(e.tagName.toLowerCase() + (id ? `#${id}` : '') + (e.className && typeof e.className === 'string' ? `.${e.className.split(' ')[0]}` : ''));
      }
      return parts.join(' < ');
    };
    const shown = (el: Element): boolean => {
      if (el.closest('[lang="en"]:not(html), script, style, [aria-hidden="true"]')) return false;
      if (el.tagName === 'OPTION') return !!el.closest('select')?.checkVisibility();
      return el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true });
    };
    const nodes: { text: string; where: string; code: boolean }[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      const text = (n.textContent ?? '').replace(/\s+/g, ' ').trim();
      if (!el || !text || !shown(el)) continue;
      nodes.push({ text, where: where(el), code: !!el.closest('code') });
    }
    const elements: { text: string; where: string; code: boolean }[] = [];
    for (const el of document.body.querySelectorAll('*')) {
      if (!(el instanceof HTMLElement) || !shown(el)) continue;
      const text = (el.innerText ?? '').replace(/\s+/g, ' ').trim();
      if (text && text.length < 600) elements.push({ text, where: where(el), code: !!el.closest('code') });
    }
    return { nodes, elements };
  });
}

/** Fails on English the French page shows; `view` names the page for the message. */
export async function expectFrench(page: Page, view: string): Promise<void> {
  await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
  const { nodes, elements } = await visibleText(page);
  expect(nodes.length, `${view}: visible text`).toBeGreaterThan(20);
  const problems: string[] = [];
  for (const n of nodes) {
    if (ENGLISH_ENTRIES.has(n.text)) problems.push(`English catalogue entry "${n.text}" at ${n.where}`);
    if (n.code) continue;
    const english = wordsOf(n.text).filter((w) => ENGLISH_WORDS.has(w));
    if (english.length > 0) problems.push(`English word${english.length > 1 ? 's' : ''} ${english.map((w) => `"${w}"`).join(', ')} in "${n.text.slice(0, 120)}" at ${n.where}`);
    for (const [what, re] of ENGLISH_FORMATS) {
      const text = n.text.replace(/GLM \d+\.\d+/g, 'GLM');
      if (re.test(text)) problems.push(`${what} in "${n.text}" at ${n.where}`);
    }
  }
  for (const e of elements) {
    const t = ENGLISH_TEMPLATES.find(({ re }) => re.test(e.text));
    if (t) problems.push(`English sentence (${t.key}) "${e.text.slice(0, 120)}" at ${e.where}`);
  }
  expect([...new Set(problems)], `${view} in French`).toEqual([]);
}

