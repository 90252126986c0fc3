import type { Chapter } from './chapter.ts';
import { WARM } from './demo.ts';

export const chapter: Chapter = {
  id: 'kv-pages',
  title: { en: 'What a KV cache and a page are', fr: 'Ce que sont un cache KV et une page' },
  paragraphs: [
    {
      text: {
        en: 'A language model reads a prompt once and keeps, for every token, the keys and values its attention will need again: the KV cache.',
        fr: 'Un modèle de langage lit une requête une fois et garde, pour chaque jeton, les clés et les valeurs dont son attention aura de nouveau besoin : c\'est le cache KV.',
      },
      // General background on how attention works, not the report's: labelled as the project's account.
      evidence: { model: true },
    },
    {
      text: {
        en: 'It is what links each new word to the text already read.',
        fr: 'C\'est lui qui relie chaque nouveau mot au texte déjà traité.',
      },
      // The report's own sentence (F14's paragraph).
      evidence: { facts: ['F14'] },
    },
    {
      text: {
        en: 'In this distributed setup, the one GLM 5.3 ran on, some GPUs prepare the request (prefill), then hand its KV cache over RDMA to other GPUs that produce the response (decode).',
        fr: 'Dans cette architecture répartie, celle où tournait GLM 5.3, des processeurs graphiques préparent la requête (la préparation, prefill), puis transmettent son cache KV par RDMA à d\'autres, chargés de produire la réponse (la génération, decode).',
      },
      evidence: { facts: ['F18'] },
    },
    {
      text: {
        en: 'SGLang stores that cache in fixed-size pages. Each square in the grids is one page of one node, coloured by the customer whose request last wrote it. Node count, page size and customers are the model\'s assumptions.',
        fr: 'SGLang range ce cache dans des pages de taille fixe. Chaque case des grilles est une page d\'un nœud, colorée selon le client dont la requête l\'a écrite en dernier. Le nombre de nœuds, la taille des pages et les clients sont des hypothèses du modèle.',
      },
      evidence: { model: true },
    },
  ],
  notes: {
    en: 'Start from the picture, not the bug. Ask who has pasted a long document into a chatbot. Point at one square: one page of KV. Three customers (acme, borealis, cobalt) fill the memory; delta comes later.',
    fr: 'Partir de l\'image, pas du bogue. Demander qui a déjà collé un long document dans un agent conversationnel. Montrer une case : une page de KV. Trois clients (acme, borealis, cobalt) remplissent la mémoire ; delta viendra plus tard.',
  },
  steps: [
    { set: { scenario: 'demo', view: 'cluster' } },
    { seek: { fraction: 0 } },
    // In the legend's words: every square is "never written" here, as the grids draw it.
    { caption: { en: 'At start-up no page has been written yet: every square is "never written".', fr: 'Au démarrage, aucune page n\'a encore été écrite : chaque case est « jamais écrite ».' } },
    { highlight: 'grids' },
    { wait: 2500 },
    { caption: { en: 'Three customers\' requests arrive: prefill writes their KV, decode receives it, page by page.', fr: 'Les requêtes de trois clients arrivent : la préparation écrit leur KV, la génération le reçoit, page par page.' } },
    // Over in the time "Three customers' requests arrive:" is said (the caption's first cue in the
    // video): the key names all three by then.
    { tween: { to: WARM, ms: 1500 } },
    { highlight: 'legend' },
    { wait: 2500 },
  ],
};
