/** What the decode backends report to the page: status, a decode's result, comparisons and benchmarks. */
import type { AdapterSummary, BackendName } from './backend.ts';
import type { BackendNotice } from './select.ts';

/**
 * Test-only faults, from the page's `?gpu-fault=` parameter:
 *  - `no-adapter`: the worker is handed a GPU whose requestAdapter() gives null;
 *  - `shader`: the decode WGSL carries a typo, so compilation fails;
 *  - `lost`: the device is destroyed right after the first decode's GPU work is submitted.
 */
export type GpuFault = 'no-adapter' | 'shader' | 'lost';
export const GPU_FAULTS: readonly GpuFault[] = ['no-adapter', 'shader', 'lost'];

export interface BackendStatus {
  running: BackendName;
  preferred: BackendName;
  adapter: AdapterSummary | null;
  notice: BackendNotice | null;
  fault: GpuFault | null;
}

export interface RunToken {
  word: string;
  /** Tenant whose slot the token drew on most (null: empty memory). */
  source: string | null;
  foreign: boolean;
  probability: number;
}

export interface DecodeRunResult {
  backend: BackendName;
  /** Started on WebGPU, finished on the JS engine. */
  fellBack: boolean;
  contextTokens: number;
  ms: number;
  text: string;
  tokens: RunToken[];
  tenant: string;
}

export interface CompareRow {
  label: string;
  seqLen: number;
  steps: number;
  tokensEqual: boolean;
  provenanceEqual: boolean;
  maxRelativeDiff: number;
  jsMs: number;
  webgpuMs: number;
  error: string | null;
}

export interface CompareReport {
  rows: CompareRow[];
  adapter: AdapterSummary | null;
  /** Set when WebGPU could not run at all; rows are then empty. */
  unavailable: string | null;
  tolerance: number;
}

export interface BenchRow {
  contextTokens: number;
  jsMs: number;
  webgpuMs: number | null;
  jsRuns: number[];
  webgpuRuns: number[];
}

export interface BenchReport {
  rows: BenchRow[];
  adapter: AdapterSummary | null;
  unavailable: string | null;
}
