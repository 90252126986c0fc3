import type { Chapter } from './chapter.ts';
import type { Step } from './steps.ts';

/** How long the video's sweep across the two weeks takes. */
const WINDOW_SWEEP_MS = 9000;

const OPENING: Step[] = [
  { set: { view: 'cluster' } },
  { seek: { milestone: 'windowStart' } },
  { highlight: 'timeline' },
  { caption: { en: 'The replayed window: each mark is a leaked response of the model\'s traffic; the milestones are the report\'s.', fr: 'La période reconstituée : chaque marque est une réponse touchée du trafic modélisé ; les jalons viennent du rapport.' } },
  { wait: 2500 },
];

const ACCUMULATE: Step[] = [
  { caption: { en: 'Leaked responses accumulate, each with HTTP 200.', fr: 'Les réponses touchées s\'accumulent, toutes en HTTP 200.', model: true } },
  { highlight: 'counters' },
];

/** What the report leaves unsaid about the leak, in its own hedges (F6; F25's last sentence). */
const NOT_SAID: Step[] = [
  {
    caption: {
      en: 'The report does not say what information appeared in the responses (F6), nor how many customers were concerned, nor what data their systems may have kept (F25).',
      fr: 'Le rapport ne dit pas quelles informations sont apparues dans les réponses (F6), ni combien de clients étaient concernés, ni quelles données leurs systèmes ont pu conserver (F25).',
    },
  },
];

export const chapter: Chapter = {
  id: 'two-weeks',
  picture: 'window',
  title: { en: 'Two weeks: 27 August to 9 September', fr: 'Deux semaines : du 27 août au 9 septembre' },
  paragraphs: [
    {
      text: { en: '155 responses were affected between 27 August and 9 September 2026.', fr: '155 réponses ont été touchées entre le 27 août et le 9 septembre 2026.' },
      evidence: { facts: ['F2'] },
    },
    {
      text: { en: 'Cloudflare states that no other Workers AI model was exposed.', fr: 'Cloudflare affirme qu\'aucun autre modèle de Workers AI n\'a été exposé.' },
      evidence: { facts: ['F5'] },
    },
    {
      text: {
        en: 'Traffic, customers, and when on each day the affected requests came are not in the report: the replay places them by assumption (A1–A7, A13), and its clock and marks are the model\'s.',
        fr: 'Le trafic, les clients, et le moment de chaque journée où sont venues les requêtes touchées ne figurent pas dans le rapport : la reconstitution les place par hypothèse (A1 à A7, A13), et son horloge comme ses marques sont celles du modèle.',
      },
      evidence: { model: true },
    },
  ],
  notes: {
    en: 'Zoom the timeline with + and −. Each mark on the leaked lane is one leaked response in the replay. The total matches the report\'s 155 because the model sends 155 over-long prompts (A5); where the marks fall is the model\'s.',
    fr: 'Zoomer la chronologie avec + et −. Chaque marque de la ligne des réponses touchées est une réponse touchée dans la reconstitution. Le total rejoint les 155 du rapport parce que le modèle envoie 155 requêtes trop longues (A5) ; l\'emplacement des marques est celui du modèle.',
  },
  scenario: 'incident',
  steps: [...OPENING, { seek: { fraction: 0.5 } }, ...ACCUMULATE, { wait: 3500 }, ...NOT_SAID, { wait: 4000 }],
  // The video sweeps the two weeks instead of jumping to their middle, so the leak counter is seen
  // climbing while it is pointed at: up to the moment the model went private (the last leak is before it).
  // While what the report does not say is said, the clock runs on to the window's end (no still picture).
  videoSteps: [...OPENING, ...ACCUMULATE, { tween: { to: { milestone: 'private' }, ms: WINDOW_SWEEP_MS } }, { wait: 3500 }, ...NOT_SAID, { tween: { to: { fraction: 1 }, ms: 4000 } }],
};
