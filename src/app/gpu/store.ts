/** The decode-backend panel's state: what runs, the last decode and the last comparison. */
import { create } from 'zustand';
import type { BackendName } from '../../gpu/backend.ts';
import type { BackendStatus, CompareReport, GpuFault, RunResult } from './decodeProtocol.ts';
import { GPU_FAULTS } from './decodeProtocol.ts';

export type Busy = null | 'starting' | 'switching' | 'running' | 'comparing';

interface DecodePanelState {
  status: BackendStatus | null;
  busy: Busy;
  run: RunResult | null;
  compare: CompareReport | null;
  error: string | null;
  set: (patch: Partial<Omit<DecodePanelState, 'set'>>) => void;
}

export const useDecodePanel = create<DecodePanelState>()((set) => ({
  status: null,
  busy: 'starting',
  run: null,
  compare: null,
  error: null,
  set: (patch) => set(patch),
}));

/** `?gpu-fault=` (tests force each failure with it; see decodeProtocol.ts) and `?backend=js|webgpu`. */
export function pageOptions(search: string): { fault: GpuFault | null; preferred: BackendName } {
  const params = new URLSearchParams(search);
  const f = params.get('gpu-fault');
  const fault = GPU_FAULTS.find((x) => x === f) ?? null;
  return { fault, preferred: params.get('backend') === 'js' ? 'js' : 'webgpu' };
}
