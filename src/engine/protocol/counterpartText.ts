/**
 * The title and note of each switch's protocol counterpart (switches.ts, `protocol`), in both
 * languages, by configuration id: the protocol check's configurations (configs.ts) and, through
 * them, the catalogue and the CLI take them from here. Kept apart from the registry so that the
 * page's first screen, which imports the registry and shows none of these, does not carry them; a
 * counterpart without its text does not type-check.
 */
import type { CounterpartId, Localised } from '../switches.ts';

export const COUNTERPART_TEXT: Record<CounterpartId, { title: Localised; note: Localised }> = {
  'no-gap': {
    title: { en: 'Buggy reject path, no capacity gap', fr: 'Chemin de rejet défectueux, sans écart de capacité' },
    note: { en: 'With a prefill cache as large as the advertised context nothing is over the limit: it takes both defects.', fr: 'Avec un cache de préparation aussi grand que le contexte annoncé, rien ne dépasse la limite : il faut les deux défauts.' },
  },
  fixed: {
    title: { en: 'Fixed reject path, capacity gap', fr: 'Chemin de rejet corrigé, écart de capacité' },
    note: { en: 'Rejected requests stop before any reservation or transfer, the change the report says Cloudflare made to SGLang (F24); stopping them at admission on both sides is PR #38935\u2019s way (described 10 Sep), which calls itself a waste-and-latency fix. Upstream, the stale-KV symptom no longer reproduces after PR #36988 (retire aborted results without KV send).', fr: 'Les requêtes rejetées s\u2019arrêtent avant toute réservation ou transmission, le changement que le rapport dit que Cloudflare a apporté à SGLang (F24) ; les arrêter dès l\u2019admission des deux côtés est la manière de la PR #38935 (décrite le 10 septembre), qui se présente comme une correction de gaspillage et de latence. En amont, le symptôme du KV périmé ne se reproduit plus après la PR #36988 (retrait des résultats abandonnés sans envoi de KV).' },
  },
  'clear-on-free': {
    title: { en: 'Buggy path + gap + clear pages on free', fr: 'Chemin défectueux + écart + effacement des pages libérées' },
    note: { en: 'Nothing of another tenant is left to read, but the request is still answered 200 over zeros.', fr: 'Il ne reste rien d\u2019un autre client à lire, mais la requête reçoit quand même 200, sur des zéros.' },
  },
  'per-read': {
    title: { en: 'Buggy path + gap + per-read integrity check', fr: 'Chemin défectueux + écart + contrôle d\u2019intégrité à chaque lecture' },
    note: { en: 'Decode checks every page it reads was written for this request in this handoff, and fails closed.', fr: 'La génération vérifie que chaque page lue a été écrite pour cette requête lors de ce transfert, et s\u2019arrête sur erreur sinon.' },
  },
  'length-check': {
    title: { en: 'Buggy path + gap + transferred-length check', fr: 'Chemin défectueux + écart + contrôle de la longueur transférée' },
    note: { en: 'Decode compares pages written with pages reserved (the idea of PR #38704, still open) and fails closed.', fr: 'La génération compare les pages écrites aux pages réservées (l\u2019idée de la PR #38704, encore ouverte) et s\u2019arrête sur erreur.' },
  },
  'deploy-check': {
    title: { en: 'Buggy path + gap + deployment capacity check', fr: 'Chemin défectueux + écart + contrôle de capacité au déploiement' },
    note: { en: 'The deployment is refused before it serves: nothing runs, so nothing can leak.', fr: 'Le déploiement est refusé avant de servir : rien ne s\u2019exécute, donc rien ne peut fuir.' },
  },
  'zero-on-allocate': {
    title: { en: 'Buggy path + gap + zero pages on allocate', fr: 'Chemin défectueux + écart + mise à zéro à l\u2019allocation' },
    note: { en: 'Decode\u2019s reserved pages are zeroed before anything is written: nothing foreign is read, but the request is still answered 200 over zeros.', fr: 'Les pages réservées par la génération sont mises à zéro avant toute écriture : rien d\u2019étranger n\u2019est lu, mais la requête reçoit quand même 200, sur des zéros.' },
  },
  retire: {
    title: { en: 'Buggy path + gap + aborted results retired without KV send', fr: 'Chemin défectueux + écart + résultats abandonnés retirés sans envoi de KV' },
    note: { en: 'Prefill still marks the request aborted and computes the placeholder, but retires the result without sending a page and reports Failed; decode answers 500 (PR #36988, A14).', fr: 'La préparation marque toujours la requête comme abandonnée et calcule le jeton provisoire, mais retire le résultat sans envoyer de page et annonce Failed ; la génération répond 500 (PR #36988, A14).' },
  },
  'abort-fenced': {
    title: { en: 'Fixed path + gap + decode abort, late writes fenced', fr: 'Chemin corrigé + écart + abandon en génération, écritures tardives bloquées' },
    note: { en: 'Decode keeps an aborted request\u2019s pages until prefill confirms it will write no more.', fr: 'La génération garde les pages d\u2019une requête abandonnée jusqu\u2019à ce que la préparation confirme ne plus rien écrire.' },
  },
  chunked: {
    title: { en: 'Buggy path + gap, prefill sends page by page (chunked)', fr: 'Chemin défectueux + écart, la préparation envoie page par page (par morceaux)' },
    note: { en: 'One page per chunk, each sent as it is computed (the model always did this; `unchunked` sends a whole prompt at once): the placeholder still sends one page and decode reads the rest.', fr: 'Une page par morceau, envoyée dès qu\u2019elle est calculée (le modèle a toujours fait ainsi ; `unchunked` envoie une demande entière d\u2019un coup) : le jeton provisoire envoie toujours une page et la génération lit le reste.' },
  },
  'tokenizer-sglang': {
    title: { en: 'Buggy path + gap + upstream tokenizer rule', fr: 'Chemin défectueux + écart + règle de SGLang pour le tokeniseur' },
    note: { en: 'With a 4-page context the 3-page prompt is under it by the upstream rule too: the tokenizer lets it through and it leaks as before (a 4-page prompt would now be refused).', fr: 'Avec un contexte de 4 pages, la demande de 3 pages reste en dessous selon la règle de SGLang aussi : le tokeniseur la laisse passer et elle fuit comme avant (une demande de 4 pages serait désormais refusée).' },
  },
  'staged-free-list': {
    title: { en: 'Buggy path + gap + staged free list', fr: 'Chemin défectueux + écart + liste de pages libres en attente' },
    note: { en: 'Freed pages wait behind the free list and are merged and sorted only when it runs short: the over-limit request gets other stale pages, and decode reads them all the same.', fr: 'Les pages libérées attendent derrière la liste libre et n\u2019y sont fusionnées et triées que lorsque les pages libres viennent à manquer : la requête hors limite reçoit d\u2019autres pages anciennes, et la génération les lit tout de même.' },
  },
};
