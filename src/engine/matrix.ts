/**
 * The outcome matrix: one warm-cluster trace with over-capacity prompts, run under each combination
 * of defects and mitigations. Every cell is measured from a real run; `expect` states what the
 * mechanism predicts, and `matches` says whether the run agreed. The grid (each combination of
 * defects against no mitigation and each mitigation of the incident's design) is measured whole;
 * upstream mechanisms are measured over both defects. Rows of the abort-race design run their own
 * trace, in which clients cancel while a transfer is in flight.
 */
import { DeploymentRefused, INCIDENT_CONFIG, withOverrides, type ConfigOverrides, type EngineConfig } from './config.ts';
import { ABORT_RACE_TIMING, abortRaceTrace, matrixTrace } from './scenarios.ts';
import { Simulation, answeredFromForeignMemory } from './simulation.ts';
import { DEFECTS, INCIDENT_SWITCHES, MECHANISMS, MITIGATIONS, designOf, fixSetting, overridesOf, switchSpec, type Localised, type MitigationKey, type Switch, type SwitchDesign, type SwitchKey, type Switches } from './switches.ts';
import { SWITCH_TEXT } from './switchText.ts';
import type { Trace } from './trace.ts';

/**
 * `leaked-200-unless-tokenizer-400`: every over-capacity request either gets a 400 from the
 * tokenizer or is answered 200 over other tenants' KV, and at least one leaks.
 */
export type Expectation = 'served-correctly' | 'rejected-400' | 'leaked-200' | 'leaked-200-unless-tokenizer-400' | 'wrong-output-200' | 'failed-closed' | 'deployment-refused';

export interface MatrixRow {
  /** English label (the CLI's), and both languages for the page. */
  label: string;
  title: Localised;
  /** The switches of this row: the incident with some switches set to their fix. */
  switches: Switches;
  overrides: ConfigOverrides;
  expect: Expectation;
  /** Which requests the row is about: the trace's over-capacity prompts, or (abort race) the ones no client cancelled. */
  design: SwitchDesign;
  /** The switch whose setting this row isolates (its fix applied to the row's design), if any. */
  isolates: SwitchKey | null;
  /** The row's place in the grid of defect combinations × mitigations; null outside it. */
  cell: MatrixCell | null;
}

/** A place in the grid: a combination of defects (its id) and one mitigation or none. */
export interface MatrixCell {
  combination: string;
  mitigation: MitigationKey | null;
}

function row(title: Localised, fixed: SwitchKey[], expect: Expectation, isolates: SwitchKey | null = null, design: SwitchDesign = 'incident', cell: MatrixCell | null = null): MatrixRow {
  const switches = { ...INCIDENT_SWITCHES };
  for (const k of fixed) switches[k] = fixSetting(k);
  const overrides = overridesOf(switches);
  if (design === 'abort-race') {
    overrides.timing = { ...overrides.timing, ...ABORT_RACE_TIMING };
    // The race needs the next request to get the pages just freed: the lowest-id-first simplification.
    // Under SGLang's list a one-page request gets them only after a merge, which decode's admission
    // reserve does not let happen here (docs/MODEL.md, where the engine differs from SGLang).
    overrides.freeListPolicy = 'sorted';
  }
  return { label: title.en, title, switches, overrides, expect, design, isolates, cell };
}

/** A label inside a sentence: its first letter lower-cased, acronyms (KV, SGLang) kept. */
const inSentence = (label: string) => label.charAt(0).toLowerCase() + label.slice(1);

const onIncident = (s: Switch) => designOf(s.key) === 'incident';
const onRace = (s: Switch) => designOf(s.key) === 'abort-race';

/** A row of the grid: which defects are on (the others fixed). */
export interface DefectCombination {
  id: string;
  title: Localised;
  /** The defects switched on, as in the incident. */
  on: SwitchKey[];
}

const ALL_DEFECTS: SwitchKey[] = (DEFECTS as readonly Switch[]).map((d) => d.key);

/** The grid's rows, from the registry's defects: both (the incident), each fixed alone, neither. */
export const DEFECT_COMBINATIONS: DefectCombination[] = [
  { id: 'both', title: { en: 'both defects', fr: 'les deux défauts' }, on: ALL_DEFECTS },
  // "d only" is the other defect fixed alone.
  ...(DEFECTS as readonly Switch[]).map((d) => ({ id: `${d.code}-only`, title: { en: `${SWITCH_TEXT[d.key].label.en.toLowerCase()} only`, fr: `${SWITCH_TEXT[d.key].label.fr.toLowerCase()} seulement` }, on: [d.key] })),
  { id: 'neither', title: { en: 'neither defect', fr: 'aucun des deux défauts' }, on: [] },
];

/** The grid's columns after "no mitigation": every mitigation the incident's design can show. */
export const GRID_MITIGATIONS: MitigationKey[] = (MITIGATIONS as readonly Switch[]).filter(onIncident).map((m) => m.key as MitigationKey);

/**
 * What the registry predicts for a cell of the grid. Both defects: the mitigation's own expectation
 * (a leak without one). One defect alone: that defect's (nothing over-long reaches a buggy path, or
 * the fixed path rejects it at admission, so no mitigation has anything to act on), unless the
 * mitigation refuses a deployment that has it. Neither: every request served correctly.
 */
export function expectationOf(on: readonly SwitchKey[], mitigation: MitigationKey | null): Expectation {
  const m = mitigation === null ? null : switchSpec(mitigation);
  if (m?.refusesDeploymentWith !== undefined && on.includes(m.refusesDeploymentWith as SwitchKey)) return 'deployment-refused';
  if (on.length === ALL_DEFECTS.length) return m?.expect ?? 'leaked-200';
  if (on.length === 0) return 'served-correctly';
  if (on.length === 1) return switchSpec(on[0]!).expect;
  throw new Error(`outcome matrix: no expectation for defects ${on.join(' + ')}`);
}

const fixedOf = (c: DefectCombination): SwitchKey[] => ALL_DEFECTS.filter((k) => !c.on.includes(k));
const combination = (id: string) => DEFECT_COMBINATIONS.find((c) => c.id === id)!;

/** The grid's cells not among the rows below: one defect or neither, with a mitigation. */
const otherGridCells: MatrixRow[] = DEFECT_COMBINATIONS.filter((c) => c.on.length < ALL_DEFECTS.length).flatMap((c) =>
  GRID_MITIGATIONS.map((key) => {
    const m = switchSpec(key);
    return row({ en: `${c.title.en} + ${inSentence(SWITCH_TEXT[m.key].label.en)}`, fr: `${c.title.fr} + ${inSentence(SWITCH_TEXT[m.key].label.fr)}` }, [...fixedOf(c), key], expectationOf(c.on, key), null, 'incident', { combination: c.id, mitigation: key });
  }),
);

/**
 * Every row derives from the registry of switches: no defect, each defect alone, both, both with
 * each mitigation or upstream mechanism switched on; the rest of the grid (one defect or neither,
 * with each mitigation); then the abort race without and with each switch of its design (the fixed
 * reject path, clients that cancel mid-transfer).
 */
export const MATRIX_ROWS: MatrixRow[] = [
  row(combination('neither').title, fixedOf(combination('neither')), expectationOf([], null), null, 'incident', { combination: 'neither', mitigation: null }),
  ...(DEFECTS as readonly Switch[]).map((d) => {
    const c = combination(`${d.code}-only`);
    // "d only" is the other defect's fix applied to the incident.
    return row(c.title, fixedOf(c), expectationOf(c.on, null), DEFECTS.find((o) => o.key !== d.key)?.key ?? null, 'incident', { combination: c.id, mitigation: null });
  }),
  row(combination('both').title, [], expectationOf(ALL_DEFECTS, null), null, 'incident', { combination: 'both', mitigation: null }),
  ...([...MITIGATIONS, ...MECHANISMS] as readonly Switch[])
    .filter(onIncident)
    .map((m) =>
      row({ en: `both + ${inSentence(SWITCH_TEXT[m.key].label.en)}`, fr: `les deux + ${inSentence(SWITCH_TEXT[m.key].label.fr)}` }, [m.key], m.expect, m.key, 'incident', m.kind === 'mitigation' ? { combination: 'both', mitigation: m.key as MitigationKey } : null),
    ),
  ...otherGridCells,
  row({ en: 'abort race, late writes not fenced', fr: 'course entre annulation et transfert, écritures tardives sans barrière' }, ['buggyRejectPath'], 'leaked-200', null, 'abort-race'),
  ...([...MITIGATIONS, ...MECHANISMS] as readonly Switch[]).filter(onRace).map((m) =>
    row({ en: `abort race + ${inSentence(SWITCH_TEXT[m.key].label.en)}`, fr: `course entre annulation et transfert + ${inSentence(SWITCH_TEXT[m.key].label.fr)}` }, ['buggyRejectPath', m.key], m.expect, m.key, 'abort-race'),
  ),
];

export interface MatrixResult {
  label: string;
  title: Localised;
  switches: Switches;
  expect: Expectation;
  design: SwitchDesign;
  cell: MatrixCell | null;
  /**
   * The requests the row is about: prompts longer than the incident's prefill cache, or, in the
   * abort race, the requests no client cancelled (field name kept for the page and the CLI).
   */
  overCapacity: number;
  served: number;
  servedCorrectly: number;
  rejected400: number;
  errors500: number;
  leaked: number;
  canaryLeaks: number;
  /** Of the row's requests, answered 200 from memory they did not write: the integrity breach. */
  breached: number;
  /** Of the row's requests, answered 200 with a text other than the model's over the prompt alone. */
  wrongOutput: number;
  /** Every request of the trace, to show ordinary traffic is unaffected. */
  allLeaked: number;
  /** Of the row's requests, refused by the tokenizer. */
  tokenizer400: number;
  /** Requests whose client went away (499). */
  cancelled: number;
  refused: string | null;
  eventLogHash: string | null;
  matches: boolean;
}

export function runMatrixRow(row: MatrixRow, base: EngineConfig = INCIDENT_CONFIG, incidentTrace: Trace = matrixTrace()): MatrixResult {
  const config = withOverrides(base, row.overrides);
  const threshold = base.prefillCapacityTokens;
  const trace = row.design === 'abort-race' ? abortRaceTrace() : incidentTrace;
  const subject = (r: { promptTokens: number; request: number }) => (row.design === 'abort-race' ? trace.requests[r.request]!.cancelAt === undefined : r.promptTokens > threshold);
  let sim: Simulation;
  try {
    sim = new Simulation(config, trace, { keepEvents: false }).run();
  } catch (e) {
    if (!(e instanceof DeploymentRefused)) throw e;
    return {
      label: row.label, title: row.title, switches: row.switches, expect: row.expect, design: row.design, cell: row.cell, overCapacity: trace.requests.filter((r: { promptTokens: number }, i: number) => subject({ promptTokens: r.promptTokens, request: i })).length,
      served: 0, servedCorrectly: 0, rejected400: 0, errors500: 0, leaked: 0, canaryLeaks: 0, breached: 0, wrongOutput: 0, allLeaked: 0, tokenizer400: 0, cancelled: 0,
      refused: e.message, eventLogHash: null, matches: row.expect === 'deployment-refused',
    };
  }
  const over = sim.responses.filter(subject);
  const served = over.filter((r) => r.status === 200);
  const result: MatrixResult = {
    label: row.label,
    title: row.title,
    switches: row.switches,
    expect: row.expect,
    design: row.design,
    cell: row.cell,
    overCapacity: over.length,
    served: served.length,
    servedCorrectly: served.filter((r) => r.correct === true && r.leakedFrom.length === 0 && !answeredFromForeignMemory(r)).length,
    rejected400: over.filter((r) => r.status === 400).length,
    errors500: over.filter((r) => r.status === 500).length,
    leaked: over.filter((r) => r.leakedFrom.length > 0).length,
    canaryLeaks: over.filter((r) => r.canaryHits.length > 0).length,
    breached: served.filter(answeredFromForeignMemory).length,
    wrongOutput: served.filter((r) => r.correct === false).length,
    allLeaked: sim.responses.filter((r) => r.leakedFrom.length > 0).length,
    tokenizer400: over.filter((r) => r.status === 400 && r.rejectedBy === 'tokenizer').length,
    cancelled: sim.responses.filter((r) => r.status === 499).length,
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
      return r.served === n && r.leaked === n && r.breached === n && r.errors500 === 0 && r.rejected400 === 0;
    case 'leaked-200-unless-tokenizer-400':
      return r.leaked > 0 && r.served === r.leaked && r.breached === r.served && r.tokenizer400 === r.rejected400 && r.served + r.rejected400 === n && r.errors500 === 0;
    case 'wrong-output-200':
      return r.served === n && r.breached === n && r.wrongOutput === n && r.allLeaked === 0;
    case 'failed-closed':
      return r.errors500 === n && r.allLeaked === 0;
    case 'deployment-refused':
      return r.refused !== null;
  }
}

/** What the protocol check's verdict is for a measured outcome: whether confidentiality and integrity hold. */
export function verdictOf(expect: Expectation): { confidentiality: boolean; integrity: boolean } {
  switch (expect) {
    case 'leaked-200':
    case 'leaked-200-unless-tokenizer-400':
      return { confidentiality: false, integrity: false };
    case 'wrong-output-200':
      return { confidentiality: true, integrity: false };
    default:
      return { confidentiality: true, integrity: true };
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
  if (r.rejected400) parts.push(`${r.rejected400} rejected 400${r.tokenizer400 ? ` (${r.tokenizer400} by the tokenizer)` : ''}`);
  if (r.errors500) parts.push(`${r.errors500} failed closed (500)`);
  parts.push(`${r.leaked} leaked`);
  if (r.served) parts.push(`${r.breached} answered from memory not their own`);
  if (r.wrongOutput) parts.push(`${r.wrongOutput} wrong text${r.wrongOutput === 1 ? '' : 's'}`);
  if (r.cancelled) parts.push(`${r.cancelled} cancelled by their clients (499)`);
  return parts.join(', ');
}
