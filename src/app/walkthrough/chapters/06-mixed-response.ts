import type { Chapter } from '../chapter.ts';
import { ANSWERED, OVER_LONG, TRANSFER_DONE } from './demo.ts';

export const chapter: Chapter = {
  id: 'mixed-response',
  title: { en: 'A coherent answer built from other customers\' KV', fr: 'Une réponse cohérente bâtie sur le KV d\'autres clients' },
  paragraphs: [
    {
      text: {
        en: 'Decode composed a coherent response from the mixture, with no error. Every request over the threshold took this path.',
        fr: 'Le décodage a composé une réponse cohérente à partir du mélange, sans erreur. Chaque requête franchissant le seuil suivait ce chemin.',
      },
      evidence: { facts: ['F21'] },
    },
    {
      text: {
        en: 'The report does not say what information appeared in the responses. The words here come from the model\'s toy vocabulary; ⚑ marks a canary, a marker planted in each customer\'s prompts.',
        fr: 'Le rapport ne détaille pas la nature des informations apparues dans les réponses. Les mots affichés viennent du petit vocabulaire du modèle ; ⚑ signale un marqueur témoin placé dans les requêtes de chaque client.',
      },
      evidence: { facts: ['F6'] },
    },
  ],
  notes: {
    en: 'This is the checkpoint to linger on. Most rooms answer "an error" or "noise". The answer reads fluently, which is why status-code tests passed (F16).',
    fr: 'C\'est la question sur laquelle s\'attarder. La plupart des salles répondent « une erreur » ou « du bruit ». La réponse se lit bien, et c\'est pour cela que les tests de codes de réponse passaient (F16).',
  },
  checkpoint: {
    question: { en: 'Decode now reads all of delta\'s reserved pages. Whose text will delta\'s response contain?', fr: 'Le décodage lit maintenant toutes les pages réservées pour delta. Le texte de qui la réponse à delta contiendra-t-elle ?' },
    options: [
      { id: 'own', label: { en: 'Only delta\'s own', fr: 'Seulement celui de delta' } },
      { id: 'others', label: { en: 'Acme\'s, borealis\'s and cobalt\'s', fr: 'Celui d\'acme, de borealis et de cobalt' } },
      { id: 'error', label: { en: 'Nobody\'s: it ends with an error', fr: 'Celui de personne : elle finit en erreur' } },
      { id: 'noise', label: { en: 'Nobody\'s: random noise', fr: 'Celui de personne : du bruit' } },
    ],
    answer: 'others',
    explain: { en: 'The earlier customers\': their KV was in the pages decode read. HTTP 200, fluent, and leaked.', fr: 'Celui des clients précédents : leur KV était dans les pages lues. HTTP 200, fluide, et fuité.' },
  },
  steps: [
    { set: { scenario: 'demo', view: 'cluster' } },
    { select: OVER_LONG },
    { seek: TRANSFER_DONE },
    { highlight: 'node-decode-0' },
    { caption: { en: 'Delta\'s request holds these pages now. Who wrote them?', fr: 'La requête de delta tient ces pages. Qui les a écrites ?' } },
    { checkpoint: true },
    { set: { selectedPage: { node: 'decode-0', page: 3000 } } },
    { highlight: 'inspector' },
    { caption: { en: 'Held by delta, written for another customer: a cross-tenant read.', fr: 'Tenue par delta, écrite pour un autre client : une lecture entre clients.' } },
    { wait: 3000 },
    { set: { view: 'response' } },
    { seek: ANSWERED },
    { highlight: 'response-tokens' },
    { caption: { en: 'Tinted words were shaped by other customers\' pages.', fr: 'Les mots teintés ont été façonnés par les pages d\'autres clients.' } },
    { wait: 4000 },
  ],
};
