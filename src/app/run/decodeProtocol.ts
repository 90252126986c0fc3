/** The decode-backend worker's protocol, declared once. Every reply carries the backend's status. */
import type { BackendName } from '../../gpu/backend.ts';
import type { BackendStatus, BenchReport, CompareReport, DecodeRunResult, GpuFault } from '../../gpu/reports.ts';
import type { Method } from './rpc.ts';

export type DecodeProtocol = {
  init: Method<{ preferred: BackendName; fault: GpuFault | null }, { status: BackendStatus }>;
  switch: Method<{ preferred: BackendName }, { status: BackendStatus }>;
  run: Method<{ contextTokens: number; steps: number }, { status: BackendStatus; result: DecodeRunResult }>;
  compare: Method<{ cases: number; seed: string }, { status: BackendStatus; report: CompareReport }>;
  bench: Method<{ sizes: number[]; reps: number }, { status: BackendStatus; report: BenchReport }>;
};

/** Sent unasked: the status changed (a device lost while idle). */
export type DecodeEvent = { status: BackendStatus };
