/**
 * The one store of the page: scenario, switches, time, selection, view, playback, language and the
 * notices shown to the person. Views read it through selectors (`useApp(s => s.time)`), never whole.
 */
import { create } from 'zustand';
import { FIXED_PREFILL_CAPACITY_TOKENS, type ConfigOverrides, type Mitigations, type RejectPath } from '../../engine/index.ts';
import { DEFAULT_TRAFFIC } from '../../engine/incident/traffic.ts';
import type { ScenarioName } from '../protocol.ts';

export type ViewName = 'cluster' | 'transfer' | 'response';
export type Language = 'en' | 'fr';
/** A fix to compare the run as it happened against. */
export type FixChoice = 'fixed-path' | 'capacity' | keyof Mitigations;

export interface Switches {
  capacityGap: boolean;
  rejectPath: RejectPath;
  mitigations: Mitigations;
}

export interface Selection {
  node: string;
  page: number;
}

export interface AppState extends Switches {
  scenario: ScenarioName;
  compare: FixChoice | null;
  /** Simulated ms since the run's start. */
  time: number;
  selectedRequest: number | null;
  selectedPage: Selection | null;
  view: ViewName;
  lang: Language;
  playing: boolean;
  /** Simulated seconds per real second. */
  speed: number;
  notices: string[];
  /** Decode backend the person chose (the panel falls back to JS when WebGPU is unavailable). */
  backend: 'webgpu' | 'js';
  /** Incident traffic model (assumptions A2, A1): ordinary requests per day, and tenants. */
  requestsPerDay: number;
  tenants: number;
  /** Test-only: a forced WebGPU failure (`?gpu-fault=`), see src/app/gpu/decodeProtocol.ts. */
  gpuFault: 'no-adapter' | 'shader' | 'lost' | null;
  /** The walkthrough chapter on screen (1-based), or null when the walkthrough is closed. */
  chapter: number | null;
  /** Presenter mode: large type, clicker keys, blank screen, speaker notes. */
  presenter: boolean;
}

export const DEFAULT_STATE: AppState = {
  scenario: 'incident',
  capacityGap: true,
  rejectPath: 'buggy',
  mitigations: { clearPagesOnFree: false, perReadIntegrityCheck: false, transferredLengthCheck: false, deploymentCapacityCheck: false },
  compare: null,
  time: 0,
  selectedRequest: null,
  selectedPage: null,
  view: 'cluster',
  lang: 'en',
  playing: false,
  speed: 60,
  notices: [],
  backend: 'webgpu',
  gpuFault: null,
  requestsPerDay: DEFAULT_TRAFFIC.requestsPerDay,
  tenants: DEFAULT_TRAFFIC.tenants,
  chapter: null,
  presenter: false,
};

interface Actions {
  set: (patch: Partial<AppState>) => void;
  setMitigation: (name: keyof Mitigations, on: boolean) => void;
  notify: (message: string) => void;
  dismissNotice: (index: number) => void;
}

export const useApp = create<AppState & Actions>()((set) => ({
  ...DEFAULT_STATE,
  set: (patch) => set(patch),
  setMitigation: (name, on) => set((s) => ({ mitigations: { ...s.mitigations, [name]: on } })),
  notify: (message) => set((s) => ({ notices: [...s.notices.filter((n) => n !== message), message] })),
  dismissNotice: (index) => set((s) => ({ notices: s.notices.filter((_, i) => i !== index) })),
}));

/** The engine overrides the switches stand for, relative to the incident deployment. */
export function overridesOf(s: Switches): ConfigOverrides {
  return {
    rejectPath: s.rejectPath,
    mitigations: s.mitigations,
    ...(s.capacityGap ? {} : { prefillCapacityTokens: FIXED_PREFILL_CAPACITY_TOKENS }),
  };
}

/** The switches with one fix applied on top. */
export function withFix(s: Switches, fix: FixChoice): Switches {
  if (fix === 'fixed-path') return { ...s, rejectPath: 'fixed' };
  if (fix === 'capacity') return { ...s, capacityGap: false };
  return { ...s, mitigations: { ...s.mitigations, [fix]: true } };
}
