import { describe, expect, it } from 'vitest';
import { SWITCHES } from '../../engine/switches.ts';
import { SWITCH_TEXT } from '../../engine/switchText.ts';
import { ASSUMPTIONS } from '../../engine/incident/index.ts';
import { CHAPTERS } from '../walkthrough/chapters/index.ts';
import { captionsOf } from '../walkthrough/timeline.ts';
import { readFileSync } from 'node:fs';
import { MESSAGES, SAME_IN_BOTH, frenchTypography, translate, type MessageKey } from './messages.ts';
import { formatUtc } from './format.ts';
import { fillPieces } from './text.ts';

const facts = JSON.parse(readFileSync(new URL('../../../public/facts.json', import.meta.url), 'utf8')) as {
  facts: { id: string; fr: string; milestones?: { labelFr: string; derivedFr?: string }[] }[];
  notInReport: { fr: string }[];
  background: { fr: string }[];
};

/** Every French text the page can show, with where it comes from. */
function frenchTexts(): [string, string][] {
  const out: [string, string][] = Object.entries(MESSAGES.fr).map(([k, v]) => [`catalogue ${k}`, v]);
  for (const ch of CHAPTERS) {
    out.push([`${ch.id} title`, ch.title.fr], [`${ch.id} notes`, ch.notes.fr]);
    ch.paragraphs.forEach((p, i) => out.push([`${ch.id} ¶${i + 1}`, p.text.fr]));
    captionsOf(ch.steps).forEach((c, i) => out.push([`${ch.id} caption ${i + 1}`, c.fr]));
    if (ch.checkpoint) out.push([`${ch.id} question`, ch.checkpoint.question.fr], [`${ch.id} explain`, ch.checkpoint.explain.fr], ...ch.checkpoint.options.map((o): [string, string] => [`${ch.id} option ${o.id}`, o.label.fr]));
  }
  for (const a of ASSUMPTIONS) out.push([a.id, a.fr], [`${a.id} reason`, a.reasonFr]);
  for (const f of facts.facts) {
    out.push([f.id, f.fr]);
    for (const m of f.milestones ?? []) out.push([`${f.id} milestone`, m.labelFr], ...(m.derivedFr ? [[`${f.id} derived`, m.derivedFr] as [string, string]] : []));
  }
  for (const n of facts.notInReport) out.push(['not in report', n.fr]);
  for (const b of facts.background) out.push(['background', b.fr]);
  return out;
}

describe('the UI catalogue', () => {
  it('has every key in both languages', () => {
    expect(Object.keys(MESSAGES.fr).sort()).toEqual(Object.keys(MESSAGES.en).sort());
  });

  it('carries each registered switch\u2019s label, hint and fix, from the registry\u2019s words', () => {
    for (const s of SWITCHES) {
      for (const part of ['label', 'hint', 'fix'] as const) {
        const key = `switch.${s.key}.${part}` as MessageKey;
        expect(translate('en', key), key).toBe(SWITCH_TEXT[s.key][part].en);
        expect(translate('fr', key), key).toBe(frenchTypography(SWITCH_TEXT[s.key][part].fr));
      }
    }
  });

  it('has the same placeholders in both languages', () => {
    const names = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const key of Object.keys(MESSAGES.en) as MessageKey[]) expect(names(MESSAGES.fr[key]), key).toEqual(names(MESSAGES.en[key]));
  });

  it('reads the same in both languages only where the short named list says so', () => {
    const same = (Object.keys(MESSAGES.en) as MessageKey[]).filter((k) => MESSAGES.en[k] === MESSAGES.fr[k]);
    expect(same.sort()).toEqual([...SAME_IN_BOTH].sort());
  });

  it('sets French punctuation: a no-break space before « : », a narrow one before « ; ! ? »', () => {
    expect(frenchTypography('Réponse : 200 ; « oui » ?')).toBe('Réponse\u00a0: 200\u202f; «\u00a0oui\u00a0»\u202f?');
    for (const [where, text] of Object.entries(MESSAGES.fr)) expect(/ [:;!?»]|« /.test(text), where).toBe(false);
  });
});

describe('the French, in one vocabulary: the article\u2019s', () => {
  // Known weak or off-vocabulary phrases, and the article's words that replace them.
  const BANNED: [RegExp, string][] = [
    [/préremplissage/i, '« préparation » (the article\u2019s word for prefill)'],
    [/\bdécodage\b/i, '« génération » (the article\u2019s word for decode)'],
    [/fuitée?s?\b/i, '« réponses touchées »'],
    [/^en cours$|pages? en cours/i, '« occupée » for a live page'],
    [/\bTenue par\b|\b(la|les) tient\b|tient (cette|ces|une) page/i, '« attribuée à » / « occupe »'],
    [/^Écrite pour/, '« Dernière écriture pour »'],
    [/Échec sûr/i, '« arrêt sur erreur »'],
    [/échoue proprement/i, 'say what it does: « s\u2019arrête sur une erreur »'],
    [/salle d.amorçage/i, '« rendez-vous » (bootstrap_room)'],
    [/poignée de main/i, '« échange » (B3)'],
    [/pages crues/i, '« tenues pour bonnes »'],
    [/temps jouets/i, '« durées simplifiées »'],
    [/routage tour à tour/i, '« à tour de rôle »'],
  ];

  it('uses none of the known weak phrases', () => {
    for (const [where, text] of frenchTexts()) {
      for (const [re, instead] of BANNED) expect(re.test(text), `${where}: "${text}" — use ${instead}`).toBe(false);
    }
  });

  it('names prefill and decode by the article\u2019s words wherever they are named', () => {
    const fr = frenchTexts().map(([, t]) => t).join('\n');
    expect(fr).toContain('préparation');
    expect(fr).toContain('génération');
    expect(fr).toContain('réponses touchées');
  });
});

/**
 * The catalogue's grammar (text.ts, format.ts), held for every entry rather than string by string:
 * a count's words agree with the count, French elides before a vowel, and French puts « à » between
 * a day and its time. Each test scans the whole catalogue, so an entry added later is held to it too.
 */
describe('the catalogue\u2019s grammar, one rule for every entry', () => {
  const keys = Object.keys(MESSAGES.en) as MessageKey[];
  /** Words whose plural a count decides, as the catalogue writes them after a count (English and French). */
  const PLURAL_AFTER_COUNT =
    /^(pages|tokens|slots|prompts|requests|responses|characters|inputs|configurations|states|steps|layers|heads|parameters|lines|jetons|emplacements|demandes|réponses|requêtes|lectures|caractères|entrées|contextes|états|étapes|couches|têtes|paramètres|lignes|rejets|arrêts|textes|autres|anciens|anciennes|écrites|réservées|refusées|touchées|envoyées|terminées|tirées|abandonnées|générés|collés|libres|comptés|calculées|lues|reprises|laissées)$/u;
  /** Placeholders that hold a name, never a count (« les pages de {node} »). */
  const NAMES = new Set(['node', 'tenant', 'tenants', 'name', 'owner', 'who', 'request', 'writer']);
  /** The entries where a count placeholder is followed, directly or after one adverb, by a plural written out. */
  function pluralAfterCount(text: string): string[] {
    const out: string[] = [];
    for (const m of text.matchAll(/\{(\w+)\}[ \u00a0]((?:(?:jamais|encore|plus|en|more|never) )?)([\p{L}’']+)(?!\{)/gu)) {
      const word = m[3]!;
      if (PLURAL_AFTER_COUNT.test(word) && !NAMES.has(m[1]!)) out.push(m[0]);
    }
    return out;
  }

  it('lets no count fix its words in the plural: « 0 réponse touchée », « 1 page de plus », never « 0 réponses », « 1 pages »', () => {
    // What the rule catches: the old entries, as they were written.
    expect(pluralAfterCount('{leaked} réponses touchées, {rejected} refusées (400)')).toEqual(['{leaked} réponses', '{rejected} refusées']);
    expect(pluralAfterCount('{pages} pages de plus')).toEqual(['{pages} pages']);
    expect(pluralAfterCount('{total} réservées · {written} écrites pour elle')).toEqual(['{total} réservées', '{written} écrites']);
    expect(pluralAfterCount('{count} jamais écrites')).toEqual(['{count} jamais écrites']);
    expect(pluralAfterCount('{pages} page{pages#s} réservée{pages#s}')).toEqual([]);
    for (const lang of ['en', 'fr'] as const) {
      const found = keys.flatMap((k) => pluralAfterCount(MESSAGES[lang][k]).map((hit) => `${lang} ${k}: ${hit}`));
      expect(found, 'write the count\u2019s words with {n#s} or {n#one|other} (text.ts)').toEqual([]);
    }
  });

  it('gives every count word its count, in the same entry (or the one it completes)', () => {
    // ev_decodeReadForeign ends ev_decodeRead, which shows the count its verb agrees with.
    const COMPLETES = new Set<MessageKey>(['ev_decodeReadForeign']);
    for (const lang of ['en', 'fr'] as const)
      for (const k of keys.filter((key) => !COMPLETES.has(key)))
        for (const m of MESSAGES[lang][k].matchAll(/\{(\w+)#[^{}]*\}/g)) expect(MESSAGES[lang][k], `${lang} ${k}`).toContain(`{${m[1]}}`);
  });

  it('chooses the singular for 1 in English and for 0 and 1 in French, as filled', () => {
    const fr = (k: MessageKey, vars: Record<string, string>) => translate('fr', k, vars);
    expect(fr('whatIfBody', { switches: 'X', leaked: '0', rejected: '1', failed: '0', requests: '2' })).toContain('0 réponse touchée, 1 refusée (400), 0 en échec (500), sur 2 requêtes');
    expect(fr('hpBand', { pages: '1' })).toBe('1 page de plus');
    expect(fr('stripSummary', { total: '14\u202f459', written: '0', stale: '14\u202f458', byTenant: '' })).toContain('14\u202f459 réservées · 0 écrite pour elle · 14\u202f458 anciennes');
    expect(fr('stripLabel', { total: '3', written: '1', stale: '2', empty: '0' })).toBe('3 pages\u00a0: 1 écrite pour cette requête, 2 anciennes, 0 jamais écrite');
    expect(fr('ev_decodeRead', { pages: '2', tokens: '128', stale: '0', foreign: '' })).toContain('0 n\u2019a pas été écrite pour elle');
    expect(fr('fixDid', { n: '1', rejected: '1', failed: '0', served: '0', leak: '0' })).toContain('0 encore touchée');
    expect(fr('timelineChartLabel', { leaks: '0', violations: '2' })).toContain('0 réponse touchée et 2 lectures');
    expect(translate('en', 'hpBand', { pages: '1' })).toBe('1 more page');
    expect(translate('en', 'ev_decodeRead', { pages: '1', tokens: '64', stale: '0', foreign: '' })).toBe('Decode runs over all 1 page (64 tokens); 0 were not written for it.');
    // A count as formatNumber writes it, decimals included: « 1,5 Mo » is singular in French.
    expect(fr('depPasted', { size: '1,5 Mo' })).toBe('1,5 Mo collé.');
    expect(fr('depPasted', { size: '2,5 Mo' })).toBe('2,5 Mo collés.');
  });

  it('elides « de » and « que » before a name that starts with a vowel: « d\u2019acme », never « de acme »', () => {
    // The same in an entry filled with elements (<Tx>): the text before the element is elided.
    expect(fillPieces(MESSAGES.fr.leakOf, 'fr', () => 'acme')).toEqual(['Réponse touchée\u00a0: données d\u2019', { name: 'tenants' }]);
    expect(fillPieces(MESSAGES.fr.hpBand, 'fr', () => '1')).toEqual([{ name: 'pages' }, ' page de plus']);
    expect(translate('fr', 'leakOf', { tenants: 'acme, kestrel' })).toBe('Réponse touchée\u00a0: données d\u2019acme, kestrel');
    expect(translate('fr', 'stripOf', { count: '14\u202f456', tenant: 'acme' })).toBe('14\u202f456 d\u2019acme');
    expect(translate('fr', 'stripOf', { count: '2', tenant: 'kestrel' })).toBe('2 de kestrel');
    // Every French entry, each placeholder filled with a name that starts with a vowel.
    for (const k of keys) {
      const names = [...MESSAGES.fr[k].matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      const text = translate('fr', k, Object.fromEntries(names.map((n) => [n, 'iris'])));
      expect(text, k).not.toMatch(/(^|[^\p{L}])(de|que) iris/iu);
    }
  });

  it('puts « à » between a day and its time in French, never writes it before a time itself', () => {
    const at = Date.UTC(2026, 7, 27, 8, 43, 25);
    const TIMES = ['time', 'arrived', 'finished'];
    for (const k of keys) {
      const template = MESSAGES.fr[k];
      // The formatter writes « à » (format.ts): an entry that did too would read « à le » or « à à ».
      for (const name of TIMES) expect(template, k).not.toMatch(new RegExp(`\\bà \\{${name}\\}`));
      const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      if (!names.some((n) => TIMES.includes(n))) continue;
      const text = translate('fr', k, Object.fromEntries(names.map((n) => [n, TIMES.includes(n) ? formatUtc(at, 'fr') : 'x'])));
      expect(text, k).toContain('27 août 2026 à 08:43:25 UTC');
      expect(text, k).not.toMatch(/\d{4} \d\d:\d\d/);
    }
  });

  it('badges every count the story\u2019s sentences draw from the model, and the clauses that retell the report', () => {
    const COUNTS = ['reserved', 'written', 'stale', 'sent', 'computed', 'zero', 'unwritten'];
    for (const lang of ['en', 'fr'] as const)
      for (const k of keys.filter((key) => key.startsWith('storyExplain'))) {
        const text = MESSAGES[lang][k];
        if (COUNTS.some((c) => text.includes(`{${c}}`))) expect(text, `${lang} ${k}`).toContain('{model}');
        if (/one-token placeholder|un jeton provisoire/.test(text)) expect(text, `${lang} ${k}`).toContain('{f17}');
      }
    for (const lang of ['en', 'fr'] as const) for (const f of ['{f14}', '{f17}', '{f19}', '{f20}']) expect(MESSAGES[lang].storyExplainLeak, `${lang} ${f}`).toContain(f);
  });

  it('heads N1–N9 as what the report does not say, and calls the demo\u2019s request deployed as in the incident, not what happened', () => {
    for (const [where, text] of frenchTexts()) expect(text, where).not.toMatch(/personne ne sait|Tel que c.est arrivé|Tel que cela s.est passé|lâche sa page|à l.échelle réelle|découp(age|eur) en jetons/i);
    const english = [...Object.entries(MESSAGES.en), ...CHAPTERS.flatMap((ch) => [[`${ch.id} notes`, ch.notes.en] as [string, string], ...captionsOf(ch.steps).map((c, i) => [`${ch.id} caption ${i + 1}`, c.en] as [string, string])])];
    for (const [where, text] of english) expect(text, where).not.toMatch(/nobody knows|As it happened|at real scale/i);
    expect(MESSAGES.en.evidenceUnknown).toBe('What the report does not say');
    expect(MESSAGES.fr.evidenceUnknown).toBe('Ce que le rapport ne dit pas');
  });
});
