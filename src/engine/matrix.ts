/**
 * The outcome matrix: one warm-cluster trace with over-capacity prompts, run under each combination
 * of defects and mitigations. Every cell is measured from a real run; `expect` states what the
 * mechanism predicts, and `matches` says whether the run agreed.
 */
import {
  DeploymentRefused,
  FIXED_PREFILL_CAPACITY_TOKENS,
  INCIDENT_CONFIG,
  withOverrides,
  type ConfigOverrides,
  type EngineConfig,
} from './config.ts';
import { matrixTrace } from './scenarios.ts';
import { Simulation } from './simulation.ts';
import type { Trace } from './trace.ts';

export type Expectation = 'served-correctly' | 'rejected-400' | 'leaked-200' | 'wrong-output-200' | 'failed-closed' | 'deployment-refused';

export interface MatrixRow {
  label: string;
  overrides: ConfigOverrides;
  expect: Expectation;
}

export const MATRIX_ROWS: MatrixRow[] = [
  { label: 'neither defect', overrides: { prefillCapacityTokens: FIXED_PREFILL_CAPACITY_TOKENS, rejectPath: 'fixed' }, expect: 'served-correctly' },
  { label: 'capacity gap only (fixed reject path)', overrides: { rejectPath: 'fixed' }, expect: 'rejected-400' },
  { label: 'buggy reject path only (capacity ≥ advertised)', overrides: { prefillCapacityTokens: FIXED_PREFILL_CAPACITY_TOKENS }, expect: 'served-correctly' },
  { label: 'both defects', overrides: {}, expect: 'leaked-200' },
  { label: 'both + clear pages on free', overrides: { mitigations: { clearPagesOnFree: true } }, expect: 'wrong-output-200' },
  { label: 'both + per-read integrity check', overrides: { mitigations: { perReadIntegrityCheck: true } }, expect: 'failed-closed' },
  { label: 'both + transferred-length check', overrides: { mitigations: { transferredLengthCheck: true } }, expect: 'failed-closed' },
  { label: 'both + prefill capacity 2,040,000', overrides: { prefillCapacityTokens: FIXED_PREFILL_CAPACITY_TOKENS }, expect: 'served-correctly' },
  { label: 'both + deployment capacity check', overrides: { mitigations: { deploymentCapacityCheck: true } }, expect: 'deployment-refused' },
];

export interface MatrixResult {
  label: string;
  expect: Expectation;
  /** Requests longer than the incident's prefill cache. */
  overCapacity: number;
  served: number;
  servedCorrectly: number;
  rejected400: number;
  errors500: number;
  leaked: number;
  canaryLeaks: number;
  wrongOutput: number;
  /** Every request of the trace, to show ordinary traffic is unaffected. */
  allLeaked: number;
  refused: string | null;
  eventLogHash: string | null;
  matches: boolean;
}

export function runMatrixRow(row: MatrixRow, base: EngineConfig = INCIDENT_CONFIG, trace: Trace = matrixTrace()): MatrixResult {
  const config = withOverrides(base, row.overrides);
  const threshold = base.prefillCapacityTokens;
  let sim: Simulation;
  try {
    sim = new Simulation(config, trace, { keepEvents: false }).run();
  } catch (e) {
    if (!(e instanceof DeploymentRefused)) throw e;
    return {
      label: row.label, expect: row.expect, overCapacity: trace.requests.filter((r) => r.promptTokens > threshold).length,
      served: 0, servedCorrectly: 0, rejected400: 0, errors500: 0, leaked: 0, canaryLeaks: 0, wrongOutput: 0, allLeaked: 0,
      refused: e.message, eventLogHash: null, matches: row.expect === 'deployment-refused',
    };
  }
  const over = sim.responses.filter((r) => r.promptTokens > threshold);
  const served = over.filter((r) => r.status === 200);
  const result: MatrixResult = {
    label: row.label,
    expect: row.expect,
    overCapacity: over.length,
    served: served.length,
    servedCorrectly: served.filter((r) => r.correct === true && r.leakedFrom.length === 0).length,
    rejected400: over.filter((r) => r.status === 400).length,
    errors500: over.filter((r) => r.status === 500).length,
    leaked: over.filter((r) => r.leakedFrom.length > 0).length,
    canaryLeaks: over.filter((r) => r.canaryHits.length > 0).length,
    wrongOutput: served.filter((r) => r.correct === false).length,
    allLeaked: sim.responses.filter((r) => r.leakedFrom.length > 0).length,
    refused: null,
    eventLogHash: sim.eventLogHash,
    matches: false,
  };
  result.matches = meetsExpectation(result);
  return result;
}

function meetsExpectation(r: MatrixResult): boolean {
  const n = r.overCapacity;
  if (n === 0) return false;
  switch (r.expect) {
    case 'served-correctly':
      return r.servedCorrectly === n && r.allLeaked === 0;
    case 'rejected-400':
      return r.rejected400 === n && r.allLeaked === 0;
    case 'leaked-200':
      return r.served === n && r.leaked === n && r.errors500 === 0 && r.rejected400 === 0;
    case 'wrong-output-200':
      return r.served === n && r.wrongOutput === n && r.allLeaked === 0;
    case 'failed-closed':
      return r.errors500 === n && r.allLeaked === 0;
    case 'deployment-refused':
      return r.refused !== null;
  }
}

export function runMatrix(base: EngineConfig = INCIDENT_CONFIG, trace: Trace = matrixTrace()): MatrixResult[] {
  return MATRIX_ROWS.map((row) => runMatrixRow(row, base, trace));
}

export function describeOutcome(r: MatrixResult): string {
  if (r.refused) return r.refused;
  const parts: string[] = [];
  if (r.served) parts.push(`${r.served}/${r.overCapacity} answered 200`);
  if (r.servedCorrectly) parts.push(`${r.servedCorrectly} correct`);
  if (r.rejected400) parts.push(`${r.rejected400} rejected 400`);
  if (r.errors500) parts.push(`${r.errors500} failed closed (500)`);
  parts.push(`${r.leaked} leaked`);
  if (r.wrongOutput) parts.push(`${r.wrongOutput} wrong output`);
  return parts.join(', ');
}
