import type { Chapter } from '../chapter.ts';
import { OVER_LONG, TRANSFER_DONE } from './demo.ts';

export const chapter: Chapter = {
  id: 'same-family',
  title: { en: 'The same family: memory handed on without being cleared', fr: 'La même famille : une mémoire transmise sans être effacée' },
  paragraphs: [
    {
      text: {
        en: 'ChatGPT, 20 March 2023: a cancelled request left a pooled Redis connection one reply behind, so some users saw others\' chat titles and, for 1.2% of Plus subscribers active in a nine-hour window, partial payment data.',
        fr: 'ChatGPT, 20 mars 2023 : une requête annulée a laissé une connexion Redis partagée en retard d\'une réponse ; des utilisateurs ont vu les titres de conversation d\'autres et, pour 1,2 % des abonnés Plus actifs pendant neuf heures, des données de paiement partielles.',
      },
      evidence: { background: ['B5'] },
    },
    {
      text: {
        en: 'Cloudbleed, February 2017: an HTML parser at Cloudflare overran its buffer and returned uninitialised memory holding other customers\' data.',
        fr: 'Cloudbleed, février 2017 : un analyseur HTML de Cloudflare dépassait son tampon et renvoyait de la mémoire non initialisée contenant des données d\'autres clients.',
      },
      evidence: { background: ['B6'] },
    },
    {
      text: {
        en: 'LeftoverLocals, 2024 (CVE-2023-4969): GPU local memory was not cleared between kernels, so a co-resident process could read another\'s LLM session.',
        fr: 'LeftoverLocals, 2024 (CVE-2023-4969) : la mémoire locale des GPU n\'était pas effacée entre deux noyaux, si bien qu\'un processus voisin pouvait lire la session LLM d\'un autre.',
      },
      evidence: { background: ['B7'] },
    },
    {
      text: {
        en: 'The common thread, as this project reads it: a shared resource is reused across customers and trusted to hold only the current owner\'s data, with nothing that checks who wrote what is read.',
        fr: 'Le fil commun, selon la lecture de ce projet : une ressource partagée est réutilisée d\'un client à l\'autre et crue ne contenir que les données de son détenteur actuel, sans rien qui vérifie qui a écrit ce qui est lu.',
      },
      evidence: { model: true },
    },
  ],
  notes: {
    en: 'Close on the pattern, not the company. Ask the room where their own systems reuse a buffer, a connection or a page across tenants, and what would notice a wrong owner. End on the comparison lane: a per-read ownership check fails closed.',
    fr: 'Conclure sur le motif, pas sur l\'entreprise. Demander à la salle où leurs systèmes réutilisent un tampon, une connexion ou une page entre clients, et ce qui remarquerait un mauvais propriétaire. Finir sur la ligne de comparaison : un contrôle de propriété à chaque lecture échoue proprement.',
  },
  steps: [
    { set: { scenario: 'demo', view: 'cluster', compare: 'perReadIntegrityCheck' } },
    { select: OVER_LONG },
    { seek: TRANSFER_DONE },
    { highlight: 'timeline' },
    { caption: { en: 'The comparison lane: with a per-read ownership check, the same request fails closed.', fr: 'La ligne de comparaison : avec un contrôle de propriété à chaque lecture, la même requête échoue proprement.' } },
    { wait: 4000 },
  ],
};
