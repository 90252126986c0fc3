import type { Chapter } from './chapter.ts';
import { ARRIVAL } from './demo.ts';

export const chapter: Chapter = {
  id: 'capacity-gap',
  picture: 'capacity',
  title: { en: 'Defect one: a capacity gap known before launch', fr: 'Premier défaut : un écart de capacité connu avant le lancement' },
  paragraphs: [
    {
      text: {
        en: 'GLM 5.3 in theory accepted 1,048,576 tokens, but the prefill KV cache could hold only 681,280. The gap was known before launch.',
        fr: 'En théorie, GLM 5.3 acceptait 1 048 576 jetons, mais le cache KV de préparation ne pouvait en conserver que 681 280. L\'écart était connu avant le lancement.',
      },
      evidence: { facts: ['F14'] },
    },
    {
      text: {
        en: 'Cloudflare thought SGLang would cleanly refuse any over-long request; yet no check tied the advertised capacity to the memory actually available.',
        fr: 'Cloudflare pensait que SGLang refuserait proprement toute requête trop longue ; aucun contrôle ne liait pourtant la capacité annoncée à la mémoire réellement disponible.',
      },
      evidence: { facts: ['F15'] },
    },
    {
      text: {
        en: 'Pre-launch tests had mainly checked status codes and performance, not the coherence of the text, and they returned apparent success. Every affected request exceeded 681,280 tokens.',
        fr: 'Les essais préalables avaient surtout vérifié les codes de réponse et les performances, pas la cohérence du texte, et ils retournaient un succès apparent. Toutes les demandes affectées dépassaient 681 280 jetons.',
      },
      evidence: { facts: ['F16', 'F4'] },
    },
    {
      text: {
        en: 'The demo\'s over-long prompt (customer delta, 800,000 tokens) is the model\'s choice: any length between the two limits behaves the same.',
        fr: 'La requête trop longue de la démo (client delta, 800 000 jetons) est un choix du modèle : toute longueur comprise entre les deux limites se comporte de même.',
      },
      evidence: { model: true },
    },
  ],
  notes: {
    en: 'Flip the switch yourself if the room wants to: with the gap closed, the leak counter drops to zero. Stress F16: a successful response with the wrong text passes a test that mainly looks at status codes.',
    fr: 'Basculer l\'interrupteur soi-même si la salle le souhaite : sans l\'écart, le compteur de réponses touchées tombe à zéro. Insister sur F16 : une réponse réussie au texte faux passe un test qui regarde surtout les codes de réponse.',
  },
  steps: [
    { set: { scenario: 'demo', view: 'cluster', switches: { capacityGap: false } } },
    { seek: ARRIVAL },
    { highlight: 'defects' },
    { caption: { en: 'Gap closed: prefill can hold the whole 800,000-token prompt. Nothing leaks.', fr: 'Écart comblé : la préparation peut contenir les 800 000 jetons de la requête. Rien ne fuit.', model: true } },
    { wait: 3500 },
    { set: { switches: { capacityGap: true } } },
    { caption: { en: 'The incident\'s configuration: the same prompt is over the prefill limit.', fr: 'La configuration de l\'incident : la même requête dépasse la limite de la préparation.' } },
    { highlight: 'counters' },
    { wait: 3500 },
    // Where the grids show 10,646 pages of 64 and the chapter says 681,280: the arithmetic, said (the
    // page does in the grid's caption; the screen and the video, which show no hints, here).
    { caption: { en: 'Why 681,280: prefill-0 has 10,646 pages of 64 tokens, and page #0 is padding, never handed out: 10,645 × 64 = 681,280.', fr: 'Pourquoi 681 280 : prefill-0 a 10 646 pages de 64 jetons, et la page #0 sert de remplissage, jamais attribuée : 10 645 × 64 = 681 280.', model: true } },
    { highlight: 'node-prefill-0' },
    { wait: 3500 },
  ],
};
