/**
 * The registry of switches: each defect and each mitigation is declared once, here — its key, its
 * URL codes, its evidence, its labels in both languages, how it changes the engine's deployment,
 * its row of the outcome matrix and its counterpart in the protocol model. The URL codec, the
 * switches on the page, the CLI's config schema, the matrix, the protocol configurations and the
 * UI catalogue all derive from this list; a test fails when an entry lacks any of them.
 *
 * Defects are on as the incident ran; mitigations are off. "The fix" of a switch is its other
 * setting: a defect removed, a mitigation switched on.
 */
import { FIXED_PREFILL_CAPACITY_TOKENS, type ConfigOverrides, type EngineConfig, type RejectPath } from './config.ts';
import type { Expectation } from './matrix.ts';
import type { PropertyId } from './protocol/explore.ts';
import type { ProtocolConfig } from './protocol/model.ts';

export interface Localised {
  en: string;
  fr: string;
}

/** Where a switch's mechanism is stated: the report (a fact id), a public source (B-id), or our model. */
export type SwitchEvidence = { fact: string } | { background: string } | { model: true };

/** What the protocol model checks for the design with this switch's fix applied to the incident. */
export interface ProtocolCounterpart {
  /** Configuration id in `npm run verify` and docs/VERIFY.md. */
  id: string;
  title: string;
  /** Changes to the incident's protocol configuration. */
  overrides: Partial<Pick<ProtocolConfig, 'rejectPath' | 'prefillPages'>> & { mitigations?: Record<string, boolean> };
  expectHolds: Record<PropertyId, boolean>;
  note: string;
}

/**
 * What a switch may change in a deployment. Typed apart from EngineConfig, whose `mitigations` type
 * is itself derived from this registry.
 */
interface SwitchOverrides {
  prefillCapacityTokens?: number;
  rejectPath?: RejectPath;
  mitigations?: Record<string, boolean>;
}

interface SwitchedConfig {
  prefillCapacityTokens: number;
  advertisedContextTokens: number;
  rejectPath: RejectPath;
  mitigations: Record<string, boolean | undefined>;
}

interface SwitchSpec<K extends string> {
  key: K;
  kind: 'defect' | 'mitigation';
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
    protocol: { id: 'no-gap', title: 'Buggy reject path, no capacity gap', overrides: { prefillPages: 3 }, expectHolds: SAFE, note: 'With a prefill cache as large as the advertised context nothing is over the limit: it takes both defects.' },
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
    protocol: { id: 'fixed', title: 'Fixed reject path, capacity gap', overrides: { rejectPath: 'fixed' }, expectHolds: SAFE, note: 'Rejected requests stop at admission on both sides, before any reservation: the behaviour the report describes (F24); upstream, PR #38935 (described 10 Sep) does this.' },
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
      title: 'Buggy path + gap + clear pages on free',
      overrides: { mitigations: { clearPagesOnFree: true } },
      expectHolds: { confidentiality: true, integrity: false, exclusiveOwnership: true },
      note: 'Nothing of another tenant is left to read, but the request is still answered 200 over zeros.',
    },
  },
  {
    key: 'perReadIntegrityCheck',
    kind: 'mitigation',
    code: 'integrity',
    fixCode: 'integrity',
    evidence: { fact: 'F26' },
    label: { en: 'Per-read integrity check', fr: 'Contrôle d\u2019intégrité à chaque lecture' },
    hint: { en: 'decode checks every page it reads was written for this request; fails closed', fr: 'la génération vérifie que chaque page lue a été écrite pour cette requête ; sinon, refus' },
    fix: { en: 'per-read integrity check', fr: 'contrôle d\u2019intégrité à chaque lecture' },
    overrides: (on) => ({ mitigations: { perReadIntegrityCheck: on } }),
    isOn: (c) => c.mitigations.perReadIntegrityCheck === true,
    expect: 'failed-closed',
    protocol: { id: 'per-read', title: 'Buggy path + gap + per-read integrity check', overrides: { mitigations: { perReadIntegrityCheck: true } }, expectHolds: SAFE, note: 'Decode checks every page it reads was written for this request in this handoff, and fails closed.' },
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
    protocol: { id: 'length-check', title: 'Buggy path + gap + transferred-length check', overrides: { mitigations: { transferredLengthCheck: true } }, expectHolds: SAFE, note: 'Decode compares pages written with pages reserved (the idea of PR #38704, still open) and fails closed.' },
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
    protocol: { id: 'deploy-check', title: 'Buggy path + gap + deployment capacity check', overrides: { mitigations: { deploymentCapacityCheck: true } }, expectHolds: SAFE, note: 'The deployment is refused before it serves: nothing runs, so nothing can leak.' },
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
      title: 'Buggy path + gap + zero pages on allocate',
      overrides: { mitigations: { zeroPagesOnAllocate: true } },
      expectHolds: { confidentiality: true, integrity: false, exclusiveOwnership: true },
      note: 'Decode\u2019s reserved pages are zeroed before anything is written: nothing foreign is read, but the request is still answered 200 over zeros.',
    },
  },
] as const satisfies readonly SwitchSpec<string>[];

export const DEFECTS = defects;
export const MITIGATIONS = mitigations;
export const SWITCHES = [...defects, ...mitigations] as const;

export type DefectKey = (typeof defects)[number]['key'];
export type MitigationKey = (typeof mitigations)[number]['key'];
export type SwitchKey = DefectKey | MitigationKey;
export type Switch = SwitchSpec<SwitchKey>;

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

/** The setting of a switch that fixes it: a defect off, a mitigation on. */
export function fixSetting(key: SwitchKey): boolean {
  return switchSpec(key).kind === 'mitigation';
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
