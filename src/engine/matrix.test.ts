import { describe, expect, it } from 'vitest';
import { DEFECT_COMBINATIONS, GRID_MITIGATIONS, MATRIX_ROWS, describeOutcome, expectationOf, runMatrixRow } from './matrix.ts';
import { DEFECTS, INCIDENT_SWITCHES, MECHANISMS, MITIGATIONS, fixSetting, type SwitchKey } from './switches.ts';

describe('outcome matrix (measured on the warm-cluster trace)', () => {
  const byLabel = (label: string) => runMatrixRow(MATRIX_ROWS.find((r) => r.label === label)!);

  it('neither defect: long requests served correctly, 0 leaks', () => {
    const r = byLabel('neither defect');
    expect(r.overCapacity).toBe(4);
    expect(r.servedCorrectly).toBe(4);
    expect(r.allLeaked).toBe(0);
  });

  it('capacity gap only: each over-capacity request gets a 400, 0 leaks', () => {
    const r = byLabel('capacity gap only');
    expect(r.rejected400).toBe(4);
    expect(r.allLeaked).toBe(0);
  });

  it('buggy reject path only: nothing rejected, 0 leaks', () => {
    const r = byLabel('buggy reject path only');
    expect(r.rejected400).toBe(0);
    expect(r.servedCorrectly).toBe(4);
    expect(r.allLeaked).toBe(0);
  });

  it('both: every over-capacity request answered 200 and leaked, 0 errors; canaries show it too', () => {
    const r = byLabel('both defects');
    expect(r.served).toBe(4);
    expect(r.leaked).toBe(4);
    expect(r.canaryLeaks).toBe(4);
    expect(r.errors500 + r.rejected400).toBe(0);
  });

  it('both + clear on free: 200, no other tenant content, wrong output', () => {
    const r = byLabel('both + clear pages on free');
    expect(r.served).toBe(4);
    expect(r.allLeaked).toBe(0);
    expect(r.wrongOutput).toBe(4);
  });

  it('both + per-read integrity check / transferred-length check: fail closed, 0 leaks', () => {
    for (const label of ['both + per-read integrity check', 'both + transferred-length check']) {
      const r = byLabel(label);
      expect(r.errors500).toBe(4);
      expect(r.allLeaked).toBe(0);
    }
  });

  it('deployment capacity check refuses the incident deployment, naming both numbers', () => {
    const r = byLabel('both + deployment capacity check');
    expect(r.refused).toMatch(/1,048,576.*681,280/);
  });

  it('has a row for every mitigation of the registry, each measured as its entry predicts', () => {
    for (const m of MITIGATIONS) {
      const row = MATRIX_ROWS.find((r) => r.isolates === m.key);
      expect(row, m.key).toBeDefined();
      expect(row!.expect).toBe(m.expect);
      expect(runMatrixRow(row!).matches, m.key).toBe(true);
    }
  });

  it('measures the whole grid: every defect combination against no mitigation and each mitigation, once, as expected', () => {
    expect(DEFECT_COMBINATIONS.map((c) => c.on.length)).toEqual([DEFECTS.length, ...DEFECTS.map(() => 1), 0]);
    for (const c of DEFECT_COMBINATIONS) {
      for (const m of [null, ...GRID_MITIGATIONS]) {
        const cells = MATRIX_ROWS.filter((r) => r.cell?.combination === c.id && r.cell.mitigation === m);
        expect(cells, `${c.id} × ${m}`).toHaveLength(1);
        const cell = cells[0]!;
        // The cell's switches are the incident's with the defects not in the combination fixed and that mitigation on.
        const want = { ...INCIDENT_SWITCHES };
        for (const d of DEFECTS) if (!c.on.includes(d.key)) want[d.key] = fixSetting(d.key);
        if (m) want[m] = true;
        expect(cell.switches, cell.label).toEqual(want);
        const measured = runMatrixRow(cell);
        expect(measured.matches, `${cell.label}: ${describeOutcome(measured)}`).toBe(true);
      }
    }
    // Every mitigation of the incident's design is a column; mechanisms and the abort race are not in the grid.
    expect(GRID_MITIGATIONS).toEqual(MITIGATIONS.filter((m) => !('design' in m)).map((m) => m.key));
    for (const k of [...MECHANISMS.map((m): SwitchKey => m.key), 'fenceLateWrites'] as SwitchKey[]) expect(MATRIX_ROWS.find((r) => r.isolates === k)!.cell, k).toBeNull();
  });

  it('a deployment check refuses wherever the capacity gap is, and only there', () => {
    expect(expectationOf(['capacityGap'], 'deploymentCapacityCheck')).toBe('deployment-refused');
    expect(expectationOf(['buggyRejectPath'], 'deploymentCapacityCheck')).toBe('served-correctly');
    const gapOnly = byLabel('capacity gap only + deployment capacity check');
    expect(gapOnly.refused).toMatch(/1,048,576.*681,280/);
    const pathOnly = byLabel('buggy reject path only + deployment capacity check');
    expect(pathOnly.refused).toBeNull();
    expect(pathOnly.servedCorrectly).toBe(4);
  });

  it('with one defect fixed a mitigation has nothing to act on: the fixed path still rejects with 400', () => {
    for (const m of GRID_MITIGATIONS.filter((k) => k !== 'deploymentCapacityCheck')) {
      const r = runMatrixRow(MATRIX_ROWS.find((x) => x.cell?.combination === 'gap-only' && x.cell.mitigation === m)!);
      expect(r.rejected400, m).toBe(4);
      expect(r.errors500 + r.leaked + r.wrongOutput, m).toBe(0);
    }
  });
});
