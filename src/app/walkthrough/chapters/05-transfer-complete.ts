import type { Chapter } from './chapter.ts';
import { OVER_LONG, SERVED } from './demo.ts';
import type { StageStepId } from '../../moment/stageFrame.ts';
import type { Instant } from './steps.ts';

/** A moment of the over-long request's handoff on the stage: a step, and a share of it. */
const stageAt = (stage: StageStepId, into = 0): Instant => ({ request: OVER_LONG, stage, into });

export const chapter: Chapter = {
  id: 'transfer-complete',
  title: { en: '"Transfer complete": one page written, every page trusted', fr: '« Transfert terminé » : une page écrite, toutes les pages tenues pour bonnes' },
  asked: { en: '"Transfer complete": what decode trusts', fr: '« Transfert terminé » : ce que la génération tient pour acquis' },
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
    en: 'On the stage, decode\'s block table is the outlined region: one solid page, thousands hatched or dotted; the slot view shows the first page of the block table. Ask what single number in the "done" message would have caught this: the transferred length.',
    fr: 'Sur la scène, la table des pages de la génération est la zone encadrée : une page pleine, des milliers hachurées ou pointillées ; la vue par emplacement montre la première page de la table des pages. Demander quel nombre, dans le message « terminé », aurait suffi à s\'en apercevoir : la longueur transférée.',
  },
  // Each sentence first, then the handoff clock plays what it names, at the pace of a viewer.
  steps: [
    { set: { scenario: 'demo', view: 'stage' } },
    { select: OVER_LONG },
    { seek: stageAt('reserve', 0.5) },
    { highlight: 'stage' },
    // The sentence over the reservation's second half sweeping the pool, not over a still recap.
    { caption: { en: 'Decode reserves pages for all 800,000 tokens.', fr: 'La génération réserve des pages pour les 800 000 jetons.', model: true } },
    { tween: { to: stageAt('reserve', 0.99), ms: 3600 } },
    { caption: { en: 'Prefill computed one token; the RDMA link carries one page.', fr: 'La préparation a calculé un jeton ; le lien RDMA porte une page.' } },
    { tween: { to: stageAt('compute', 0.99), ms: 4600 } },
    { wait: 600 },
    // A sentence of its own, so that the served request's pages start moving as it is said.
    { caption: { en: 'A served request carries all of its pages.', fr: 'Une requête servie porte toutes ses pages.' } },
    { select: SERVED },
    { seek: { request: SERVED, stage: 'compute', into: 0.1 } },
    { tween: { to: { request: SERVED, stage: 'compute', into: 0.95 }, ms: 2600 } },
    { caption: { en: 'RDMA writes one page; prefill reports Success.', fr: 'Le RDMA écrit une page ; la préparation annonce Success.' } },
    { select: OVER_LONG },
    { seek: stageAt('compute', 0.99) },
    { highlight: 'stage-caption' },
    { tween: { to: stageAt('done', 0.99), ms: 6000 } },
    { wait: 1500 },
  ],
};
