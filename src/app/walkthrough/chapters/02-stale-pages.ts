import type { Chapter } from './chapter.ts';
import { IDLE, WARM } from './demo.ts';

export const chapter: Chapter = {
  id: 'stale-pages',
  title: { en: 'A freed page keeps what it held', fr: 'Une page libérée garde ce qu\'elle contenait' },
  asked: { en: 'What is left in a freed page?', fr: 'Que reste-t-il dans une page libérée ?' },
  paragraphs: [
    {
      text: {
        en: 'Pages are not cleared between uses: when a request ends, its pages go back on the free list with their contents, and the next request to get one finds the previous KV there until it overwrites it.',
        fr: 'Les pages ne sont pas effacées entre deux usages : quand une requête se termine, ses pages retournent dans la liste des pages libres avec leur contenu, et la requête suivante qui en obtient une y trouve l\'ancien KV tant qu\'elle ne l\'a pas réécrit.',
      },
      evidence: { facts: ['F20'] },
      answers: true,
    },
    {
      text: {
        en: 'Hatched squares are stale: free, but still holding an earlier customer\'s KV. That is harmless as long as every page is written before it is read.',
        fr: 'Les cases hachurées sont des pages anciennes : libres, mais encore chargées du KV d\'un client précédent. C\'est sans danger tant que chaque page est écrite avant d\'être lue.',
      },
      evidence: { model: true },
      answers: true,
    },
  ],
  notes: {
    en: 'Let the room answer before revealing. Clearing costs memory bandwidth on every free, a common reason for engines to skip it; correctness then rests on "write before read".',
    fr: 'Laisser la salle répondre avant de révéler. Effacer coûte de la bande passante mémoire à chaque libération, une raison courante de s\'en passer ; la justesse repose alors sur la règle « écrire avant de lire ».',
  },
  checkpoint: {
    firstScreenTells: true,
    question: { en: 'When the warm-up requests finish, what will be left in their decode pages?', fr: 'Quand les requêtes de préchauffage se termineront, que restera-t-il dans leurs pages de génération ?' },
    options: [
      { id: 'zeros', label: { en: 'Zeros: freeing a page clears it', fr: 'Des zéros : libérer une page l\'efface' } },
      { id: 'old', label: { en: 'The earlier customers\' KV, until someone overwrites it', fr: 'Le KV des clients précédents, jusqu\'à ce qu\'il soit réécrit' } },
      { id: 'gone', label: { en: 'Nothing: the memory goes back to the GPU driver', fr: 'Rien : la mémoire retourne au pilote du GPU' } },
    ],
    answer: 'old',
    explain: { en: 'The pages keep their KV. The inspector shows who wrote the selected page, and that nobody holds it.', fr: 'Les pages gardent leur KV. L\'inspecteur montre qui a écrit la page choisie, et qu\'elle n\'est attribuée à personne.' },
  },
  steps: [
    { set: { scenario: 'demo', view: 'cluster' } },
    { seek: WARM },
    { caption: { en: 'Pages are live while their requests run.', fr: 'Les pages sont occupées tant que leurs requêtes tournent.' } },
    { highlight: 'node-decode-0' },
    { checkpoint: true },
    // The answer is said over what it describes (these take effect at its reveal): the warm-up
    // requests finished, a page they wrote selected in the inspector, held by nobody.
    { seek: IDLE },
    { set: { selectedPage: { node: 'decode-0', page: 5 } } },
    { highlight: 'inspector' },
    { caption: { en: 'The requests end; their pages turn stale, not empty.', fr: 'Les requêtes se terminent ; leurs pages deviennent anciennes, pas vides.' } },
    { highlight: 'node-decode-0' },
    { wait: 3000 },
  ],
};
