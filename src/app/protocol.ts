/** Messages between the page and the engine worker. Bulk data travels as transferable typed arrays. */
import type { ConfigOverrides, Counters, EngineEvent, MatrixResult, NodeKind, ResponseRecord } from '../engine/index.ts';

export type ScenarioName = 'incident' | 'demo' | 'matrix';

export interface RunRequest {
  scenario: ScenarioName;
  overrides: ConfigOverrides;
}

/** Per-request columns of a run, index = request index (for timeline lanes and lists). */
export interface RequestColumns {
  ids: string[];
  tenant: Int16Array;
  arrivedAt: Float64Array;
  finishedAt: Float64Array;
  promptTokens: Int32Array;
  computedTokens: Int32Array;
  status: Int16Array;
  /** Bit 0: leaked (provenance); bit 1: canary hit; bit 2: wrong output; bit 3: over the prefill limit. */
  flags: Uint8Array;
}

export const FLAG_LEAKED = 1;
export const FLAG_CANARY = 2;
export const FLAG_WRONG = 4;
export const FLAG_OVER_LIMIT = 8;

export interface RunSummary {
  runKey: string;
  traceName: string;
  /** Epoch ms of simulated time 0 (UTC). */
  startEpochMs: number;
  /** Simulated ms of the last event. */
  endMs: number;
  tenants: string[];
  nodes: { name: string; kind: NodeKind; index: number; pageCount: number }[];
  pageSize: number;
  prefillLimit: number;
  requests: RequestColumns;
  /** Decode reads that crossed tenants (the invariant "decode read only its own request's pages"). */
  violations: { t: number; req: number; node: number; foreignTenants: string[] }[];
  counters: Counters;
  eventLogHash: string;
  events: number;
  elapsedMs: number;
  refused: string | null;
  /** Runs held on the page (the incident replay): seek and details without a worker round trip. */
  local?: { seek(t: number): Snapshot; detail(req: number): Promise<RequestDetail> };
}

export interface NodeSnapshot {
  name: string;
  kind: NodeKind;
  pageCount: number;
  state: Uint8Array;
  owner: Int32Array;
  writtenFor: Int32Array;
  writerTenant: Int16Array;
  /** Simulated ms of the last write (meaningless where writtenFor is −1). */
  writeTime: ArrayLike<number>;
}

export interface Snapshot {
  runKey: string;
  t: number;
  nodes: NodeSnapshot[];
  /** Requests holding pages at t. */
  inFlight: number[];
}

export interface RequestDetail {
  runKey: string;
  response: ResponseRecord;
  events: EngineEvent[];
  words: string[];
}

export type WorkerRequest =
  | { kind: 'run'; id: number; run: RunRequest; runKey: string }
  | { kind: 'seek'; id: number; runKey: string; t: number }
  | { kind: 'detail'; id: number; runKey: string; req: number }
  | { kind: 'matrix'; id: number };

export type WorkerResponse =
  | { kind: 'run'; id: number; summary: RunSummary }
  | { kind: 'seek'; id: number; snapshot: Snapshot }
  | { kind: 'detail'; id: number; detail: RequestDetail }
  | { kind: 'matrix'; id: number; rows: MatrixResult[]; elapsedMs: number }
  | { kind: 'error'; id: number; message: string };

export function runKeyOf(run: RunRequest): string {
  return JSON.stringify([run.scenario, run.overrides]);
}
