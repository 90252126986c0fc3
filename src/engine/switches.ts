/**
 * The registry of switches: each defect and each mitigation is declared once, here — its key, its
 * URL codes, its evidence, how it changes the engine's deployment, its row of the outcome matrix
 * and its counterpart in the protocol model. Its words in both languages (label, hint, fix) are in
 * switchText.ts by its key, and its counterpart's title and note in protocol/counterpartText.ts by
 * id, beside: the page's first screen imports this registry and takes its words from its own
 * language's catalogue. The URL codec, the
 * switches on the page, the CLI's config schema, the matrix, the protocol configurations and the
 * UI catalogue all derive from this list; a test fails when an entry lacks any of them.
 *
 * Defects are on as the incident ran; mitigations are off; mechanisms (upstream behaviour that is
 * neither a defect nor a fix: chunked prefill, the tokenizer's rule, SGLang's free list) are as the
 * engine always ran them. "The fix" of a switch is its other setting: a defect removed, a mitigation switched on, a
 * mechanism in its upstream setting.
 */
import { DEFAULT_PREFILL_CHUNK_TOKENS, FIXED_PREFILL_CAPACITY_TOKENS, INCIDENT_CONFIG, type ConfigOverrides, type EngineConfig, type FreeListPolicy, type RejectPath, type TokenizerRule } from './config.ts';
import type { Expectation } from './matrix.ts';
import type { PropertyId, ProtocolDesign } from './protocolVocabulary.ts';

/** The page's languages: every text shown is given in both. Declared here, the lowest place that has text in both. */
export type Language = 'en' | 'fr';

export type Localised = Record<Language, string>;

/** Where a switch's mechanism is stated: the report (a fact id), a public source (B-id), or our model. */
export type SwitchEvidence = { fact: string } | { facts: readonly string[] } | { background: string } | { model: true };

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
    // The model's form of the report's capacity checks (F26), the match between advertised capacity
    // and memory that nothing enforced before (F15); the report does not say what the checks compare.
    evidence: { facts: ['F15', 'F26'] },
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

/**
 * The incident as it ran: every defect on, every mitigation off, and each upstream mechanism as the
 * incident's deployment has it (SGLang's free list in PD mode: on; chunked prefill and upstream's
 * tokenizer rule: off, the model's choices).
 */
export const INCIDENT_SWITCHES: Switches = Object.fromEntries(
  (SWITCHES as readonly Switch[]).map((s) => [s.key, s.kind === 'defect' || (s.kind === 'mechanism' && s.isOn(INCIDENT_CONFIG))]),
) as Switches;

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
