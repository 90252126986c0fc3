import type { Chapter } from './chapter.ts';

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
        en: 'Cloudflare published its analysis on 26 October 2026, as coordinated disclosure.',
        fr: 'Cloudflare a publié son analyse le 26 octobre 2026, dans le cadre d\u2019une divulgation coordonnée.',
      },
      evidence: { facts: ['F3'] },
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
    // The report's last two days: at two weeks' scale its milestones share the last few pixels.
    { zoom: { from: { milestone: 'researcherReport' }, to: { fraction: 1 } } },
    // The clock moves from one milestone to the next while each is said, so the picture never stands still.
    { seek: { milestone: 'researcherReport' } },
    { highlight: 'timeline' },
    {
      caption: {
        en: 'On 8 September, researcher Gadi Evron, of Knostic, reports through HackerOne (F7). His report: very long requests sometimes receive text from other sessions.',
        fr: 'Le 8 septembre, le chercheur Gadi Evron, de Knostic, signale par HackerOne (F7) que de très longues demandes reçoivent parfois du texte d\u2019autres sessions.',
      },
    },
    { tween: { to: { milestone: 'checksBegin' }, ms: 11000 } },
    // The day itself, so that its four times can be written in words under the lanes.
    { zoom: { from: { milestone: 'checksBegin' }, to: { fraction: 1 } } },
    {
      caption: {
        en: 'Cloudflare begins checking the next day (F8). Two independent accounts let the team reproduce the leak in under 25 minutes (F9).',
        fr: 'Cloudflare commence ses vérifications le lendemain (F8). Avec deux comptes indépendants, l\u2019équipe reproduit la fuite en moins de vingt-cinq minutes (F9).',
      },
    },
    { tween: { to: { milestone: 'declared' }, ms: 9500 } },
    // Each time is reached as its sentence begins (its card lights as it is said); while it is said,
    // the clock moves on to the time the next sentence names.
    { caption: { en: '13:22 UTC: Cloudflare declares an incident (F10).', fr: '13 h 22 UTC : Cloudflare déclare un incident (F10).' } },
    { tween: { to: { milestone: 'private' }, ms: 4000 } },
    { caption: { en: '38 minutes later, at 14:00, the model is made private; new requests fail (F11).', fr: 'Trente-huit minutes plus tard, à 14 h 00, le modèle est rendu privé ; les nouvelles demandes échouent (F11).' } },
    { tween: { to: { milestone: 'rootCause' }, ms: 5000 } },
    { caption: { en: '14:35: the root cause is identified (F12).', fr: '14 h 35 : la cause principale est identifiée (F12).' } },
    { tween: { to: { milestone: 'public' }, ms: 3400 } },
    {
      caption: {
        en: 'At 19:40, GLM 5.3 is public again, after configuration and engine changes (F13). They were tested with the researcher\u2019s script and Cloudflare\u2019s own markers.',
        fr: 'À 19 h 40, GLM 5.3 redevient public, après modification du réglage et du moteur (F13). Ces changements ont été testés avec le script du chercheur et les marqueurs de Cloudflare.',
      },
    },
    // The evening of 9 September (the run ends at midnight): the clock keeps moving while the last two sentences are said.
    { tween: { to: { fraction: 0.995 }, ms: 6500 } },
    {
      caption: {
        en: 'Cloudflare published its analysis on 26 October, as coordinated disclosure (F3).',
        fr: 'Cloudflare a publié son analyse le 26 octobre, dans le cadre d\u2019une divulgation coordonnée (F3).',
      },
    },
    { tween: { to: { fraction: 1 }, ms: 4000 } },
  ],
};
