import type { Chapter } from '../chapter.ts';
import { ARRIVAL, OVER_LONG, TRANSFER_DONE } from './demo.ts';

export const chapter: Chapter = {
  id: 'transfer-complete',
  title: { en: '"Transfer complete": one page written, every page trusted', fr: '« Transfert terminé » : une page écrite, toutes les pages tenues pour bonnes' },
  paragraphs: [
    {
      text: {
        en: 'The decode node reserved enough pages for the whole request, then received a message saying the transfer was complete, and so assumed every reserved page held the current request\'s data.',
        fr: 'Le nœud de génération réservait assez de pages pour la requête complète, puis recevait un message annonçant que le transfert était terminé, et supposait donc que chaque page réservée contenait les informations de la requête en cours.',
      },
      evidence: { facts: ['F19'] },
    },
    {
      text: {
        en: 'The rejected request had overwritten only one page, with its placeholder token; the others still held information left by earlier requests.',
        fr: 'La requête rejetée n\'avait remplacé qu\'une seule page, avec son jeton provisoire ; les autres contenaient encore des informations laissées par des requêtes précédentes.',
      },
      evidence: { facts: ['F20'] },
    },
    {
      text: {
        en: 'In SGLang\'s code the "done" message carries the room id, a status and the sender\'s rank, but no count of pages or tokens: decode has nothing to compare with what it reserved. A check of the transferred length, the idea of SGLang PR #38704 (still open), needs that count.',
        fr: 'Dans le code de SGLang, le message « terminé » porte l\'identifiant de rendez-vous, un statut et le rang de l\'émetteur, mais aucun nombre de pages ni de jetons : la génération n\'a rien à comparer à sa réservation. Un contrôle de la longueur transférée, l\'idée de la PR #38704 de SGLang (encore ouverte), a besoin de ce nombre.',
      },
      evidence: { background: ['B10', 'B4'] },
    },
  ],
  notes: {
    en: 'The strip under the steps is decode\'s block table: one solid page, thousands hatched. Ask what single number in the "done" message would have caught this: the transferred length.',
    fr: 'La bande sous les étapes est la table des pages de la génération : une page pleine, des milliers hachurées. Demander quel nombre, dans le message « terminé », aurait suffi à s\'en apercevoir : la longueur transférée.',
  },
  steps: [
    { set: { scenario: 'demo', view: 'transfer' } },
    { select: OVER_LONG },
    { seek: ARRIVAL },
    { caption: { en: 'Decode reserves pages for all 800,000 tokens.', fr: 'La génération réserve des pages pour les 800 000 jetons.' } },
    { highlight: 'block-table' },
    { wait: 3000 },
    { tween: { to: TRANSFER_DONE, ms: 2500 } },
    { caption: { en: 'RDMA writes one page; prefill reports Success.', fr: 'Le RDMA écrit une page ; la préparation annonce Success.' } },
    { highlight: 'done-message' },
    { wait: 3500 },
  ],
};
