/**
 * Every figure a sentence gives beside a fact id is in that fact's French sentence, and in French in
 * the same sentence of the report as a word of the claim: "the prefill KV cache holds 681,280 (F4)"
 * fails, since F4 says that every affected request exceeded 681,280, not what the cache holds (F14).
 * And every assumption id the project shows (A1…) is one of the assumptions.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { FactIndex, parseFactsFile } from '../../../data/facts.ts';
import { ASSUMPTIONS } from '../../../engine/incident/index.ts';
import { isSingular } from '../../i18n/format.ts';
import { MESSAGES, translate, type MessageKey } from '../../i18n/messages.ts';
import { SCREEN_FIGURES } from '../../picture/screenFigures.ts';
import { CHAPTERS } from '../../walkthrough/chapters/index.ts';
import { QUIZ } from '../../walkthrough/chapters/quiz.ts';
import { figuresIn } from '../../../../tools/figures.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const facts = new FactIndex(parseFactsFile(JSON.parse(readFileSync(join(root, 'public/facts.json'), 'utf8'))));

type Lang = 'en' | 'fr';
interface Claim {
  where: string;
  lang: Lang;
  text: string;
  /** Fact ids shown beside the whole text (a chapter paragraph's badges); inline ids count per sentence. */
  cites: string[];
}

/** Sentences of a text: split after a full stop, a semicolon or a colon followed by a space. */
const sentencesOf = (text: string) => text.split(/(?<=[.;:!?])\s+/).filter((s) => s.trim() !== '');
const citedIn = (sentence: string) => [...sentence.matchAll(/\bF(\d+)\b/g)].map((m) => `F${m[1]}`);

/** Stems (first five letters) of the words of a French sentence that say something: not the unit, not a small word. */
const UNITS = new Set(['jeton', 'jetons', 'token', 'tokens']);
const words = (s: string) =>
  new Set(
    s
      .toLowerCase()
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .split(/[^a-z]+/)
      .filter((w) => w.length >= 5 && !UNITS.has(w))
      .map((w) => w.slice(0, 5)),
  );

const quoteOf = (id: string) => facts.byId.get(id)?.quote ?? '';
const quoteFigures = new Set(facts.file.facts.flatMap((f) => figuresIn(f.quote, 'fr')));

/** Each text the page, the video or the CLI shows that may cite a fact. */
function claims(): Claim[] {
  const out: Claim[] = [];
  for (const ch of CHAPTERS) {
    for (const lang of ['en', 'fr'] as const) {
      ch.paragraphs.forEach((p, i) => out.push({ where: `${ch.id} ¶${i + 1}`, lang, text: p.text[lang], cites: 'facts' in p.evidence ? p.evidence.facts : [] }));
      out.push({ where: `${ch.id} notes`, lang, text: ch.notes[lang], cites: [] });
      for (const s of ch.steps) if ('caption' in s) out.push({ where: `${ch.id} caption`, lang, text: s.caption[lang], cites: [] });
      if (ch.checkpoint) out.push({ where: `${ch.id} checkpoint`, lang, text: `${ch.checkpoint.question[lang]} ${ch.checkpoint.explain[lang]}`, cites: [] });
    }
  }
  // The room's questions before and after: each option is a claim under the question's fact ids.
  for (const [i, q] of QUIZ.entries()) {
    for (const lang of ['en', 'fr'] as const) {
      for (const o of q.options) out.push({ where: `quiz ${i + 1}`, lang, text: `${q.question[lang]} ${o[lang]}`, cites: q.facts });
    }
  }
  for (const a of ASSUMPTIONS) {
    out.push({ where: a.id, lang: 'en', text: `${a.en} ${a.reasonEn}`, cites: [] }, { where: a.id, lang: 'fr', text: `${a.fr} ${a.reasonFr}`, cites: [] });
  }
  for (const lang of ['en', 'fr'] as const) {
    for (const [k, v] of Object.entries(MESSAGES[lang])) out.push({ where: `catalogue ${k}`, lang, text: v, cites: [] });
    // The screen's figures: the label, the figure as the page writes it, its fact id.
    for (const { label, figure } of SCREEN_FIGURES) {
      const f = facts.figure(figure);
      const n = f.value.toLocaleString(lang === 'en' ? 'en-GB' : 'fr-FR');
      const words = MESSAGES[lang][label as MessageKey].replace('{n}', n);
      out.push({ where: `screen ${label}`, lang, text: words.includes(n) ? `${words} (${f.factId})` : `${words} ${n} (${f.factId})`, cites: [] });
    }
  }
  return out;
}

/** What is wrong with a claim's figures, or nothing. */
export function citationProblems(c: Claim): string[] {
  const problems: string[] = [];
  const check = (sentence: string, cites: string[]) => {
    for (const fig of figuresIn(sentence, c.lang)) {
      if (!quoteFigures.has(fig)) continue; // a model value, not one of the report's figures
      const holding = cites.filter((id) => figuresIn(quoteOf(id), 'fr').includes(fig));
      if (holding.length === 0) {
        problems.push(`${c.where} (${c.lang}): gives ${fig} citing ${cites.join(', ')}, whose French sentence does not give it: "${sentence}"`);
        continue;
      }
      if (c.lang !== 'fr') continue;
      // The report's sentence with the figure shares a word with the claim.
      const mine = words(sentence);
      const agrees = holding.some((id) => sentencesOf(quoteOf(id)).some((q) => figuresIn(q, 'fr').includes(fig) && [...words(q)].some((w) => mine.has(w))));
      if (!agrees) problems.push(`${c.where} (fr): gives ${fig} citing ${holding.join(', ')}, but no sentence of it with ${fig} shares a word with "${sentence}"`);
    }
  };
  if (c.cites.length > 0) check(c.text, c.cites);
  for (const s of sentencesOf(c.text)) {
    const cites = citedIn(s);
    if (cites.length > 0) check(s, cites);
  }
  return problems;
}

describe('figures given beside a fact id', () => {
  it('reads figures as the report writes them', () => {
    expect(figuresIn('acceptait théoriquement 1 048 576 jetons, à 13 h 22, environ 2,04 millions, le 9 septembre 2026', 'fr')).toEqual(['13:22', '1048576', '2.04']);
    expect(figuresIn('1,048,576 tokens at 13:22, about 2.04 million (F23), 9 Sep 2026, 38 minutes', 'en')).toEqual(['13:22', '1048576', '2.04']);
  });

  it('fails on a figure cited to a fact that does not give it, or gives it about something else', () => {
    const wrong = { where: 'probe', cites: [] };
    expect(citationProblems({ ...wrong, lang: 'en', text: 'The prefill KV cache holds 681,280 tokens (F2).' })).toHaveLength(1);
    expect(citationProblems({ ...wrong, lang: 'fr', text: 'Le cache KV de préparation contient 681 280 (F4)' })).toHaveLength(1);
    expect(citationProblems({ ...wrong, lang: 'fr', text: 'Le cache KV de préparation contient 681 280 (F14)' })).toEqual([]);
    expect(citationProblems({ ...wrong, lang: 'fr', text: 'Toutes les demandes affectées dépassaient 681 280 jetons (F4).' })).toEqual([]);
  });

  it('finds every figure the project gives beside a fact id in that fact, in the same sentence as a word of the claim', () => {
    const all = claims();
    expect(all.filter((c) => c.where.startsWith('screen')).length).toBe(SCREEN_FIGURES.length * 2);
    expect(all.flatMap(citationProblems)).toEqual([]);
  });
});

/** Every source file and document a reader or the CLI shows text from. */
function shownSources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === 'node_modules' || name.startsWith('.') ? [] : shownSources(p);
    return /\.(tsx?|json|md)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [p] : [];
  });
}

describe('assumption ids', () => {
  it('shows only assumptions that exist, ranges included', () => {
    const known = new Set<string>(ASSUMPTIONS.map((a) => a.id));
    const files = [...shownSources(join(root, 'src')), join(root, 'public/facts.json'), join(root, 'README.md'), ...shownSources(join(root, 'docs'))];
    let seen = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\bA(\d{1,3})\b/g)) {
        seen++;
        expect(known.has(`A${m[1]}`), `${file.slice(root.length)} shows A${m[1]}, which is not an assumption`).toBe(true);
      }
      // "A1–A13", « A1 à A13 »: a range ends where the list does or before.
      for (const m of text.matchAll(/\bA(\d+)\s*(?:–|-|\.\.\.|…| à | to )\s*A(\d+)\b/g)) expect(Number(m[2]) >= Number(m[1]), `${file}: ${m[0]}`).toBe(true);
    }
    expect(seen).toBeGreaterThan(100);
    for (const a of ASSUMPTIONS) expect(a.fills.every((n) => /^N\d+$/.test(n)), a.id).toBe(true);
  });

  it('names every assumption in the evidence list and says what an assumption without a gap to fill is', () => {
    for (const lang of ['en', 'fr'] as const) {
      expect(MESSAGES[lang].evidenceAssumedIntro).toContain('{last}');
      expect(MESSAGES[lang].evidenceFillsNone.length).toBeGreaterThan(10);
    }
  });
});

/**
 * The third pass of fidelity: wordings a line-by-line reading found wrong or loose, in every file
 * whose text the page, the video, the CLI or the docs show. Each rule is checked against the old
 * wording it replaced, so that it cannot pass by matching nothing.
 */
const WORDING_RULES: { why: string; bad: RegExp; old: string }[] = [
  { why: 'a served request is « servie », not « répondue »', bad: /\brépondue\b/, old: "screenCompareAnswered: 'répondue'" },
  { why: 'the microscope\u2019s transformer was not trained on the tenants\u2019 pages', bad: /entraîné sur les pages/, old: 'un transformeur entraîné sur les pages de cinq clients' },
  { why: 'the free list runs short, not an allocation', bad: /allocation vient à manquer/, old: 'fusionnées et triées seulement quand une allocation vient à manquer' },
  { why: 'the mechanics note\u2019s merge rule: SGLang does not merge "only when an allocation runs short"', bad: /only when an allocation runs short/, old: 'merged and sorted only when an allocation runs short' },
  { why: 'a canary is « placé », not « planté »', bad: /\bplantés?\b/, old: 'Témoins plantés retrouvés' },
  { why: '« course à l\u2019abandon » is not French for the abort race', bad: /course à l(?:\\u2019|’|')abandon/i, old: 'course à l\u2019abandon, écritures tardives sans barrière' },
  { why: '« crue ne contenir »', bad: /crue ne contenir/, old: 'est réutilisée et crue ne contenir que les données' },
  { why: '« contrôle d\u2019intégrité échoué »', bad: /intégrité échoué/, old: "stageCheckFailed: 'contrôle d\u2019intégrité échoué : refus'" },
  { why: '« attribuée à elle »', bad: /attribuée à elle/, old: 'attribuée à elle, écrite pour un autre client' },
  { why: 'pages are « libérées », not « lâchées »', bad: /\blâchées\b/, old: 'des pages que la génération a déjà lâchées' },
  { why: 'the period is « concernée », not « touchée »', bad: /période touchée/, old: 'premier jour de la période touchée' },
  { why: 'a property is violated (« violation »), not an « infraction »', bad: /\binfractions?\b/, old: '◇ une infraction sans fuite.' },
  { why: 'the tokenizer\u2019s `report` rule is the model\u2019s: the article names no tokenizer', bad: /report's\s+rule refusing/, old: "the report's\nrule refusing a prompt of exactly the context" },
  { why: 'the report gives no distribution of the over-long prompts', bad: /most of the incident's over-long prompts/, old: 'as most of the incident\'s over-long prompts\n   were' },
  { why: 'the report calls the responses coherent and says no more', bad: /coherent in the way the report means/, old: 'It is coherent in the way the report means' },
  { why: 'the report counts affected responses (F2); F7 says long requests sometimes received text from other sessions', bad: /responses carried|came to carry/, old: 'in which 155 responses carried fragments of other customers\' earlier requests' },
  { why: 'the report gives « environ 2,04 millions » (F23): 2,040,000 is the model\u2019s reading of it', bad: /2,040,000 tokens \(F23\)/, old: 'a prefill cache of 2,040,000 tokens (F23)' },
  { why: 'the traffic is A1–A7 and A13, not A1–A13', bad: /\bA1\s*(?:–|-| à | to )\s*A13\b/, old: 'from the model\u2019s traffic (A1–A13)' },
  { why: 'the report\u2019s threshold is on requests (F4), not on responses', bad: /affected responses, every one over/, old: 'affected responses, every one over ${fmtInt(threshold.value)} tokens' },
];

function wordingProblems(where: string, text: string): string[] {
  return WORDING_RULES.filter((r) => r.bad.test(text)).map((r) => `${where}: ${r.why}: ${text.match(r.bad)![0]}`);
}

describe('wording, third pass', () => {
  it('every rule fails on the wording it replaced', () => {
    for (const r of WORDING_RULES) expect(wordingProblems('old', r.old), r.why).toHaveLength(1);
  });

  it('no text the project shows has the old wordings', () => {
    const files = [...shownSources(join(root, 'src')), join(root, 'public/facts.json'), join(root, 'README.md'), join(root, 'index.html'), ...shownSources(join(root, 'docs'))];
    expect(files.flatMap((f) => wordingProblems(f.slice(root.length), readFileSync(f, 'utf8')))).toEqual([]);
  });

  it('keeps what the report rests its claims on', () => {
    const ch9 = CHAPTERS.find((c) => c.paragraphs.some((p) => 'facts' in p.evidence && p.evidence.facts.includes('F25')))!;
    const f25 = ch9.paragraphs.find((p) => 'facts' in p.evidence && p.evidence.facts.includes('F25'))!;
    expect(f25.text.fr).toContain('elle signifie seulement que les traces examinées ne montrent pas d\'abus répété');
    expect(f25.text.en).toContain('it means only that the traces examined show no repeated abuse');
    // The room's second question: the report's defect is in SGLang with prefill and decode on separate machines (F17).
    const q2 = QUIZ.find((q) => q.facts.includes('F17'))!;
    expect(q2.question.en).toContain('prefill and decode on separate machines');
    expect(q2.question.fr).toContain('machines distinctes');
    // The report's own sentence on what the KV cache does is cited to it, not labelled the model's.
    const kv = CHAPTERS[0]!.paragraphs.find((p) => p.text.fr.includes('relie chaque nouveau mot'))!;
    expect(kv.evidence).toEqual({ facts: ['F14'] });
    expect(quoteOf('F14')).toContain('relier chaque nouveau mot au texte déjà traité');
    // "Stays queued" is not what B9 says; the paragraph citing it says only what B9 and B1 give.
    for (const ch of CHAPTERS) for (const p of ch.paragraphs) if ('background' in p.evidence && p.evidence.background.includes('B9')) expect(p.text.en).not.toMatch(/stays queued/);
  });

  it('calls a prompt « requête » in French, never « prompt »', () => {
    const french = [...Object.values(MESSAGES.fr), ...CHAPTERS.flatMap((ch) => [ch.title.fr, ...ch.paragraphs.map((p) => p.text.fr)])];
    expect(french.filter((text) => /\bprompts?\b/i.test(text))).toEqual([]);
  });

  it('gives a count of one, and a French count of zero, the singular', () => {
    expect([isSingular(1, 'en'), isSingular(0, 'en'), isSingular(0, 'fr'), isSingular(1, 'fr'), isSingular(2, 'fr')]).toEqual([true, false, true, true, false]);
    // The catalogue chooses a count's words itself (text.ts), whatever view fills the count.
    expect(translate('fr', 'hpReserved', { pages: '1' })).toBe('1 page réservée');
    expect(translate('fr', 'hpNothingFor', { pages: '0' })).toBe('0 page réservée ne reçoit rien');
    // The room's count: « 0 réponse », « 1 réponse », never « 1 réponses ».
    expect(translate('fr', 'roomAnswered', { n: '1' })).toBe('1 réponse');
    expect(translate('fr', 'roomAnswered', { n: '2' })).toBe('2 réponses');
    // A transferred-length stop names its counts without agreeing a participle with them.
    expect(MESSAGES.fr.ev_checkLength).not.toMatch(/\{written\} écrites/);
  });

  it('shows the model\u2019s values as the model\u2019s', () => {
    const cli = readFileSync(join(root, 'src/cli/simulate.ts'), 'utf8');
    expect(cli).toContain("p('model: tenants whose data leaked'");
    // 19:40 comes with its fact id wherever the CLI gives it.
    for (const line of cli.split('\n').filter((l) => l.includes("m('public').time"))) expect(line, line).toContain("m('public').factId");
    // A caption giving the demo's prompt length or a status the model answers carries the model's badge.
    for (const ch of CHAPTERS) {
      for (const step of ch.steps) {
        if ('caption' in step && /800,000|HTTP [2-5]00/.test(step.caption.en)) expect((step.caption as { model?: true }).model, `${ch.id}: ${step.caption.en}`).toBe(true);
      }
    }
    const ch9 = CHAPTERS.find((c) => c.checkpoint?.explain.en.includes('still HTTP 200'))!;
    expect(ch9.checkpoint!.explain.en).toContain("still HTTP 200 (the model's status)");
    expect(ch9.checkpoint!.explain.fr).toContain('toujours HTTP 200 (le statut du modèle)');
  });
});
