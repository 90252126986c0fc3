import type { Chapter } from './chapter.ts';
import { ANSWERED, OVER_LONG } from './demo.ts';

export const chapter: Chapter = {
  id: 'fixes',
  title: { en: 'The fixes, and what is still open', fr: 'Les correctifs, et ce qui reste à faire' },
  paragraphs: [
    {
      text: {
        en: 'The final configuration gives the prefill cache about 2.04 million tokens, and SGLang was changed so that a rejected request stops before any memory reservation or transfer.',
        fr: 'La configuration finale porte le cache de préparation à environ 2,04 millions de jetons, et SGLang a été modifié pour qu\'une requête rejetée s\'arrête avant toute réservation ou transmission de mémoire.',
      },
      evidence: { facts: ['F23', 'F24'] },
    },
    {
      text: {
        en: 'Done: Cloudflare applied capacity checks and several protections to all its SGLang deployments, and the maintainers published successive fixes.',
        fr: 'Déjà en place : Cloudflare a appliqué des contrôles de capacité et plusieurs protections à tous ses déploiements SGLang, et les mainteneurs ont publié des corrections successives.',
      },
      evidence: { facts: ['F26'] },
    },
    {
      text: {
        en: 'Still open: some integrity checks do not yet cover every model architecture; work continues on checks at every memory read and on formal verification of the transfer protocol, and Cloudflare acknowledges that gaps may remain.',
        fr: 'Reste à faire : certaines vérifications d\'intégrité ne couvrent pas encore toutes les architectures de modèles ; le travail se poursuit sur des contrôles à chaque lecture mémoire et sur la vérification formelle du protocole de transfert, et Cloudflare reconnaît que des lacunes pourront subsister.',
      },
      evidence: { facts: ['F26'] },
    },
    {
      text: {
        en: 'Cloudflare\'s reading also rests on the timing and volume of the logged requests: after removing its own tests and the researcher\'s, it judges them consistent with ordinary long-context use, and so sees no sign of deliberate exploitation; that conclusion describes neither the exact content exposed, nor how many customers were concerned, nor what their systems may have kept; it means only that the traces examined show no repeated abuse.',
        fr: 'L\'interprétation de Cloudflare repose aussi sur le calendrier et le volume des demandes enregistrées : après retrait de ses propres tests et de ceux du chercheur, elle les juge compatibles avec un usage ordinaire de longs contextes, et ne voit donc aucun indice d\'exploitation délibérée ; cette conclusion ne décrit ni le contenu exact exposé, ni le nombre de clients concernés, ni ce que leurs systèmes ont pu conserver ; elle signifie seulement que les traces examinées ne montrent pas d\'abus répété.',
      },
      evidence: { facts: ['F25'] },
    },
    {
      text: {
        en: 'Upstream, SGLang PR #38935, described on 10 September, retires rejected requests at admission on both sides, before any handshake; it calls itself a waste-and-latency fix. The stale-KV symptom no longer reproduces upstream after PR #36988, which retires aborted prefill results without any KV send. Neither is necessarily the change Cloudflare had live at 19:40 on 9 September.',
        fr: 'En amont, la PR #38935 de SGLang, décrite le 10 septembre, retire les requêtes rejetées dès l\'admission, des deux côtés, avant tout échange ; elle se présente comme une correction de gaspillage et de latence. Le symptôme du KV périmé ne se reproduit plus en amont après la PR #36988, qui retire les résultats de préparation abandonnés sans envoi de KV. Aucune des deux n\'est forcément le changement que Cloudflare avait mis en service à 19 h 40 le 9 septembre.',
      },
      evidence: { background: ['B3', 'B2'] },
    },
  ],
  notes: {
    en: 'The checkpoint shows why "clear pages on free" is not a fix on its own: it turns a leak into a confident wrong answer with HTTP 200. Then show the two real fixes, one at a time.',
    fr: 'La question montre pourquoi « effacer les pages libérées » ne suffit pas : la fuite devient une réponse fausse et assurée, en HTTP 200. Montrer ensuite les deux vrais correctifs, l\'un après l\'autre.',
  },
  checkpoint: {
    question: { en: 'Suppose the only change is that freed pages are cleared. What does delta get?', fr: 'Supposons que le seul changement soit d\'effacer les pages libérées. Que reçoit delta ?' },
    options: [
      { id: 'same', label: { en: 'The same leak', fr: 'La même fuite' } },
      { id: '400', label: { en: 'An HTTP 400 error', fr: 'Une erreur HTTP 400' } },
      { id: 'wrong', label: { en: 'HTTP 200, no leak, but a wrong answer', fr: 'HTTP 200, sans fuite, mais une réponse fausse' } },
      { id: 'right', label: { en: 'The right answer', fr: 'La bonne réponse' } },
    ],
    answer: 'wrong',
    explain: { en: 'No leak, still HTTP 200 (the model\'s status), still wrong: decode reads zeroed pages as if they were the prompt.', fr: 'Pas de fuite, toujours HTTP 200 (le statut du modèle), toujours faux : la génération lit des pages à zéro comme si elles contenaient la requête.' },
  },
  steps: [
    // As deployed in the incident: the end of the leaking handoff plays on the stage while it is said; the question
    // is asked over the answer it got.
    { set: { scenario: 'demo', view: 'stage' } },
    { select: OVER_LONG },
    { seek: { request: OVER_LONG, stage: 'stream', into: 0.5 } },
    { caption: { en: 'As deployed in the incident: a leak with HTTP 200.', fr: 'Tel que déployé lors de l\'incident : une fuite, en HTTP 200.', model: true } },
    { tween: { to: { request: OVER_LONG, stage: 'response', into: 0.99 }, ms: 4200 } },
    { set: { view: 'response' } },
    { seek: ANSWERED },
    { checkpoint: true },
    // The case the question asked about, played where it can be seen: the same handoff over pages the
    // free has zeroed; each token rises out of an empty slot, and the answer reads none of the tenants.
    // The answer is said while the first tokens rise; the caption over the rest of the stream.
    { set: { switches: { clearPagesOnFree: true }, view: 'stage' } },
    { seek: { request: OVER_LONG, stage: 'stream', into: 0 } },
    { highlight: 'stage' },
    { tween: { to: { request: OVER_LONG, stage: 'stream', into: 0.7 }, ms: 7000 } },
    { caption: { en: 'Pages cleared on free: nothing leaks, but the answer is wrong.', fr: 'Pages effacées à la libération : rien ne fuit, mais la réponse est fausse.' } },
    { tween: { to: { request: OVER_LONG, stage: 'response', into: 0.99 }, ms: 3600 } },
    { set: { view: 'response' } },
    { highlight: 'response-leak' },
    { wait: 1500 },
    // The two real fixes, each played on the stage: the same over-long prompt, one fix at a time.
    { set: { switches: { clearPagesOnFree: false, buggyRejectPath: false }, view: 'stage' } },
    { seek: { request: OVER_LONG, stage: 'arrive', into: 0 } },
    { highlight: 'stage' },
    { caption: { en: 'Fixed reject path: the request stops before any reservation (F24). The HTTP 400 it gets is the model\'s status code, not the report\'s.', fr: 'Chemin de rejet corrigé : la requête s\'arrête avant toute réservation (F24). Le code HTTP 400 qu\'elle reçoit est celui du modèle, pas du rapport.', model: true } },
    { tween: { to: { request: OVER_LONG, stage: 'response', into: 0.99 }, ms: 6500 } },
    { wait: 1500 },
    { set: { switches: { buggyRejectPath: true, capacityGap: false }, view: 'stage' } },
    { seek: { request: OVER_LONG, stage: 'compute', into: 0 } },
    { caption: { en: 'Enough prefill capacity: the prompt is served for real (F23).', fr: 'Capacité de préparation suffisante : la requête est vraiment servie (F23).' } },
    { tween: { to: { request: OVER_LONG, stage: 'response', into: 0.99 }, ms: 5000 } },
    { set: { view: 'response' } },
    { highlight: 'response-leak' },
    { wait: 1500 },
  ],
};
