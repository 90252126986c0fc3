import type { Chapter } from '../chapter.ts';
import { ARRIVAL } from './demo.ts';

export const chapter: Chapter = {
  id: 'capacity-gap',
  title: { en: 'Defect one: a capacity gap known before launch', fr: 'Premier défaut : un écart de capacité connu avant le lancement' },
  paragraphs: [
    {
      text: {
        en: 'GLM 5.3 was advertised with a 1,048,576-token context, but the prefill KV cache could hold only 681,280 tokens. The gap was known before launch.',
        fr: 'GLM 5.3 annonçait un contexte de 1 048 576 jetons, mais le cache KV de préremplissage ne pouvait en garder que 681 280. L\'écart était connu avant le lancement.',
      },
      evidence: { facts: ['F14'] },
    },
    {
      text: {
        en: 'Cloudflare expected SGLang to refuse any longer request cleanly; no check tied the advertised capacity to the memory actually there.',
        fr: 'Cloudflare comptait sur SGLang pour refuser proprement toute requête plus longue ; aucun contrôle ne liait la capacité annoncée à la mémoire réellement disponible.',
      },
      evidence: { facts: ['F15'] },
    },
    {
      text: {
        en: 'Pre-launch tests checked status codes and performance, not whether the text made sense, and they returned apparent success. Every affected request exceeded 681,280 tokens.',
        fr: 'Les essais avant lancement vérifiaient les codes de réponse et les performances, pas la cohérence du texte, et renvoyaient un succès apparent. Toutes les requêtes touchées dépassaient 681 280 jetons.',
      },
      evidence: { facts: ['F16', 'F4'] },
    },
    {
      text: {
        en: 'The demo\'s over-long prompt (customer delta, 800,000 tokens) is the model\'s choice: any length between the two limits behaves the same.',
        fr: 'La requête trop longue de la démo (client delta, 800 000 jetons) est un choix du modèle : toute longueur entre les deux limites se comporte de même.',
      },
      evidence: { model: true },
    },
  ],
  notes: {
    en: 'Flip the switch yourself if the room wants to: with the gap closed, the leak counter drops to zero. Stress F16: a 200 with nonsense text passes a status-code test.',
    fr: 'Basculer l\'interrupteur soi-même si la salle le souhaite : sans l\'écart, le compteur de fuites tombe à zéro. Insister sur F16 : un 200 avec un texte absurde passe un test de codes de réponse.',
  },
  steps: [
    { set: { scenario: 'demo', view: 'cluster', switches: { capacityGap: false } } },
    { seek: ARRIVAL },
    { highlight: 'defects' },
    { caption: { en: 'Gap closed: prefill can hold the whole 800,000-token prompt. Nothing leaks.', fr: 'Écart comblé : le préremplissage peut garder les 800 000 jetons. Rien ne fuit.' } },
    { wait: 3500 },
    { set: { switches: { capacityGap: true } } },
    { caption: { en: 'The real deployment: the same prompt is over the prefill limit.', fr: 'Le déploiement réel : la même requête dépasse la limite du préremplissage.' } },
    { highlight: 'counters' },
    { wait: 3500 },
  ],
};
