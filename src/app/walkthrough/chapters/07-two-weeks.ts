import type { Chapter } from '../chapter.ts';

export const chapter: Chapter = {
  id: 'two-weeks',
  title: { en: 'Two weeks: 27 August to 9 September', fr: 'Deux semaines : du 27 août au 9 septembre' },
  paragraphs: [
    {
      text: { en: '155 responses were affected between 27 August and 9 September 2026.', fr: '155 réponses ont été touchées entre le 27 août et le 9 septembre 2026.' },
      evidence: { facts: ['F2'] },
    },
    {
      text: { en: 'Only GLM 5.3 was exposed; no other Workers AI model.', fr: 'Seul GLM 5.3 était exposé ; aucun autre modèle de Workers AI.' },
      evidence: { facts: ['F5'] },
    },
    {
      text: {
        en: 'Traffic, customers, and when on each day the affected requests came are not in the report: the replay places them by assumption.',
        fr: 'Le trafic, les clients, et à quel moment de chaque jour sont venues les requêtes touchées ne figurent pas dans le rapport : la reconstitution les place par hypothèse.',
      },
      evidence: { model: true },
    },
  ],
  notes: {
    en: 'Zoom the timeline with + and −. Each red mark is one leaked response in the replay; the count, not the placement, is the report\'s.',
    fr: 'Zoomer la chronologie avec + et −. Chaque marque rouge est une réponse fuitée dans la reconstitution ; le nombre vient du rapport, pas leur place.',
  },
  scenario: 'incident',
  steps: [
    { set: { view: 'cluster' } },
    { seek: { milestone: 'windowStart' } },
    { highlight: 'timeline' },
    { caption: { en: 'The replayed window: every over-long request leaks.', fr: 'La période reconstituée : chaque requête trop longue fuit.' } },
    { wait: 2500 },
    { seek: { fraction: 0.5 } },
    { caption: { en: 'Leaks accumulate, each with HTTP 200.', fr: 'Les fuites s\'accumulent, toutes en HTTP 200.' } },
    { highlight: 'counters' },
    { wait: 3500 },
  ],
};
