/**
 * The outcome matrix: one warm-cluster trace with over-capacity prompts, run under each combination
 * of defects and mitigations. Every cell is measured from a real run; `expect` states what the
 * mechanism predicts, and `matches` says whether the run agreed.
 */
import { DeploymentRefused, INCIDENT_CONFIG, withOverrides, type ConfigOverrides, type EngineConfig } from './config.ts';
import { matrixTrace } from './scenarios.ts';
import { Simulation } from './simulation.ts';
import { DEFECTS, INCIDENT_SWITCHES, MITIGATIONS, fixSetting, overridesOf, type Localised, type Switch, type SwitchKey, type Switches } from './switches.ts';
import type { Trace } from './trace.ts';

export type Expectation = 'served-correctly' | 'rejected-400' | 'leaked-200' | 'wrong-output-200' | 'failed-closed' | 'deployment-refused';

export interface MatrixRow {
  /** English label (the CLI's), and both languages for the page. */
  label: string;
  title: Localised;
  /** The switches of this row: the incident with some switches set to their fix. */
  switches: Switches;
  overrides: ConfigOverrides;
  expect: Expectation;
}

function row(title: Localised, fixed: SwitchKey[], expect: Expectation): MatrixRow {
  const switches = { ...INCIDENT_SWITCHES };
  for (const k of fixed) switches[k] = fixSetting(k);
  return { label: title.en, title, switches, overrides: overridesOf(switches), expect };
}

/**
 * Every row derives from the registry of switches: no defect, each defect alone, both, and both
 * with each mitigation switched on.
 */
export const MATRIX_ROWS: MatrixRow[] = [
  row({ en: 'neither defect', fr: 'aucun des deux défauts' }, DEFECTS.map((d): SwitchKey => d.key), 'served-correctly'),
  ...(DEFECTS as readonly Switch[]).map((d) =>
    row(
      { en: `${d.label.en.toLowerCase()} only`, fr: `${d.label.fr.toLowerCase()} seulement` },
      DEFECTS.filter((o) => o.key !== d.key).map((o): SwitchKey => o.key),
      d.expect,
    ),
  ),
  row({ en: 'both defects', fr: 'les deux défauts' }, [], 'leaked-200'),
  ...(MITIGATIONS as readonly Switch[]).map((m) => row({ en: `both + ${m.label.en.toLowerCase()}`, fr: `les deux + ${m.label.fr.toLowerCase()}` }, [m.key], m.expect)),
];

export interface MatrixResult {
  label: string;
  title: Localised;
  switches: Switches;
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
      label: row.label, title: row.title, switches: row.switches, expect: row.expect, overCapacity: trace.requests.filter((r) => r.promptTokens > threshold).length,
      served: 0, servedCorrectly: 0, rejected400: 0, errors500: 0, leaked: 0, canaryLeaks: 0, wrongOutput: 0, allLeaked: 0,
      refused: e.message, eventLogHash: null, matches: row.expect === 'deployment-refused',
    };
  }
  const over = sim.responses.filter((r) => r.promptTokens > threshold);
  const served = over.filter((r) => r.status === 200);
  const result: MatrixResult = {
    label: row.label,
    title: row.title,
    switches: row.switches,
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
