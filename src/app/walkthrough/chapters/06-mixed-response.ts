import type { Chapter } from '../chapter.ts';
import { ANSWERED, OVER_LONG, TRANSFER_DONE } from './demo.ts';

export const chapter: Chapter = {
  id: 'mixed-response',
  title: { en: 'A coherent answer built from other customers\' KV', fr: 'Une réponse cohérente bâtie sur le KV d\'autres clients' },
  paragraphs: [
    {
      text: {
        en: 'The decode node composed a coherent response from the mixture, without the expected error. According to Cloudflare, every request over the threshold took this path.',
        fr: 'Le nœud de génération a composé une réponse cohérente à partir de ce mélange, sans produire l\'erreur attendue. Selon Cloudflare, chaque requête franchissant le seuil suivait ce chemin.',
      },
      evidence: { facts: ['F21'] },
    },
    {
      text: {
        en: 'The report does not say what information appeared in the responses.',
        fr: 'Le rapport ne détaille pas la nature des informations apparues dans les réponses.',
      },
      evidence: { facts: ['F6'] },
    },
    {
      text: {
        en: 'The words here come from the model\'s toy vocabulary over synthetic records: they say nothing about what kind of data leaked. ⚑ marks a canary the model plants in every customer\'s documents, a modelling device that Cloudflare\'s method, markers of its own used in its tests (F13, F22), suggested.',
        fr: 'Les mots affichés viennent du petit vocabulaire du modèle, sur des enregistrements synthétiques : ils ne disent rien de la nature des données divulguées. ⚑ signale un marqueur témoin que le modèle place dans les documents de chaque client, un artifice inspiré de la méthode de Cloudflare, ses propres marqueurs employés dans ses tests (F13, F22).',
      },
      evidence: { model: true },
    },
  ],
  notes: {
    en: 'This is the checkpoint to linger on. Most rooms answer "an error" or "noise". The answer is fluent text with HTTP 200, and a status of 200 is what a status-code test looks at (F16).',
    fr: 'C\'est la question sur laquelle s\'attarder. La plupart des salles répondent « une erreur » ou « du bruit ». La réponse est un texte fluide avec HTTP 200, et c\'est ce code 200 que regarde un test des codes de réponse (F16).',
  },
  checkpoint: {
    question: { en: 'Decode now reads all of delta\'s reserved pages. Whose text will delta\'s response contain?', fr: 'La génération lit maintenant toutes les pages réservées pour delta. De qui viendra le texte de la réponse à delta ?' },
    options: [
      { id: 'own', label: { en: 'Only delta\'s own', fr: 'De delta seulement' } },
      { id: 'others', label: { en: 'Acme\'s and borealis\'s', fr: 'D\'acme et de borealis' } },
      { id: 'error', label: { en: 'Nobody\'s: it ends with an error', fr: 'De personne : elle finit en erreur' } },
      { id: 'noise', label: { en: 'Nobody\'s: random noise', fr: 'De personne : du bruit' } },
    ],
    answer: 'others',
    explain: { en: 'The earlier customers\': their KV was in the pages decode read. HTTP 200, fluent, and leaked.', fr: 'Des clients précédents : leur KV était dans les pages lues. HTTP 200, un texte fluide, et une réponse touchée.' },
  },
  steps: [
    { set: { scenario: 'demo', view: 'cluster' } },
    { select: OVER_LONG },
    { seek: TRANSFER_DONE },
    { highlight: 'node-decode-0' },
    { caption: { en: 'Delta\'s request holds these pages now. Who wrote them?', fr: 'Ces pages sont maintenant attribuées à la requête de delta. Qui les a écrites ?' } },
    { checkpoint: true },
    { set: { selectedPage: { node: 'decode-0', page: 3000 } } },
    { highlight: 'inspector' },
    { caption: { en: 'Held by delta, written for another customer: a cross-tenant read.', fr: 'Attribuée à delta, écrite pour un autre client : une lecture croisée entre clients.' } },
    { wait: 3000 },
    { set: { view: 'response' } },
    { seek: ANSWERED },
    { highlight: 'response-tokens' },
    { caption: { en: 'Tinted words were shaped by other customers\' pages.', fr: 'Les mots teintés ont été façonnés par les pages d\'autres clients.' } },
    { wait: 4000 },
  ],
};
