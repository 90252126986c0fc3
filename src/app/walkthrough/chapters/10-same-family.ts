import type { Chapter } from './chapter.ts';
import { ANSWERED, OVER_LONG, TRANSFER_DONE } from './demo.ts';

export const chapter: Chapter = {
  id: 'same-family',
  picture: 'compare',
  title: { en: 'The same family: state handed to the wrong party', fr: 'La même famille : un état remis au mauvais destinataire' },
  paragraphs: [
    {
      text: {
        en: 'ChatGPT, 20 March 2023: a cancelled request left a pooled Redis connection one reply behind (a bug in the redis-py client). Some users could see the titles of others\' chats, and OpenAI wrote that payment-related information of 1.2% of Plus subscribers active in a nine-hour window may have been visible to others.',
        fr: 'ChatGPT, 20 mars 2023 : une requête annulée a laissé une connexion Redis partagée en retard d\'une réponse (un bogue du client redis-py). Des utilisateurs ont pu voir les titres des conversations d\'autres, et OpenAI a écrit que des informations de paiement de 1,2 % des abonnés Plus actifs pendant neuf heures ont pu être visibles par d\'autres.',
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
        fr: 'LeftoverLocals, 2024 (CVE-2023-4969) : la mémoire locale des GPU n\'était pas effacée entre deux noyaux de calcul, si bien qu\'un processus voisin pouvait lire la session de modèle de langage d\'un autre.',
      },
      evidence: { background: ['B7'] },
    },
    {
      text: {
        en: 'The common thread, as this project reads it: state meant for one party (a reply on a connection, a buffer, GPU memory, a KV page) reaches another, because a shared resource is reused and trusted to hold only the current owner\'s data, with nothing that checks who wrote what is read.',
        fr: 'Le fil commun, selon la lecture de ce projet : un état destiné à l\'un (une réponse sur une connexion, un tampon, de la mémoire de GPU, une page KV) parvient à un autre, parce qu\'une ressource partagée est réutilisée comme si elle ne contenait que les données de son détenteur actuel, sans rien qui vérifie qui a écrit ce qui est lu.',
      },
      evidence: { model: true },
    },
  ],
  notes: {
    en: 'Close on the pattern, not the company. Ask the room where their own systems reuse a buffer, a connection or a page across tenants, and what would notice a wrong owner. End on the comparison lane: a per-read integrity check stops the request with an error instead of answering. Then open the list of what the report says, what we assume and what it does not say.',
    fr: 'Conclure sur le motif, pas sur l\'entreprise. Demander à la salle où leurs propres systèmes réutilisent un tampon, une connexion ou une page d\'un client à l\'autre, et ce qui remarquerait un mauvais propriétaire. Finir sur la ligne de comparaison : un contrôle d\'intégrité à chaque lecture arrête la requête sur une erreur au lieu de répondre. Ouvrir ensuite la liste de ce que dit le rapport, de ce que nous supposons et de ce qu\'il ne dit pas.',
  },
  steps: [
    { set: { scenario: 'demo', view: 'cluster', compare: 'perReadIntegrityCheck' } },
    { select: OVER_LONG },
    { seek: TRANSFER_DONE },
    { highlight: 'timeline' },
    { caption: { en: 'The comparison lane: with a per-read integrity check, the same request stops with HTTP 500 instead of leaking.', fr: 'La ligne de comparaison : avec un contrôle d\'intégrité à chaque lecture, la même requête s\'arrête sur une erreur HTTP 500 au lieu de livrer le KV d\'autres clients.', model: true } },
    { wait: 4000 },
  ],
  // The video points at each outcome as it is said, so the picture follows the sentence instead of
  // holding still under two lines of narration.
  videoSteps: [
    { set: { scenario: 'demo', view: 'cluster', compare: 'perReadIntegrityCheck' } },
    { select: OVER_LONG },
    { seek: TRANSFER_DONE },
    { caption: { en: 'As deployed in the incident, the over-long request got a successful answer built from other customers\' pages.', fr: 'Dans le déploiement de l\'incident, la demande trop longue a reçu une réponse réussie, bâtie sur les pages d\'autres clients.', model: true } },
    { highlight: 'outcome-actual' },
    // The answer leaves while it is said: the counter of leaked responses sent turns over.
    { tween: { to: ANSWERED, ms: 3000 } },
    { caption: { en: 'With a per-read integrity check, the same request stops: HTTP 500, no leak.', fr: 'Avec un contrôle d\'intégrité à chaque lecture, la même requête s\'arrête : erreur HTTP 500, aucune fuite.', model: true } },
    { highlight: 'outcome-fixed' },
    { wait: 2000 },
  ],
};
