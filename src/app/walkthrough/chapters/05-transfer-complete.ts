import type { Chapter } from '../chapter.ts';
import { ARRIVAL, OVER_LONG, TRANSFER_DONE } from './demo.ts';

export const chapter: Chapter = {
  id: 'transfer-complete',
  title: { en: '"Transfer complete": one page written, every page trusted', fr: '« Transfert terminé » : une page écrite, toutes les pages crues' },
  paragraphs: [
    {
      text: {
        en: 'The decode node reserved pages for the whole request, then received a message saying the transfer was complete, and assumed every reserved page held this request\'s data.',
        fr: 'Le nœud de décodage réservait des pages pour la requête complète, puis recevait un message annonçant la fin du transfert, et supposait que chaque page réservée contenait les données de la requête.',
      },
      evidence: { facts: ['F19'] },
    },
    {
      text: {
        en: 'Only one page had been overwritten, with the placeholder token; the others still held leftovers of earlier requests.',
        fr: 'Une seule page avait été réécrite, avec le jeton provisoire ; les autres contenaient encore des restes de requêtes précédentes.',
      },
      evidence: { facts: ['F20'] },
    },
    {
      text: {
        en: 'In SGLang\'s code the "done" message carries only the room id and a status: no count of pages or tokens, so decode has nothing to compare with what it reserved.',
        fr: 'Dans le code de SGLang, le message « terminé » ne porte que l\'identifiant de salle et un statut : aucun nombre de pages ni de jetons, donc rien que le décodage puisse comparer à sa réservation.',
      },
      evidence: { model: true },
    },
  ],
  notes: {
    en: 'The strip under the steps is decode\'s block table: one solid page, thousands hatched. Ask what single number in the "done" message would have caught this (the transferred length, SGLang PR #38704, still open).',
    fr: 'La bande sous les étapes est la table de blocs du décodage : une page pleine, des milliers hachurées. Demander quel nombre dans le message « terminé » aurait suffi (la longueur transférée, PR #38704 de SGLang, encore ouverte).',
  },
  steps: [
    { set: { scenario: 'demo', view: 'transfer' } },
    { select: OVER_LONG },
    { seek: ARRIVAL },
    { caption: { en: 'Decode reserves pages for all 800,000 tokens.', fr: 'Le décodage réserve des pages pour les 800 000 jetons.' } },
    { highlight: 'block-table' },
    { wait: 3000 },
    { tween: { to: TRANSFER_DONE, ms: 2500 } },
    { caption: { en: 'RDMA writes one page; prefill reports Success.', fr: 'Le RDMA écrit une page ; le préremplissage annonce Success.' } },
    { highlight: 'done-message' },
    { wait: 3500 },
  ],
};
