/**
 * The workshop room's three questions, asked before chapter 1 (`pre:0…2`) and the same three after
 * the last (`post:0…2`): the room's normalised gain (room/gain.ts) compares the two. Each is built
 * from facts of public/facts.json, named by id (a chapter's file in this folder says the same of its own) (the panel shows them as badges); the report's hedges
 * are kept ("according to Cloudflare", "the report says").
 */
import type { Localised } from './steps.ts';

export interface QuizQuestion {
  question: Localised;
  options: Localised[];
  /** The right option's index. */
  answer: number;
  /** The facts the question and its answer rest on. */
  facts: string[];
}

export const QUIZ: readonly QuizQuestion[] = [
  {
    question: {
      en: 'According to the report, how long was every affected request?',
      fr: 'D\u2019après le rapport, quelle était la longueur de chaque requête touchée\u00a0?',
    },
    options: [
      { en: 'Under 4,096 tokens', fr: 'Moins de 4\u00a0096 jetons' },
      { en: 'Over 681,280 tokens, what the prefill KV cache could hold', fr: 'Plus de 681\u00a0280 jetons, ce que le cache KV de préparation pouvait contenir' },
      { en: 'Any length: the leak was random', fr: 'N\u2019importe quelle longueur\u00a0: la fuite était aléatoire' },
    ],
    answer: 1,
    facts: ['F4', 'F14'],
  },
  {
    question: {
      en: 'With prefill and decode on separate machines, what did a client get for a request SGLang marked as rejected?',
      fr: 'Quand préparation et génération fonctionnaient sur des machines distinctes, qu\u2019a reçu un client pour une requête que SGLang avait marquée comme rejetée\u00a0?',
    },
    options: [
      { en: 'An error, as expected', fr: 'Une erreur, comme prévu' },
      { en: 'No response at all', fr: 'Aucune réponse' },
      { en: 'A successful response instead of the expected error', fr: 'Une réponse réussie au lieu de l\u2019erreur attendue' },
    ],
    answer: 2,
    facts: ['F17'],
  },
  {
    question: {
      en: 'Of the pages reserved on the decode node, how many did the rejected request overwrite?',
      fr: 'Des pages réservées sur le nœud de génération, combien la requête rejetée a-t-elle réécrites\u00a0?',
    },
    options: [
      { en: 'All of them', fr: 'Toutes' },
      { en: 'One, with its placeholder token; the others still held earlier requests\u2019 data', fr: 'Une seule, avec son jeton provisoire\u00a0; les autres gardaient les données de requêtes précédentes' },
      { en: 'None: the pages were cleared first', fr: 'Aucune\u00a0: les pages étaient effacées avant' },
    ],
    answer: 1,
    facts: ['F19', 'F20'],
  },
];

/** The right options, in order (room/gain.ts's `correct`). */
export const QUIZ_ANSWERS: readonly number[] = QUIZ.map((q) => q.answer);

export type QuizPhase = 'pre' | 'post';
