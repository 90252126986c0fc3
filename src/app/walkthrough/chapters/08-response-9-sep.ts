import type { Chapter } from '../chapter.ts';

export const chapter: Chapter = {
  id: 'response-9-sep',
  picture: 'day',
  title: { en: 'The response on 9 September', fr: 'La réaction du 9 septembre' },
  paragraphs: [
    {
      text: {
        en: 'On 8 September researcher Gadi Evron (Knostic) reported through HackerOne that very long requests sometimes received text from other sessions. Cloudflare began checking the next day.',
        fr: 'Le 8 septembre, le chercheur Gadi Evron (Knostic) a signalé par HackerOne que de très longues requêtes recevaient parfois du texte provenant d\'autres sessions. Cloudflare a commencé ses vérifications le lendemain.',
      },
      evidence: { facts: ['F7', 'F8'] },
    },
    {
      text: {
        en: 'Two independent accounts let the team reproduce the leak in under 25 minutes. An incident was declared at 13:22 UTC; the model was made private 38 minutes later, which made new requests fail.',
        fr: 'Deux comptes indépendants ont permis à l\'équipe de reproduire la fuite en moins de vingt-cinq minutes. Un incident a été déclaré à 13 h 22 UTC ; le modèle a été rendu privé trente-huit minutes plus tard, ce qui faisait échouer les nouvelles demandes.',
      },
      evidence: { facts: ['F9', 'F10', 'F11'] },
    },
    {
      text: {
        en: 'The root cause was identified at 14:35. GLM 5.3 was public again at 19:40, after configuration and engine changes tested with the researcher\'s script and Cloudflare\'s own detection markers.',
        fr: 'La cause principale a été identifiée à 14 h 35. GLM 5.3 est redevenu public à 19 h 40, après des changements de réglage et de moteur testés avec le script du chercheur et les propres marqueurs de détection de Cloudflare.',
      },
      evidence: { facts: ['F12', 'F13', 'F22'] },
    },
    {
      text: {
        en: 'At what time on 9 September checking began, when the test requests ran, and whether the reproduction came before the declaration are not in the report: the replay places them by assumption (A6, A7).',
        fr: 'L\'heure du début des vérifications le 9 septembre, celle des requêtes de test, et si la reproduction a précédé la déclaration ne figurent pas dans le rapport : la reconstitution les place par hypothèse (A6, A7).',
      },
      evidence: { model: true },
    },
  ],
  notes: {
    en: 'Walk the milestones on the timeline left to right. From declaration to private: 38 minutes. The report says only that making the model private made new requests fail; in the replay that ends the leak until the fix, because no new request reaches SGLang (A8).',
    fr: 'Parcourir les jalons de la chronologie de gauche à droite. De la déclaration à la mise en privé : trente-huit minutes. Le rapport dit seulement que rendre le modèle privé faisait échouer les nouvelles demandes ; dans la reconstitution, cela interrompt la fuite jusqu\'au correctif, car aucune nouvelle demande n\'atteint SGLang (A8).',
  },
  scenario: 'incident',
  steps: [
    { set: { view: 'cluster' } },
    // The day itself: at two weeks' scale its milestones share the last few pixels.
    { zoom: { from: { milestone: 'checksBegin' }, to: { fraction: 1 } } },
    // The day's clock moves between the milestones while each is said.
    { seek: { milestone: 'checksBegin' } },
    { highlight: 'timeline' },
    { caption: { en: '13:22 UTC: incident declared.', fr: '13 h 22 UTC : incident déclaré.' } },
    { tween: { to: { milestone: 'declared' }, ms: 2600 } },
    { wait: 400 },
    { caption: { en: '14:00: the model is private; new requests fail.', fr: '14 h 00 : le modèle est privé ; les nouvelles requêtes échouent.' } },
    { tween: { to: { milestone: 'private' }, ms: 2600 } },
    { wait: 400 },
    { caption: { en: '19:40: public again, with the configuration and the engine changed.', fr: '19 h 40 : de nouveau public, réglage et moteur modifiés.' } },
    { tween: { to: { milestone: 'public' }, ms: 3200 } },
    { wait: 800 },
  ],
};
