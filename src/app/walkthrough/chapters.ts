/**
 * The walkthrough as data: ten chapters, each with its text in English and French, the evidence for
 * every paragraph (a fact id from the report, a public background source, or "model"), speaker notes,
 * an optional predict-before-reveal checkpoint, and the steps that drive the real views.
 *
 * Rules the texts keep: a sentence that states an incident fact cites its id (F1…F26) and the
 * French quote is shown from public/facts.json, never retyped here; figures that the report does not
 * give (page counts, tenant names, prompt lengths of the demo) are said to be the model's.
 */
import type { ScenarioName } from '../protocol.ts';
import type { Localised, Step } from './steps.ts';

export type Evidence = { facts: string[] } | { background: string[] } | { model: true };

export interface Paragraph {
  text: Localised;
  evidence: Evidence;
}

export interface Checkpoint {
  question: Localised;
  options: { id: string; label: Localised }[];
  answer: string;
  /** Shown after the answer, whatever it was. */
  explain: Localised;
}

export interface Chapter {
  /** Stable slug, used by tests and the recorder's chapter file. */
  id: string;
  title: Localised;
  paragraphs: Paragraph[];
  notes: Localised;
  checkpoint?: Checkpoint;
  steps: Step[];
  /**
   * The scenario this chapter is written for when it is not the demo, and the one it falls back to
   * (with a note on screen) when the engine does not offer it.
   */
  needs?: { scenario: string; fallback: ScenarioName };
}

/** The over-long request of the demo trace: tenant delta's 800,000-token prompt at 120 s. */
const LONG = 8;
/** Demo times (simulated ms): warm requests run 0–20 s; the over-long one arrives at 120 s. */
const T_WARM = 9_000;
const T_IDLE = 60_000;
const T_ARRIVE = 120_000;
const T_COMPUTE = 120_002.05;
const T_DONE = 120_002.2;
const T_ANSWERED = 120_700;

export const CHAPTERS: Chapter[] = [
  {
    id: 'kv-pages',
    title: { en: 'What a KV cache and a page are', fr: 'Ce que sont un cache KV et une page' },
    paragraphs: [
      {
        text: {
          en: 'A language model reads a prompt once and keeps, for every token, the keys and values its attention will need again: the KV cache. It is what links each new word to the text already read.',
          fr: 'Un modèle de langage lit une requête une fois et garde, pour chaque jeton, les clés et valeurs dont son attention aura de nouveau besoin : le cache KV. C\'est ce qui relie chaque nouveau mot au texte déjà traité.',
        },
        evidence: { model: true },
      },
      {
        text: {
          en: 'On Workers AI, prefill GPUs read the prompt, then hand its KV cache to decode GPUs over RDMA; decode writes the answer.',
          fr: 'Sur Workers AI, des GPU de préremplissage lisent la requête, puis transmettent son cache KV par RDMA à des GPU de décodage, qui écrivent la réponse.',
        },
        evidence: { facts: ['F18'] },
      },
      {
        text: {
          en: 'SGLang stores that cache in fixed-size pages. Each square in the grids is one page of one node, coloured by the customer whose request last wrote it. Node count, page size and customers are the model\'s assumptions.',
          fr: 'SGLang range ce cache dans des pages de taille fixe. Chaque case des grilles est une page d\'un nœud, colorée selon le client dont la requête l\'a écrite en dernier. Le nombre de nœuds, la taille des pages et les clients sont des hypothèses du modèle.',
        },
        evidence: { model: true },
      },
    ],
    notes: {
      en: 'Start from the picture, not the bug. Ask who has pasted a long document into a chatbot. Point at one square: one page of KV. Three customers (acme, borealis, cobalt) fill the pools; delta comes later.',
      fr: 'Partir de l\'image, pas du bogue. Demander qui a déjà collé un long document dans un agent conversationnel. Montrer une case : une page de KV. Trois clients (acme, borealis, cobalt) remplissent la mémoire ; delta viendra plus tard.',
    },
    steps: [
      { set: { scenario: 'demo', view: 'cluster', time: 0 } },
      { caption: { en: 'At start-up every page is zero-filled: nobody has written it yet.', fr: 'Au démarrage, chaque page est remplie de zéros : personne ne l\'a encore écrite.' } },
      { highlight: '.grids' },
      { wait: 2500 },
      { caption: { en: 'Three customers\' requests arrive: prefill writes their KV, decode receives it, page by page.', fr: 'Les requêtes de trois clients arrivent : le préremplissage écrit leur KV, le décodage le reçoit, page par page.' } },
      { tween: { time: T_WARM, ms: 3000 } },
      { highlight: '.legend' },
      { wait: 2500 },
    ],
  },
  {
    id: 'stale-pages',
    title: { en: 'A freed page keeps what it held', fr: 'Une page libérée garde ce qu\'elle contenait' },
    paragraphs: [
      {
        text: {
          en: 'When a request ends, its pages go back on a free list. They are not cleared between uses: the next request to get a page finds the previous one\'s KV there until it overwrites it.',
          fr: 'Quand une requête se termine, ses pages retournent dans une liste de pages libres. Elles ne sont pas effacées entre deux usages : la requête suivante y trouve le KV de la précédente tant qu\'elle ne l\'a pas réécrit.',
        },
        evidence: { facts: ['F20'] },
      },
      {
        text: {
          en: 'Hatched squares are stale: free, but still holding an earlier customer\'s KV. That is harmless as long as every page is written before it is read.',
          fr: 'Les cases hachurées sont périmées : libres, mais encore porteuses du KV d\'un client précédent. C\'est sans danger tant que chaque page est écrite avant d\'être lue.',
        },
        evidence: { model: true },
      },
    ],
    notes: {
      en: 'Let the room answer before revealing. Clearing costs memory bandwidth on every free, which is why engines skip it; correctness rests on "write before read".',
      fr: 'Laisser la salle répondre avant de révéler. Effacer coûte de la bande passante à chaque libération, d\'où l\'habitude de s\'en passer ; la correction repose sur « écrire avant de lire ».',
    },
    checkpoint: {
      question: { en: 'The warm requests are finished. What is in their decode pages now?', fr: 'Les premières requêtes sont terminées. Que contiennent maintenant leurs pages de décodage ?' },
      options: [
        { id: 'zeros', label: { en: 'Zeros: freeing a page clears it', fr: 'Des zéros : libérer une page l\'efface' } },
        { id: 'old', label: { en: 'The earlier customers\' KV, until someone overwrites it', fr: 'Le KV des clients précédents, jusqu\'à ce qu\'il soit réécrit' } },
        { id: 'gone', label: { en: 'Nothing: the memory goes back to the GPU driver', fr: 'Rien : la mémoire retourne au pilote du GPU' } },
      ],
      answer: 'old',
      explain: { en: 'The pages keep their KV. The inspector shows who wrote the selected page, and that nobody holds it.', fr: 'Les pages gardent leur KV. L\'inspecteur montre qui a écrit la page choisie, et que personne ne la tient.' },
    },
    steps: [
      { set: { scenario: 'demo', view: 'cluster', time: T_WARM } },
      { caption: { en: 'Pages are live while their requests run.', fr: 'Les pages sont en cours tant que leurs requêtes tournent.' } },
      { highlight: '[data-node="decode-0"]' },
      { checkpoint: true },
      { caption: { en: 'The requests end; their pages turn stale, not empty.', fr: 'Les requêtes se terminent ; leurs pages deviennent périmées, pas vides.' } },
      { tween: { time: T_IDLE, ms: 2500 } },
      { set: { selectedPage: { node: 'decode-0', page: 5 } } },
      { highlight: '[data-testid="inspector"]' },
      { wait: 3000 },
    ],
  },
  {
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
      { set: { scenario: 'demo', view: 'cluster', time: T_ARRIVE, capacityGap: false } },
      { highlight: '.controls fieldset' },
      { caption: { en: 'Gap closed: prefill can hold the whole 800,000-token prompt. Nothing leaks.', fr: 'Écart comblé : le préremplissage peut garder les 800 000 jetons. Rien ne fuit.' } },
      { wait: 3500 },
      { set: { capacityGap: true } },
      { caption: { en: 'The real deployment: the same prompt is over the prefill limit.', fr: 'Le déploiement réel : la même requête dépasse la limite du préremplissage.' } },
      { highlight: '.counters' },
      { wait: 3500 },
    ],
  },
  {
    id: 'placeholder',
    title: { en: 'Defect two: rejected, yet sent on with one placeholder token', fr: 'Second défaut : rejetée, mais envoyée avec un jeton provisoire' },
    paragraphs: [
      {
        text: {
          en: 'With prefill and decode on separate machines, SGLang marked an over-large request as rejected, but it went on with provisional content of a single token. The client got a success instead of the error.',
          fr: 'Avec préremplissage et décodage sur des machines distinctes, SGLang marquait une requête trop grande comme rejetée, mais elle poursuivait son trajet avec un contenu provisoire d\'un seul jeton. Le client recevait un succès au lieu de l\'erreur.',
        },
        evidence: { facts: ['F17'] },
      },
      {
        text: {
          en: 'A public SGLang issue describes the same path: the aborted input is replaced by one placeholder token and still handed to decode.',
          fr: 'Un ticket public de SGLang décrit le même chemin : l\'entrée abandonnée est remplacée par un jeton provisoire et tout de même confiée au décodage.',
        },
        evidence: { background: ['B1'] },
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
      en: 'The placeholder was meant "to skip the long prefill". The mistake is that the request stays queued: prefill now sees a one-token request, which passes every capacity check.',
      fr: 'Le jeton provisoire servait à « sauter le long préremplissage ». L\'erreur : la requête reste en file. Le préremplissage voit alors une requête d\'un jeton, qui passe tous les contrôles de capacité.',
    },
    checkpoint: {
      question: { en: 'Delta sent 800,000 tokens, over the limit. How many tokens will prefill compute?', fr: 'Delta a envoyé 800 000 jetons, au-delà de la limite. Combien de jetons le préremplissage va-t-il calculer ?' },
      options: [
        { id: 'all', label: { en: '800,000: all of them', fr: '800 000 : tous' } },
        { id: 'cap', label: { en: '681,280: as many as fit', fr: '681 280 : autant qu\'il en tient' } },
        { id: 'one', label: { en: 'One', fr: 'Un seul' } },
        { id: 'none', label: { en: 'None: the client gets HTTP 400', fr: 'Aucun : le client reçoit HTTP 400' } },
      ],
      answer: 'one',
      explain: { en: 'One: the scheduler swapped the input for a single placeholder token, and kept the request queued.', fr: 'Un seul : l\'ordonnanceur a remplacé l\'entrée par un jeton provisoire, et a gardé la requête en file.' },
    },
    steps: [
      { set: { scenario: 'demo', view: 'cluster', time: T_ARRIVE - 1, selectedRequest: LONG } },
      { caption: { en: 'Delta\'s 800,000-token prompt arrives at the router.', fr: 'La requête de 800 000 jetons de delta arrive au routeur.' } },
      { checkpoint: true },
      { set: { view: 'transfer', time: T_ARRIVE } },
      { highlight: '.steps' },
      { caption: { en: 'Marked aborted, input replaced by one token, still queued.', fr: 'Marquée abandonnée, entrée remplacée par un jeton, toujours en file.' } },
      { wait: 3000 },
      { tween: { time: T_COMPUTE, ms: 2000 } },
      { highlight: '[data-testid="computed-tokens"]' },
      { caption: { en: 'Prefill computes one token: every capacity check passes.', fr: 'Le préremplissage calcule un jeton : tous les contrôles de capacité passent.' } },
      { wait: 3000 },
    ],
  },
  {
    id: 'transfer-complete',
    title: { en: '"Transfer complete": one page written, every page trusted', fr: '« Transfert terminé » : une page écrite, toutes les pages crues' },
    paragraphs: [
      {
        text: {
          en: 'The decode node reserved pages for the whole request, then received a message saying the transfer was complete, and assumed every reserved page held this request\'s data.',
          fr: 'Le nœud de décodage réservait des pages pour la requête complète, puis recevait un message annonçant la fin du transfert, et supposait que chaque page réservée contenait les données de la requête.',
        },
        evidence: { facts: ['F19'] },
      },
      {
        text: {
          en: 'Only one page had been overwritten, with the placeholder token; the others still held leftovers of earlier requests.',
          fr: 'Une seule page avait été réécrite, avec le jeton provisoire ; les autres contenaient encore des restes de requêtes précédentes.',
        },
        evidence: { facts: ['F20'] },
      },
      {
        text: {
          en: 'In SGLang\'s code the "done" message carries only the room id and a status: no count of pages or tokens, so decode has nothing to compare with what it reserved.',
          fr: 'Dans le code de SGLang, le message « terminé » ne porte que l\'identifiant de salle et un statut : aucun nombre de pages ni de jetons, donc rien que le décodage puisse comparer à sa réservation.',
        },
        evidence: { model: true },
      },
    ],
    notes: {
      en: 'The strip under the steps is decode\'s block table: one solid page, thousands hatched. Ask what single number in the "done" message would have caught this (the transferred length, SGLang PR #38704, still open).',
      fr: 'La bande sous les étapes est la table de blocs du décodage : une page pleine, des milliers hachurées. Demander quel nombre dans le message « terminé » aurait suffi (la longueur transférée, PR #38704 de SGLang, encore ouverte).',
    },
    steps: [
      { set: { scenario: 'demo', view: 'transfer', time: T_ARRIVE, selectedRequest: LONG } },
      { caption: { en: 'Decode reserves pages for all 800,000 tokens.', fr: 'Le décodage réserve des pages pour les 800 000 jetons.' } },
      { highlight: '[data-testid="block-table"]' },
      { wait: 3000 },
      { tween: { time: T_DONE, ms: 2500 } },
      { caption: { en: 'RDMA writes one page; prefill reports Success.', fr: 'Le RDMA écrit une page ; le préremplissage annonce Success.' } },
      { highlight: '.done-message' },
      { wait: 3500 },
    ],
  },
  {
    id: 'mixed-response',
    title: { en: 'A coherent answer built from other customers\' KV', fr: 'Une réponse cohérente bâtie sur le KV d\'autres clients' },
    paragraphs: [
      {
        text: {
          en: 'Decode composed a coherent response from the mixture, with no error. Every request over the threshold took this path.',
          fr: 'Le décodage a composé une réponse cohérente à partir du mélange, sans erreur. Chaque requête franchissant le seuil suivait ce chemin.',
        },
        evidence: { facts: ['F21'] },
      },
      {
        text: {
          en: 'The report does not say what information appeared in the responses. The words here come from the model\'s toy vocabulary; ⚑ marks a canary, a marker planted in each customer\'s prompts.',
          fr: 'Le rapport ne détaille pas la nature des informations apparues dans les réponses. Les mots affichés viennent du petit vocabulaire du modèle ; ⚑ signale un marqueur témoin placé dans les requêtes de chaque client.',
        },
        evidence: { facts: ['F6'] },
      },
    ],
    notes: {
      en: 'This is the checkpoint to linger on. Most rooms answer "an error" or "noise". The answer reads fluently, which is why status-code tests passed (F16).',
      fr: 'C\'est la question sur laquelle s\'attarder. La plupart des salles répondent « une erreur » ou « du bruit ». La réponse se lit bien, et c\'est pour cela que les tests de codes de réponse passaient (F16).',
    },
    checkpoint: {
      question: { en: 'Decode now reads all of delta\'s reserved pages. Whose text will delta\'s response contain?', fr: 'Le décodage lit maintenant toutes les pages réservées pour delta. Le texte de qui la réponse à delta contiendra-t-elle ?' },
      options: [
        { id: 'own', label: { en: 'Only delta\'s own', fr: 'Seulement celui de delta' } },
        { id: 'others', label: { en: 'Acme\'s, borealis\'s and cobalt\'s', fr: 'Celui d\'acme, de borealis et de cobalt' } },
        { id: 'error', label: { en: 'Nobody\'s: it ends with an error', fr: 'Celui de personne : elle finit en erreur' } },
        { id: 'noise', label: { en: 'Nobody\'s: random noise', fr: 'Celui de personne : du bruit' } },
      ],
      answer: 'others',
      explain: { en: 'The earlier customers\': their KV was in the pages decode read. HTTP 200, fluent, and leaked.', fr: 'Celui des clients précédents : leur KV était dans les pages lues. HTTP 200, fluide, et fuité.' },
    },
    steps: [
      { set: { scenario: 'demo', view: 'cluster', time: T_DONE, selectedRequest: LONG } },
      { highlight: '[data-node="decode-0"]' },
      { caption: { en: 'Delta\'s request holds these pages now. Who wrote them?', fr: 'La requête de delta tient ces pages. Qui les a écrites ?' } },
      { checkpoint: true },
      { set: { selectedPage: { node: 'decode-0', page: 3000 } } },
      { highlight: '[data-testid="inspector"]' },
      { caption: { en: 'Held by delta, written for another customer: a cross-tenant read.', fr: 'Tenue par delta, écrite pour un autre client : une lecture entre clients.' } },
      { wait: 3000 },
      { set: { view: 'response', time: T_ANSWERED } },
      { highlight: '[data-testid="response-tokens"]' },
      { caption: { en: 'Tinted words were shaped by other customers\' pages.', fr: 'Les mots teintés ont été façonnés par les pages d\'autres clients.' } },
      { wait: 4000 },
    ],
  },
  {
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
    needs: { scenario: 'incident', fallback: 'demo' },
    steps: [
      { set: { view: 'cluster', time: 0 } },
      { highlight: '[data-testid="timeline-svg"]' },
      { caption: { en: 'The replayed window: every over-long request leaks.', fr: 'La période reconstituée : chaque requête trop longue fuit.' } },
      { wait: 2500 },
      { seekUtc: '2026-09-03T12:00:00Z' },
      { caption: { en: 'Leaks accumulate, each with HTTP 200.', fr: 'Les fuites s\'accumulent, toutes en HTTP 200.' } },
      { highlight: '.counters' },
      { wait: 3500 },
    ],
  },
  {
    id: 'response-9-sep',
    title: { en: 'The response on 9 September', fr: 'La réaction du 9 septembre' },
    paragraphs: [
      {
        text: {
          en: 'On 8 September researcher Gadi Evron (Knostic) reported through HackerOne that very long requests sometimes received text from other sessions. Cloudflare began checking the next day.',
          fr: 'Le 8 septembre, le chercheur Gadi Evron (Knostic) a signalé par HackerOne que de très longues requêtes recevaient parfois du texte d\'autres sessions. Cloudflare a commencé ses vérifications le lendemain.',
        },
        evidence: { facts: ['F7', 'F8'] },
      },
      {
        text: {
          en: 'Two independent accounts reproduced the leak in under 25 minutes. An incident was declared at 13:22 UTC; the model was made private 38 minutes later, so new requests failed.',
          fr: 'Deux comptes indépendants ont reproduit la fuite en moins de 25 minutes. Un incident a été déclaré à 13 h 22 UTC ; le modèle a été rendu privé 38 minutes plus tard, et les nouvelles requêtes échouaient.',
        },
        evidence: { facts: ['F9', 'F10', 'F11'] },
      },
      {
        text: {
          en: 'The root cause was identified at 14:35. GLM 5.3 was public again at 19:40, after configuration and engine changes tested with the researcher\'s script and Cloudflare\'s own canary markers.',
          fr: 'La cause principale a été identifiée à 14 h 35. GLM 5.3 est redevenu public à 19 h 40, après des changements de réglage et de moteur testés avec le script du chercheur et les marqueurs témoins de Cloudflare.',
        },
        evidence: { facts: ['F12', 'F13', 'F22'] },
      },
      {
        text: {
          en: 'When on 9 September checking began, and when the test requests ran, are not in the report.',
          fr: 'L\'heure du début des vérifications le 9 septembre, et celle des requêtes de test, ne figurent pas dans le rapport.',
        },
        evidence: { model: true },
      },
    ],
    notes: {
      en: 'Walk the milestones on the timeline left to right. From declaration to private: 38 minutes. Making the model private stopped the leak by failing every request, not by fixing it.',
      fr: 'Parcourir les jalons de la chronologie de gauche à droite. De la déclaration à la mise en privé : 38 minutes. Rendre le modèle privé a arrêté la fuite en faisant échouer toutes les requêtes, pas en la corrigeant.',
    },
    needs: { scenario: 'incident', fallback: 'demo' },
    steps: [
      { set: { view: 'cluster' } },
      { seekUtc: '2026-09-09T13:22:00Z' },
      { highlight: '[data-testid="timeline-svg"]' },
      { caption: { en: '13:22 UTC: incident declared.', fr: '13 h 22 UTC : incident déclaré.' } },
      { wait: 3000 },
      { seekUtc: '2026-09-09T14:00:00Z' },
      { caption: { en: '14:00: the model is private; new requests fail.', fr: '14 h 00 : le modèle est privé ; les nouvelles requêtes échouent.' } },
      { wait: 3000 },
      { seekUtc: '2026-09-09T19:40:00Z' },
      { caption: { en: '19:40: public again, with the fixed configuration and engine.', fr: '19 h 40 : de nouveau public, avec le réglage et le moteur corrigés.' } },
      { wait: 3000 },
    ],
  },
  {
    id: 'fixes',
    title: { en: 'The fixes, and what is still open', fr: 'Les correctifs, et ce qui reste ouvert' },
    paragraphs: [
      {
        text: {
          en: 'The final configuration gives the prefill cache about 2.04 million tokens, and SGLang was changed so that a rejected request stops before any memory reservation or transfer.',
          fr: 'La configuration finale porte le cache de préremplissage à environ 2,04 millions de jetons, et SGLang a été modifié pour qu\'une requête rejetée s\'arrête avant toute réservation ou transmission de mémoire.',
        },
        evidence: { facts: ['F23', 'F24'] },
      },
      {
        text: {
          en: 'Still open: capacity checks and protections now cover all SGLang deployments and the maintainers shipped successive fixes, but some integrity checks do not yet cover every model architecture; work continues on per-read memory checks and on formal verification of the transfer protocol.',
          fr: 'Encore ouvert : contrôles de capacité et protections couvrent désormais tous les déploiements SGLang et les mainteneurs ont publié des corrections successives, mais certaines vérifications d\'intégrité ne couvrent pas encore toutes les architectures ; le travail continue sur des contrôles à chaque lecture et sur la vérification formelle du protocole de transfert.',
        },
        evidence: { facts: ['F26'] },
      },
      {
        text: {
          en: 'Cloudflare saw no sign of deliberate exploitation; the report does not state the exact content exposed, how many customers were affected, or what their systems kept.',
          fr: 'Cloudflare ne voit aucun indice d\'exploitation délibérée ; le rapport ne précise ni le contenu exposé, ni le nombre de clients concernés, ni ce que leurs systèmes ont conservé.',
        },
        evidence: { facts: ['F25'] },
      },
      {
        text: {
          en: 'Upstream, SGLang PR #38935 retires rejected requests at admission on both sides, before any handshake.',
          fr: 'En amont, la PR #38935 de SGLang retire les requêtes rejetées dès l\'admission, des deux côtés, avant toute poignée de main.',
        },
        evidence: { background: ['B3'] },
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
      explain: { en: 'No leak, still HTTP 200, still wrong: decode reads zeroed pages as if they were the prompt.', fr: 'Pas de fuite, toujours HTTP 200, toujours faux : le décodage lit des pages à zéro comme si c\'était la requête.' },
    },
    steps: [
      { set: { scenario: 'demo', view: 'response', time: T_ANSWERED, selectedRequest: LONG } },
      { caption: { en: 'As it happened: a leak with HTTP 200.', fr: 'Tel que c\'est arrivé : une fuite en HTTP 200.' } },
      { checkpoint: true },
      { set: { mitigations: { clearPagesOnFree: true, perReadIntegrityCheck: false, transferredLengthCheck: false, deploymentCapacityCheck: false } } },
      { highlight: '[data-testid="response-leak"]' },
      { caption: { en: 'Pages cleared on free: nothing leaks, but the answer is wrong.', fr: 'Pages effacées à la libération : rien ne fuit, mais la réponse est fausse.' } },
      { wait: 3500 },
      { set: { mitigations: { clearPagesOnFree: false, perReadIntegrityCheck: false, transferredLengthCheck: false, deploymentCapacityCheck: false }, rejectPath: 'fixed', view: 'transfer' } },
      { highlight: '[data-testid="transfer-status"]' },
      { caption: { en: 'Fixed reject path: HTTP 400 before any reservation (F24).', fr: 'Rejet corrigé : HTTP 400 avant toute réservation (F24).' } },
      { wait: 3500 },
      { set: { rejectPath: 'buggy', capacityGap: false, view: 'response' } },
      { highlight: '[data-testid="response-leak"]' },
      { caption: { en: 'Enough prefill capacity: the prompt is served for real (F23).', fr: 'Capacité de préremplissage suffisante : la requête est vraiment servie (F23).' } },
      { wait: 3500 },
    ],
  },
  {
    id: 'same-family',
    title: { en: 'The same family: memory handed on without being cleared', fr: 'La même famille : une mémoire transmise sans être effacée' },
    paragraphs: [
      {
        text: {
          en: 'ChatGPT, 20 March 2023: a cancelled request left a pooled Redis connection one reply behind, so some users saw others\' chat titles and, for 1.2% of Plus subscribers active in a nine-hour window, partial payment data.',
          fr: 'ChatGPT, 20 mars 2023 : une requête annulée a laissé une connexion Redis partagée en retard d\'une réponse ; des utilisateurs ont vu les titres de conversation d\'autres et, pour 1,2 % des abonnés Plus actifs pendant neuf heures, des données de paiement partielles.',
        },
        evidence: { background: ['B5'] },
      },
      {
        text: {
          en: 'Cloudbleed, February 2017: an HTML parser at Cloudflare overran its buffer and returned uninitialised memory holding other customers\' data.',
          fr: 'Cloudbleed, février 2017 : un analyseur HTML de Cloudflare dépassait son tampon et renvoyait de la mémoire non initialisée contenant des données d\'autres clients.',
        },
        evidence: { background: ['B6'] },
      },
      {
        text: {
          en: 'LeftoverLocals, 2024 (CVE-2023-4969): GPU local memory was not cleared between kernels, so a co-resident process could read another\'s LLM session.',
          fr: 'LeftoverLocals, 2024 (CVE-2023-4969) : la mémoire locale des GPU n\'était pas effacée entre deux noyaux, si bien qu\'un processus voisin pouvait lire la session LLM d\'un autre.',
        },
        evidence: { background: ['B7'] },
      },
      {
        text: {
          en: 'The common thread, as this project reads it: a shared resource is reused across customers and trusted to hold only the current owner\'s data, with nothing that checks who wrote what is read.',
          fr: 'Le fil commun, selon la lecture de ce projet : une ressource partagée est réutilisée d\'un client à l\'autre et crue ne contenir que les données de son détenteur actuel, sans rien qui vérifie qui a écrit ce qui est lu.',
        },
        evidence: { model: true },
      },
    ],
    notes: {
      en: 'Close on the pattern, not the company. Ask the room where their own systems reuse a buffer, a connection or a page across tenants, and what would notice a wrong owner. End on the comparison lane: a per-read ownership check fails closed.',
      fr: 'Conclure sur le motif, pas sur l\'entreprise. Demander à la salle où leurs systèmes réutilisent un tampon, une connexion ou une page entre clients, et ce qui remarquerait un mauvais propriétaire. Finir sur la ligne de comparaison : un contrôle de propriété à chaque lecture échoue proprement.',
    },
    steps: [
      { set: { scenario: 'demo', view: 'cluster', time: T_DONE, selectedRequest: LONG, compare: 'perReadIntegrityCheck' } },
      { highlight: '[data-testid="timeline-svg"]' },
      { caption: { en: 'The comparison lane: with a per-read ownership check, the same request fails closed.', fr: 'La ligne de comparaison : avec un contrôle de propriété à chaque lecture, la même requête échoue proprement.' } },
      { wait: 4000 },
    ],
  },
];
