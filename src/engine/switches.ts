/**
 * The registry of switches: each defect and each mitigation is declared once, here — its key, its
 * URL codes, its evidence, its labels in both languages, how it changes the engine's deployment,
 * its row of the outcome matrix and its counterpart in the protocol model (whose title and note,
 * by its id, are in protocol/counterpartText.ts, beside: the page's first screen imports this
 * registry and shows none of them). The URL codec, the
 * switches on the page, the CLI's config schema, the matrix, the protocol configurations and the
 * UI catalogue all derive from this list; a test fails when an entry lacks any of them.
 *
 * Defects are on as the incident ran; mitigations are off; mechanisms (upstream behaviour that is
 * neither a defect nor a fix: chunked prefill, the tokenizer's rule, SGLang's free list) are as the
 * engine always ran them. "The fix" of a switch is its other setting: a defect removed, a mitigation switched on, a
 * mechanism in its upstream setting.
 */
import { DEFAULT_PREFILL_CHUNK_TOKENS, FIXED_PREFILL_CAPACITY_TOKENS, type ConfigOverrides, type EngineConfig, type FreeListPolicy, type RejectPath, type TokenizerRule } from './config.ts';
import type { Expectation } from './matrix.ts';
import type { PropertyId, ProtocolDesign } from './protocolVocabulary.ts';

/** The page's languages: every text shown is given in both. Declared here, the lowest place that has text in both. */
export type Language = 'en' | 'fr';

export type Localised = Record<Language, string>;

/** Where a switch's mechanism is stated: the report (a fact id), a public source (B-id), or our model. */
export type SwitchEvidence = { fact: string } | { background: string } | { model: true };

/** What the protocol model checks for the design with this switch's fix applied to the incident. */
export interface ProtocolCounterpart {
  /**
   * Configuration id in `npm run verify` and docs/VERIFY.md. Its title and note in both languages
   * (the page shows them, the CLI prints the English) are in protocol/counterpartText.ts, by this id:
   * the page's first screen, which shows none of them, does not carry them.
   */
  id: string;
  /** Changes to the incident's protocol configuration. */
  overrides: Partial<Pick<ProtocolDesign, 'rejectPath' | 'prefillPages' | 'advertisedPages' | 'tokenizerRule' | 'chunkPages' | 'decodeAbort' | 'requests' | 'freeList'>> & { mitigations?: Record<string, boolean> };
  expectHolds: Record<PropertyId, boolean>;
  /** The public sources (background ids of the facts file) its note names. */
  sources?: readonly string[];
}

/**
 * What a switch may change in a deployment. Typed apart from EngineConfig, whose `mitigations` type
 * is itself derived from this registry.
 */
interface SwitchOverrides {
  prefillCapacityTokens?: number;
  rejectPath?: RejectPath;
  tokenizerRule?: TokenizerRule;
  prefillChunkTokens?: number;
  freeListPolicy?: FreeListPolicy;
  mitigations?: Record<string, boolean>;
}

interface SwitchedConfig {
  prefillCapacityTokens: number;
  advertisedContextTokens: number;
  rejectPath: RejectPath;
  tokenizerRule: TokenizerRule;
  prefillChunkTokens: number;
  freeListPolicy: FreeListPolicy;
  mitigations: Record<string, boolean | undefined>;
}

/**
 * The design a switch's matrix row and protocol counterpart are measured on. `incident`: the
 * incident's deployment and the matrix trace. `abort-race`: the fixed reject path, with clients
 * that cancel while a transfer is in flight (the page-reuse race of SGLang PR #24578, closed): what the switch is about does
 * not happen in the incident's traffic.
 */
export type SwitchDesign = 'incident' | 'abort-race';

interface SwitchSpec<K extends string> {
  key: K;
  kind: 'defect' | 'mitigation' | 'mechanism';
  /** Listed in `d=` (defects on) or `m=` (mitigations on). */
  code: string;
  /** In `cmp=`: the run compared with this switch's fix. */
  fixCode: string;
  evidence: SwitchEvidence;
  label: Localised;
  hint: Localised;
  /** The fix, named as an option ("fixed reject path"). */
  fix: Localised;
  /** Engine overrides that put the switch in a setting (relative to the incident deployment). */
  overrides(on: boolean): SwitchOverrides;
  isOn(config: SwitchedConfig): boolean;
  /**
   * Outcome matrix: for a defect, what the mechanism predicts when it is the only defect; for a
   * mitigation, with both defects on and this mitigation switched on.
   */
  expect: Expectation;
  protocol: ProtocolCounterpart;
  /** A rule of the pools this mitigation switches on (they zero pages when freed, or when handed out). */
  zeroOn?: 'free' | 'allocate';
  /** Default `incident`. */
  design?: SwitchDesign;
  /**
   * Outcome matrix, for a check made before a deployment serves: the defect whose presence makes it
   * refuse the deployment, whatever the other defects are (its expectation in every row of the grid
   * where that defect is on).
   */
  refusesDeploymentWith?: string;
}

const SAFE = { confidentiality: true, integrity: true, exclusiveOwnership: true } as const;

const defects = [
  {
    key: 'capacityGap',
    kind: 'defect',
    code: 'gap',
    fixCode: 'capacity',
    evidence: { fact: 'F14' },
    label: { en: 'Capacity gap', fr: 'Écart de capacité' },
    hint: { en: 'advertised context larger than the prefill KV cache', fr: 'contexte annoncé plus grand que le cache KV de préparation' },
    fix: { en: 'enough prefill capacity', fr: 'assez de capacité en préparation' },
    overrides: (on) => (on ? {} : { prefillCapacityTokens: FIXED_PREFILL_CAPACITY_TOKENS }),
    isOn: (c) => c.prefillCapacityTokens < c.advertisedContextTokens,
    // The gap alone: over-long prompts meet a correct reject path and get a clean 400.
    expect: 'rejected-400',
    protocol: { id: 'no-gap', overrides: { prefillPages: 3 }, expectHolds: SAFE },
  },
  {
    key: 'buggyRejectPath',
    kind: 'defect',
    code: 'buggy',
    fixCode: 'path',
    evidence: { fact: 'F17' },
    label: { en: 'Buggy reject path', fr: 'Chemin de rejet défectueux' },
    hint: { en: 'a rejected request goes on with a one-token placeholder', fr: 'une requête rejetée poursuit avec un jeton provisoire' },
    fix: { en: 'fixed reject path', fr: 'chemin de rejet corrigé' },
    overrides: (on) => ({ rejectPath: on ? 'buggy' : 'fixed' }),
    isOn: (c) => c.rejectPath === 'buggy',
    // The buggy path alone: nothing is over the limit, so nothing takes it.
    expect: 'served-correctly',
    protocol: { id: 'fixed', overrides: { rejectPath: 'fixed' }, expectHolds: SAFE, sources: ['B3', 'B2'] },
  },
] as const satisfies readonly SwitchSpec<string>[];

const mitigations = [
  {
    key: 'clearPagesOnFree',
    kind: 'mitigation',
    code: 'clear',
    fixCode: 'clear',
    evidence: { model: true },
    label: { en: 'Clear pages on free', fr: 'Effacer les pages libérées' },
    hint: { en: 'zero a page\u2019s KV when it goes back on the free list', fr: 'remettre à zéro le KV d\u2019une page quand elle est libérée' },
    fix: { en: 'clear pages on free', fr: 'effacer les pages libérées' },
    overrides: (on) => ({ mitigations: { clearPagesOnFree: on } }),
    zeroOn: 'free',
    isOn: (c) => c.mitigations.clearPagesOnFree === true,
    expect: 'wrong-output-200',
    protocol: {
      id: 'clear-on-free',
      overrides: { mitigations: { clearPagesOnFree: true } },
      expectHolds: { confidentiality: true, integrity: false, exclusiveOwnership: true },
    },
  },
  {
    key: 'perReadIntegrityCheck',
    kind: 'mitigation',
    code: 'integrity',
    fixCode: 'integrity',
    evidence: { fact: 'F26' },
    label: { en: 'Per-read integrity check', fr: 'Contrôle d\u2019intégrité à chaque lecture' },
    hint: {
      en: 'decode checks every page it reads was written for this request; fails closed. Not a mitigation the report says was applied: work continues on per-read checks (F26)',
      fr: 'la génération vérifie que chaque page lue a été écrite pour cette requête ; sinon, refus. Le rapport ne dit pas qu\u2019un tel contrôle a été appliqué : le travail se poursuit sur les contrôles à chaque lecture (F26)',
    },
    fix: { en: 'per-read integrity check', fr: 'contrôle d\u2019intégrité à chaque lecture' },
    overrides: (on) => ({ mitigations: { perReadIntegrityCheck: on } }),
    isOn: (c) => c.mitigations.perReadIntegrityCheck === true,
    expect: 'failed-closed',
    protocol: { id: 'per-read', overrides: { mitigations: { perReadIntegrityCheck: true } }, expectHolds: SAFE },
  },
  {
    key: 'transferredLengthCheck',
    kind: 'mitigation',
    code: 'length',
    fixCode: 'length',
    evidence: { background: 'B4' },
    label: { en: 'Transferred-length check', fr: 'Contrôle de la longueur transférée' },
    hint: { en: 'decode checks the pages written equal the pages it reserved; fails closed', fr: 'la génération vérifie que les pages écrites sont celles réservées ; sinon, refus' },
    fix: { en: 'transferred-length check', fr: 'contrôle de la longueur transférée' },
    overrides: (on) => ({ mitigations: { transferredLengthCheck: on } }),
    isOn: (c) => c.mitigations.transferredLengthCheck === true,
    expect: 'failed-closed',
    protocol: { id: 'length-check', overrides: { mitigations: { transferredLengthCheck: true } }, expectHolds: SAFE, sources: ['B4'] },
  },
  {
    key: 'deploymentCapacityCheck',
    kind: 'mitigation',
    code: 'deploy',
    fixCode: 'deploy',
    evidence: { fact: 'F26' },
    label: { en: 'Deployment capacity check', fr: 'Contrôle de capacité au déploiement' },
    hint: { en: 'refuse a deployment whose advertised context exceeds its prefill KV cache', fr: 'refuser un déploiement dont le contexte annoncé dépasse son cache KV de préparation' },
    fix: { en: 'deployment capacity check', fr: 'contrôle de capacité au déploiement' },
    overrides: (on) => ({ mitigations: { deploymentCapacityCheck: on } }),
    isOn: (c) => c.mitigations.deploymentCapacityCheck === true,
    expect: 'deployment-refused',
    refusesDeploymentWith: 'capacityGap',
    protocol: { id: 'deploy-check', overrides: { mitigations: { deploymentCapacityCheck: true } }, expectHolds: SAFE },
  },
  {
    key: 'zeroPagesOnAllocate',
    kind: 'mitigation',
    code: 'zero',
    fixCode: 'zero',
    // What many allocators do (calloc, a GPU driver handing out fresh memory): not in the report.
    evidence: { model: true },
    label: { en: 'Zero pages on allocate', fr: 'Mettre les pages à zéro à l\u2019allocation' },
    hint: { en: 'wipe a page\u2019s KV when it is handed to a request', fr: 'remettre à zéro le KV d\u2019une page quand elle est attribuée à une requête' },
    fix: { en: 'zero pages on allocate', fr: 'mise à zéro des pages à l\u2019allocation' },
    overrides: (on) => ({ mitigations: { zeroPagesOnAllocate: on } }),
    isOn: (c) => c.mitigations.zeroPagesOnAllocate === true,
    zeroOn: 'allocate',
    expect: 'wrong-output-200',
    protocol: {
      id: 'zero-on-allocate',
      overrides: { mitigations: { zeroPagesOnAllocate: true } },
      expectHolds: { confidentiality: true, integrity: false, exclusiveOwnership: true },
    },
  },
  {
    key: 'retireWithoutSend',
    kind: 'mitigation',
    code: 'retire',
    fixCode: 'retire',
    evidence: { background: 'B2' },
    label: { en: 'Retire aborted results without KV send', fr: 'Retirer les résultats abandonnés sans envoi de KV' },
    hint: {
      en: 'prefill computes the placeholder, then retires it without sending a page and reports Failed; decode frees its pages and answers 500 (A14)',
      fr: 'la préparation calcule le jeton provisoire, puis le retire sans envoyer de page et signale un échec ; la génération libère ses pages et répond 500 (A14)',
    },
    fix: { en: 'retire aborted results without KV send', fr: 'retrait des résultats abandonnés sans envoi de KV' },
    overrides: (on) => ({ mitigations: { retireWithoutSend: on } }),
    isOn: (c) => c.mitigations.retireWithoutSend === true,
    expect: 'failed-closed',
    protocol: {
      id: 'retire',
      overrides: { mitigations: { retireWithoutSend: true } },
      expectHolds: SAFE,
      sources: ['B2'],
    },
  },
  {
    key: 'fenceLateWrites',
    kind: 'mitigation',
    code: 'fence',
    fixCode: 'fence',
    evidence: { background: 'B11' },
    label: { en: 'Fence late writes', fr: 'Barrière contre les écritures tardives' },
    hint: {
      en: 'when a client cancels mid-transfer, decode keeps its pages until prefill confirms it writes no more; matters only when clients cancel (the abort-race rows)',
      fr: 'quand un client abandonne pendant un transfert, la génération garde ses pages jusqu\u2019à ce que la préparation confirme qu\u2019elle n\u2019écrit plus ; ne compte que si des clients abandonnent (lignes de la course à l\u2019abandon)',
    },
    fix: { en: 'fence late writes', fr: 'barrière contre les écritures tardives' },
    overrides: (on) => ({ mitigations: { fenceLateWrites: on } }),
    isOn: (c) => c.mitigations.fenceLateWrites === true,
    design: 'abort-race',
    expect: 'served-correctly',
    protocol: {
      id: 'abort-fenced',
      overrides: { rejectPath: 'fixed', decodeAbort: true, mitigations: { fenceLateWrites: true } },
      expectHolds: SAFE,
      sources: ['B11'],
    },
  },
] as const satisfies readonly SwitchSpec<string>[];

const mechanisms = [
  {
    key: 'chunkedPrefill',
    kind: 'mechanism',
    code: 'chunked',
    fixCode: 'chunked',
    evidence: { model: true },
    label: { en: 'Chunked prefill', fr: 'Préparation par morceaux' },
    hint: {
      en: 'prefill computes the prompt in chunks (8,192 tokens; the config sets the size) and sends each chunk\u2019s whole pages at once; the placeholder is never chunked',
      fr: 'la préparation calcule la demande par morceaux (8 192 jetons ; la configuration en fixe la taille) et envoie aussitôt les pages complètes de chacun ; le jeton provisoire n\u2019est jamais découpé',
    },
    fix: { en: 'chunked prefill', fr: 'préparation par morceaux' },
    overrides: (on) => ({ prefillChunkTokens: on ? DEFAULT_PREFILL_CHUNK_TOKENS : 0 }),
    isOn: (c) => c.prefillChunkTokens > 0,
    // Chunking changes when pages are written, not what: the placeholder still sends one page.
    expect: 'leaked-200',
    protocol: {
      id: 'chunked',
      overrides: { chunkPages: 1 },
      expectHolds: { confidentiality: false, integrity: false, exclusiveOwnership: true },
    },
  },
  {
    key: 'sglangTokenizerRule',
    kind: 'mechanism',
    code: 'tokenizer',
    fixCode: 'tokenizer',
    evidence: { model: true },
    label: { en: 'Upstream tokenizer rule', fr: 'Règle de SGLang pour le découpage en jetons' },
    hint: {
      en: 'the tokenizer refuses a prompt at or over the context length, or whose requested output takes it past; off: only prompts longer than the advertised context (the model\u2019s choice: the article never mentions a tokenizer)',
      fr: 'le découpage en jetons refuse une demande qui atteint ou dépasse la longueur de contexte, ou que la sortie demandée y fait dépasser ; désactivé : seules les demandes plus longues que le contexte annoncé (choix du modèle : l\u2019article ne parle jamais de découpage en jetons)',
    },
    fix: { en: 'upstream tokenizer rule', fr: 'règle de SGLang pour le découpage en jetons' },
    overrides: (on) => ({ tokenizerRule: on ? 'sglang' : 'report' }),
    isOn: (c) => c.tokenizerRule === 'sglang',
    // A prompt of exactly the advertised context is now refused; shorter over-long ones still leak.
    expect: 'leaked-200-unless-tokenizer-400',
    protocol: {
      id: 'tokenizer-sglang',
      overrides: { tokenizerRule: 'sglang', advertisedPages: 4 },
      expectHolds: { confidentiality: false, integrity: false, exclusiveOwnership: true },
    },
  },
  {
    key: 'sglangFreeList',
    kind: 'mechanism',
    code: 'freelist',
    fixCode: 'freelist',
    evidence: { background: 'B12' },
    label: { en: 'Upstream free list (PD)', fr: 'Liste des pages libres de SGLang (PD)' },
    hint: {
      en: 'freed pages are staged and handed out after the current free list, merged and sorted only when an allocation runs short, as SGLang keeps its free list with prefill and decode apart; off: lowest free page first. Page 0 is never handed out either way',
      fr: 'les pages libérées attendent et ne sont attribuées qu\u2019après la liste libre en cours, fusionnées et triées seulement quand une allocation vient à manquer, comme SGLang tient sa liste quand préparation et génération sont séparées ; désactivé : la page libre la plus basse d\u2019abord. La page 0 n\u2019est jamais attribuée',
    },
    fix: { en: 'upstream free list', fr: 'liste des pages libres de SGLang' },
    overrides: (on) => ({ freeListPolicy: on ? 'staged' : 'sorted' }),
    isOn: (c) => c.freeListPolicy === 'staged',
    // The order of reuse changes which stale pages a request gets, not whether it gets them.
    expect: 'leaked-200',
    protocol: {
      id: 'staged-free-list',
      overrides: { freeList: 'staged' },
      expectHolds: { confidentiality: false, integrity: false, exclusiveOwnership: true },
      sources: ['B12'],
    },
  },
] as const satisfies readonly SwitchSpec<string>[];

export const DEFECTS = defects;
export const MITIGATIONS = mitigations;
export const MECHANISMS = mechanisms;
export const SWITCHES = [...defects, ...mitigations, ...mechanisms] as const;

export type DefectKey = (typeof defects)[number]['key'];
export type MitigationKey = (typeof mitigations)[number]['key'];
export type MechanismKey = (typeof mechanisms)[number]['key'];
export type SwitchKey = DefectKey | MitigationKey | MechanismKey;
export type Switch = SwitchSpec<SwitchKey>;
/** The ids of the switches' protocol counterparts. */
export type CounterpartId = (typeof SWITCHES)[number]['protocol']['id'];

/** Mitigations switched on in a deployment; an absent key is off. */
export type Mitigations = Partial<Record<MitigationKey, boolean>>;

/** Every switch's setting, as the page and the URL hold them. */
export type Switches = Record<SwitchKey, boolean>;

export const MITIGATION_KEYS: readonly MitigationKey[] = mitigations.map((m): MitigationKey => m.key);
export const SWITCH_KEYS: readonly SwitchKey[] = SWITCHES.map((s): SwitchKey => s.key);

/** The incident as it ran: every defect on, every mitigation off. */
export const INCIDENT_SWITCHES: Switches = Object.fromEntries(SWITCHES.map((s) => [s.key, s.kind === 'defect'])) as Switches;

export function switchSpec(key: SwitchKey): Switch {
  return SWITCHES.find((s) => s.key === key)! as Switch;
}

/** The setting of a switch that fixes it: a defect off, a mitigation on, a mechanism upstream's. */
export function fixSetting(key: SwitchKey): boolean {
  return switchSpec(key).kind !== 'defect';
}

/** The design a switch is measured on (its matrix row and protocol counterpart). */
export function designOf(key: SwitchKey): SwitchDesign {
  return (switchSpec(key) as { design?: SwitchDesign }).design ?? 'incident';
}

/** The engine overrides the switches stand for, relative to the incident deployment. */
export function overridesOf(switches: Switches): ConfigOverrides {
  let out: ConfigOverrides = {};
  for (const s of SWITCHES as readonly Switch[]) {
    const o = s.overrides(switches[s.key]);
    out = { ...out, ...o, mitigations: { ...out.mitigations, ...o.mitigations } };
  }
  return out;
}

/** The switches with one switch set to its fix. */
export function withFix(switches: Switches, key: SwitchKey): Switches {
  return { ...switches, [key]: fixSetting(key) };
}

/** The rules every KV pool of a deployment follows, from the mitigations switched on. */
export interface PoolRules {
  /** Zero a page's KV when it goes back on the free list. */
  zeroOnFree: boolean;
  /** Zero a page's KV when it is handed to a request. */
  zeroOnAllocate: boolean;
}

export function poolRules(m: Mitigations): PoolRules {
  const on = (MITIGATIONS as readonly Switch[]).filter((s) => m[s.key as MitigationKey] === true);
  return { zeroOnFree: on.some((s) => s.zeroOn === 'free'), zeroOnAllocate: on.some((s) => s.zeroOn === 'allocate') };
}

/** What the switches of a deployment are. */
export function switchesOf(config: EngineConfig): Switches {
  return Object.fromEntries((SWITCHES as readonly Switch[]).map((s) => [s.key, s.isOn(config)])) as Switches;
}
