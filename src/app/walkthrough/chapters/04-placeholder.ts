import type { Chapter } from './chapter.ts';
import { BEFORE_ARRIVAL, OVER_LONG } from './demo.ts';
import type { StageStepId } from '../../moment/stageFrame.ts';
import type { Instant } from './steps.ts';

/** A moment of the over-long request's handoff on the stage: a step, and a share of it. */
const stageAt = (stage: StageStepId, into = 0): Instant => ({ request: OVER_LONG, stage, into });

export const chapter: Chapter = {
  id: 'placeholder',
  title: { en: 'Defect two: rejected, yet sent on', fr: 'Second défaut : rejetée, mais transmise quand même' },
  asked: { en: 'Defect two: a prompt over the limit', fr: 'Second défaut : une requête au-delà de la limite' },
  paragraphs: [
    {
      text: {
        en: 'With prefill and decode on separate machines, SGLang marked an over-large request as rejected, but it still went on its way with provisional content of a single token. The client got a successful response instead of the expected error.',
        fr: 'Lorsque préparation et génération fonctionnaient sur des machines distinctes, SGLang marquait une requête trop grande comme rejetée, mais elle poursuivait malgré tout son trajet avec un contenu provisoire d\'un seul jeton. Le client recevait une réponse réussie plutôt que l\'erreur prévue.',
      },
      evidence: { facts: ['F17'] },
      answers: true,
    },
    {
      text: {
        en: 'A public SGLang issue describes a similar path: an aborted input is replaced by one placeholder token and still handed to decode. The report does not name it.',
        fr: 'Un ticket public de SGLang décrit un chemin semblable : une entrée abandonnée est remplacée par un jeton provisoire et tout de même confiée à la génération. Le rapport ne le cite pas.',
      },
      evidence: { background: ['B1'] },
      answers: true,
    },
    {
      text: {
        en: 'In SGLang\'s code the rejected request\'s input becomes the single token 0, "to skip the long prefill", as a comment says; the request itself is still handed on to decode.',
        fr: 'Dans le code de SGLang, l\'entrée de la requête rejetée devient le seul jeton 0, « pour sauter la longue préparation », dit un commentaire ; la requête, elle, est tout de même transmise à la génération.',
      },
      // B9 gives the placeholder and its comment, B1 that the request still goes on to decode.
      evidence: { background: ['B9', 'B1'] },
      answers: true,
    },
    {
      text: {
        en: 'The step list is the engine\'s model of SGLang\'s code, not Cloudflare\'s logs.',
        fr: 'La liste des étapes est le modèle que le moteur fait du code de SGLang, pas les journaux de Cloudflare.',
      },
      evidence: { model: true },
    },
  ],
  notes: {
    en: 'The mistake is that the request stays queued with its placeholder token: prefill now sees a one-token request, which passes every capacity check.',
    fr: 'L\'erreur : la requête reste dans la file, avec son jeton provisoire. La préparation voit alors une requête d\'un seul jeton, qui passe tous les contrôles de capacité.',
  },
  checkpoint: {
    firstScreenTells: true,
    question: { en: 'Over the limit: how many tokens will prefill compute?', fr: 'Au-delà de la limite : combien de jetons la préparation va-t-elle calculer ?' },
    options: [
      { id: 'all', label: { en: '800,000: all of them', fr: '800 000 : tous' } },
      { id: 'cap', label: { en: '681,280: as many as fit', fr: '681 280 : autant qu\'elle peut en contenir' } },
      { id: 'one', label: { en: 'One', fr: 'Un seul' } },
      { id: 'none', label: { en: 'None: the client gets HTTP 400', fr: 'Aucun : le client reçoit HTTP 400' } },
    ],
    answer: 'one',
    explain: { en: 'One: the scheduler swapped the input for a single placeholder token, and kept the request queued.', fr: 'Un seul : l\'ordonnanceur a remplacé l\'entrée par un jeton provisoire, et a gardé la requête dans la file.' },
  },
  // Each sentence first, then the handoff clock plays what it names, at the pace of a viewer; the
  // question is asked once the prompt has reached the router, and its answer is said as it reaches
  // the tokenizer; the tokenizer's check, then the abort and the queue, each with its own sentence.
  steps: [
    { set: { scenario: 'demo', view: 'stage' } },
    { select: OVER_LONG },
    { seek: BEFORE_ARRIVAL },
    { caption: { en: 'Delta\'s 800,000-token prompt arrives at the router.', fr: 'La requête de 800 000 jetons de delta arrive au routeur.', model: true } },
    { tween: { to: stageAt('arrive', 0.99), ms: 2400 } },
    { checkpoint: true },
    { highlight: 'stage' },
    // The answer is said as the prompt reaches the tokenizer; each sentence after it starts the step it names.
    { tween: { to: stageAt('tokenizer', 0.4), ms: 3000 } },
    { caption: { en: 'In the model, the tokenizer lets it through: 1,048,576 tokens is the advertised context (F14).', fr: 'Dans le modèle, le tokeniseur la laisse passer : le modèle acceptait théoriquement 1 048 576 jetons, son contexte annoncé (F14).', model: true } },
    { tween: { to: stageAt('tokenizer', 0.99), ms: 2400 } },
    { caption: { en: 'Marked aborted, input replaced by one token, still queued.', fr: 'Marquée abandonnée, entrée remplacée par un jeton, toujours dans la file.' } },
    { tween: { to: stageAt('route', 0.99), ms: 5600 } },
    { wait: 400 },
    { caption: { en: 'Decode takes pages for all 800,000 tokens from its free list, pages that still hold earlier tenants\' KV.', fr: 'La génération prend dans sa liste de pages libres des pages pour les 800 000 jetons, des pages qui gardent le KV de clients précédents.', model: true } },
    { tween: { to: stageAt('reserve', 0.99), ms: 5200 } },
    { wait: 600 },
    { highlight: 'stage-caption' },
    { caption: { en: 'Prefill computes one token: every capacity check passes.', fr: 'La préparation calcule un seul jeton : tous les contrôles de capacité passent.' } },
    { tween: { to: stageAt('prefill-alloc', 0.99), ms: 3200 } },
    { wait: 800 },
  ],
};
