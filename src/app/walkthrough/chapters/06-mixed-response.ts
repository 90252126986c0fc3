import type { Chapter } from './chapter.ts';
import { ANSWERED, OVER_LONG } from './demo.ts';
import type { StageStepId } from '../../moment/stageFrame.ts';
import type { Instant } from './steps.ts';

/** A moment of the over-long request's handoff on the stage: a step, and a share of it. */
const stageAt = (stage: StageStepId, into = 0): Instant => ({ request: OVER_LONG, stage, into });

export const chapter: Chapter = {
  id: 'mixed-response',
  title: { en: 'A coherent answer built from other customers\' KV', fr: 'Une réponse cohérente bâtie sur le KV d\'autres clients' },
  asked: { en: 'What decode makes of the pages it reads', fr: 'Ce que la génération fait des pages qu\'elle lit' },
  paragraphs: [
    {
      text: {
        en: 'The decode node composed a coherent response from the mixture, without the expected error. According to Cloudflare, every request over the threshold took this path.',
        fr: 'Le nœud de génération a composé une réponse cohérente à partir de ce mélange, sans produire l\'erreur attendue. Selon Cloudflare, chaque requête franchissant le seuil suivait ce chemin.',
      },
      evidence: { facts: ['F21'] },
      answers: true,
    },
    {
      text: {
        en: 'The report does not say what information appeared in the responses.',
        fr: 'Le rapport ne détaille pas la nature des informations apparues dans les réponses.',
      },
      evidence: { facts: ['F6'] },
    },
    {
      text: {
        en: 'The words here come from the model\'s toy vocabulary over synthetic records: they say nothing about what kind of data leaked. ⚑ marks a canary the model plants in every customer\'s documents, a modelling device that Cloudflare\'s method, markers of its own used in its tests (F13, F22), suggested.',
        fr: 'Les mots affichés viennent du petit vocabulaire du modèle, sur des enregistrements synthétiques : ils ne disent rien de la nature des données divulguées. ⚑ signale un marqueur témoin que le modèle place dans les documents de chaque client, un artifice inspiré de la méthode de Cloudflare, ses propres marqueurs employés dans ses tests (F13, F22).',
      },
      evidence: { model: true },
    },
  ],
  notes: {
    en: 'This is the checkpoint to linger on. Most rooms answer "an error" or "noise". The answer is coherent text and a successful response instead of the expected error (F21, F17; the report gives no status code, the replay answers HTTP 200), and a success is what a status-code test looks at (F16).',
    fr: 'C\'est la question sur laquelle s\'attarder. La plupart des salles répondent « une erreur » ou « du bruit ». La réponse est un texte cohérent et une réponse réussie plutôt que l\'erreur prévue (F21, F17 ; le rapport ne donne aucun code, la reconstitution répond HTTP 200), et c\'est ce succès que regarde un test des codes de réponse (F16).',
  },
  checkpoint: {
    firstScreenTells: true,
    question: { en: 'Decode now reads all of delta\'s reserved pages. Whose text will delta\'s response contain?', fr: 'La génération lit maintenant toutes les pages réservées pour delta. De qui viendra le texte de la réponse à delta ?' },
    options: [
      { id: 'own', label: { en: 'Only delta\'s own', fr: 'De delta seulement' } },
      { id: 'others', label: { en: 'Acme\'s and borealis\'s', fr: 'D\'acme et de borealis' } },
      { id: 'error', label: { en: 'Nobody\'s: it ends with an error', fr: 'De personne : elle finit en erreur' } },
      { id: 'noise', label: { en: 'Nobody\'s: random noise', fr: 'De personne : du bruit' } },
    ],
    answer: 'others',
    // Decode reads every page delta holds, cobalt's among them; the answer's words come from the KV that
    // attention picks in them, acme's and borealis's in this run: both said, so that the counts under the
    // microscope (cobalt's pages too) do not contradict the answer.
    explain: { en: 'The earlier customers\': their KV is still in the pages delta\'s request holds (acme\'s, borealis\'s and cobalt\'s), decode reads all of it as delta\'s, and the answer\'s words come from it: acme\'s and borealis\'s here.', fr: 'Des clients précédents : leur KV est encore dans les pages attribuées à delta (celui d\'acme, de borealis et de cobalt), la génération le lit tout entier comme celui de delta, et les mots de la réponse en viennent : ceux d\'acme et de borealis ici.' },
  },
  // Each sentence first, then the handoff clock plays what it names, at the pace of a viewer; the
  // answer to the question is said over decode's scan.
  steps: [
    { set: { scenario: 'demo', view: 'stage' } },
    { select: OVER_LONG },
    // The question is asked at "transfer complete", before decode's scan: no page is read yet, so
    // nothing on the stage says whose KV they hold (its pages' writers are held back, HandoffPicture).
    { seek: stageAt('done', 0.99) },
    { highlight: 'stage' },
    { caption: { en: 'Delta\'s request holds these pages now. Who wrote them?', fr: 'Ces pages sont maintenant attribuées à la requête de delta. Qui les a écrites ?' } },
    { checkpoint: true },
    { tween: { to: stageAt('scan', 0.98), ms: 4800 } },
    { highlight: 'stage-caption' },
    { caption: { en: 'Decode reads every reserved page: each lights in the colour of the customer who last wrote it. Each word is joined to the page it drew on most, tinted by whose KV that was.', fr: 'La génération lit chaque page réservée : chacune s\'allume de la couleur du client qui l\'a écrite en dernier. Chaque mot est relié à la page qui a le plus compté, teintée selon le client dont c\'était le KV.' } },
    { tween: { to: stageAt('stream', 0.99), ms: 11000 } },
    { wait: 400 },
    { caption: { en: 'HTTP 200 reaches the client.', fr: 'HTTP 200 arrive chez le client.', model: true } },
    { tween: { to: stageAt('response', 0.99), ms: 4200 } },
    { wait: 400 },
    { set: { view: 'response' } },
    { seek: ANSWERED },
    { highlight: 'response-tokens' },
    { caption: { en: 'Tinted words were shaped by other customers\' pages.', fr: 'Les mots teintés ont été façonnés par les pages d\'autres clients.' } },
    { wait: 2500 },
  ],
};
