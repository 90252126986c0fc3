/**
 * Each switch's words (switches.ts), in both languages, by its key: its label, the hint beside it
 * and its fix named as an option. The catalogue (and through it the page), the outcome matrix's row
 * titles and the tests take them from here. Kept apart from the registry so that the page's first
 * screen, which imports the registry for its codes and settings and shows these words only from
 * its language's catalogue, does not carry both languages of them; a switch without its words does
 * not type-check.
 */
import type { Localised, SwitchKey } from './switches.ts';

export interface SwitchText {
  label: Localised;
  hint: Localised;
  /** The fix, named as an option ("fixed reject path"). */
  fix: Localised;
}

export const SWITCH_TEXT: Record<SwitchKey, SwitchText> = {
  capacityGap: {
    label: { en: 'Capacity gap', fr: 'Écart de capacité' },
    hint: { en: 'advertised context larger than the prefill KV cache', fr: 'contexte annoncé plus grand que le cache KV de préparation' },
    fix: { en: 'enough prefill capacity', fr: 'assez de capacité en préparation' },
  },
  buggyRejectPath: {
    label: { en: 'Buggy reject path', fr: 'Chemin de rejet défectueux' },
    hint: { en: 'a rejected request goes on with a one-token placeholder', fr: 'une requête rejetée poursuit avec un jeton provisoire' },
    fix: { en: 'fixed reject path', fr: 'chemin de rejet corrigé' },
  },
  clearPagesOnFree: {
    label: { en: 'Clear pages on free', fr: 'Effacer les pages libérées' },
    hint: { en: 'zero a page\u2019s KV when it goes back on the free list', fr: 'remettre à zéro le KV d\u2019une page quand elle est libérée' },
    fix: { en: 'clear pages on free', fr: 'effacer les pages libérées' },
  },
  perReadIntegrityCheck: {
    label: { en: 'Per-read integrity check', fr: 'Contrôle d\u2019intégrité à chaque lecture' },
    hint: {
      en: 'decode checks every page it reads was written for this request; fails closed. Not a mitigation the report says was applied: work continues on per-read checks (F26)',
      fr: 'la génération vérifie que chaque page lue a été écrite pour cette requête ; sinon, refus. Le rapport ne dit pas qu\u2019un tel contrôle a été appliqué : le travail se poursuit sur les contrôles à chaque lecture (F26)',
    },
    fix: { en: 'per-read integrity check', fr: 'contrôle d\u2019intégrité à chaque lecture' },
  },
  transferredLengthCheck: {
    label: { en: 'Transferred-length check', fr: 'Contrôle de la longueur transférée' },
    hint: { en: 'decode checks the pages written equal the pages it reserved; fails closed', fr: 'la génération vérifie que les pages écrites sont celles réservées ; sinon, refus' },
    fix: { en: 'transferred-length check', fr: 'contrôle de la longueur transférée' },
  },
  deploymentCapacityCheck: {
    label: { en: 'Deployment capacity check', fr: 'Contrôle de capacité au déploiement' },
    hint: { en: 'the model\u2019s form of the report\u2019s capacity checks: refuse a deployment whose advertised context exceeds its prefill KV cache, the match nothing enforced before', fr: 'la forme que le modèle donne aux contrôles de capacité du rapport : refuser un déploiement dont le contexte annoncé dépasse son cache KV de préparation, la correspondance que rien n\u2019imposait avant' },
    fix: { en: 'deployment capacity check', fr: 'contrôle de capacité au déploiement' },
  },
  zeroPagesOnAllocate: {
    label: { en: 'Zero pages on allocate', fr: 'Mettre les pages à zéro à l\u2019allocation' },
    hint: { en: 'wipe a page\u2019s KV when it is handed to a request', fr: 'remettre à zéro le KV d\u2019une page quand elle est attribuée à une requête' },
    fix: { en: 'zero pages on allocate', fr: 'mise à zéro des pages à l\u2019allocation' },
  },
  retireWithoutSend: {
    label: { en: 'Retire aborted results without KV send', fr: 'Retirer les résultats abandonnés sans envoi de KV' },
    hint: {
      en: 'prefill computes the placeholder, then retires it without sending a page and reports Failed; decode frees its pages and answers 500 (A14)',
      fr: 'la préparation calcule le jeton provisoire, puis le retire sans envoyer de page et signale un échec ; la génération libère ses pages et répond 500 (A14)',
    },
    fix: { en: 'retire aborted results without KV send', fr: 'retrait des résultats abandonnés sans envoi de KV' },
  },
  fenceLateWrites: {
    label: { en: 'Fence late writes', fr: 'Barrière contre les écritures tardives' },
    hint: {
      en: 'when a client cancels mid-transfer, decode keeps its pages until prefill confirms it writes no more; matters only when clients cancel (the abort-race rows)',
      fr: 'quand un client abandonne pendant un transfert, la génération garde ses pages jusqu\u2019à ce que la préparation confirme qu\u2019elle n\u2019écrit plus ; ne compte que si des clients abandonnent (lignes de la course entre annulation et transfert)',
    },
    fix: { en: 'fence late writes', fr: 'barrière contre les écritures tardives' },
  },
  chunkedPrefill: {
    label: { en: 'Chunked prefill', fr: 'Préparation par morceaux' },
    hint: {
      en: 'prefill computes the prompt in chunks (8,192 tokens; the config sets the size) and sends each chunk\u2019s whole pages at once; the placeholder is never chunked',
      fr: 'la préparation calcule la demande par morceaux (8 192 jetons ; la configuration en fixe la taille) et envoie aussitôt les pages complètes de chacun ; le jeton provisoire n\u2019est jamais découpé',
    },
    fix: { en: 'chunked prefill', fr: 'préparation par morceaux' },
  },
  sglangTokenizerRule: {
    label: { en: 'Upstream tokenizer rule', fr: 'Règle de SGLang pour le tokeniseur' },
    hint: {
      en: 'the tokenizer refuses a prompt at or over the context length, or whose requested output takes it past; off: only prompts longer than the advertised context (the model\u2019s choice: the article never mentions a tokenizer)',
      fr: 'le tokeniseur refuse une demande qui atteint ou dépasse la longueur de contexte, ou que la sortie demandée y fait dépasser ; désactivé : seules les demandes plus longues que le contexte annoncé (choix du modèle : l\u2019article ne parle jamais de tokeniseur)',
    },
    fix: { en: 'upstream tokenizer rule', fr: 'règle de SGLang pour le tokeniseur' },
  },
  sglangFreeList: {
    label: { en: 'Upstream free list (PD)', fr: 'Liste des pages libres de SGLang (PD)' },
    hint: {
      en: 'freed pages wait and are handed out after the current free list; they are merged in and the list sorted when the list runs short by SGLang\u2019s rule (when the list holds fewer pages than the request\u2019s whole pages plus two), as SGLang keeps its free list with prefill and decode apart; off: lowest free page first, a simplification. Page 0 is never handed out either way',
      fr: 'les pages libérées attendent et ne sont attribuées qu\u2019après la liste libre en cours ; elles y sont fusionnées et la liste triée quand la liste libre devient trop courte selon la règle de SGLang (quand la liste compte moins de pages que les pages pleines de la requête plus deux), comme SGLang tient sa liste quand préparation et génération sont séparées ; désactivé : la page libre la plus basse d\u2019abord, une simplification. La page 0 n\u2019est jamais attribuée',
    },
    fix: { en: 'upstream free list', fr: 'liste des pages libres de SGLang' },
  },
};
