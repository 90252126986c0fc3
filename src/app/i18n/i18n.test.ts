import { describe, expect, it } from 'vitest';
import { SWITCHES } from '../../engine/switches.ts';
import { SWITCH_TEXT } from '../../engine/switchText.ts';
import { ASSUMPTIONS } from '../../engine/incident/index.ts';
import { CHAPTERS } from '../walkthrough/chapters/index.ts';
import { captionsOf } from '../walkthrough/timeline.ts';
import { readFileSync } from 'node:fs';
import { MESSAGES, SAME_IN_BOTH, frenchTypography, translate, type MessageKey } from './messages.ts';

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
