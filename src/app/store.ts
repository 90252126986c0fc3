/** The page's state: which defects and mitigations are on. Views read it through selectors. */
import { create } from 'zustand';
import { FIXED_PREFILL_CAPACITY_TOKENS, type ConfigOverrides, type Mitigations, type RejectPath } from '../engine/index.ts';

export interface Switches {
  capacityGap: boolean;
  rejectPath: RejectPath;
  mitigations: Mitigations;
}

interface SwitchState extends Switches {
  setCapacityGap: (on: boolean) => void;
  setRejectPath: (path: RejectPath) => void;
  setMitigation: (name: keyof Mitigations, on: boolean) => void;
}

export const useSwitches = create<SwitchState>()((set) => ({
  capacityGap: true,
  rejectPath: 'buggy',
  mitigations: { clearPagesOnFree: false, perReadIntegrityCheck: false, transferredLengthCheck: false, deploymentCapacityCheck: false },
  setCapacityGap: (capacityGap) => set({ capacityGap }),
  setRejectPath: (rejectPath) => set({ rejectPath }),
  setMitigation: (name, on) => set((s) => ({ mitigations: { ...s.mitigations, [name]: on } })),
}));

/** The engine overrides the switches stand for, relative to the incident deployment. */
export function overridesOf(s: Switches): ConfigOverrides {
  return {
    rejectPath: s.rejectPath,
    mitigations: s.mitigations,
    ...(s.capacityGap ? {} : { prefillCapacityTokens: FIXED_PREFILL_CAPACITY_TOKENS }),
  };
}
