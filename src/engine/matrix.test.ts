import { describe, expect, it } from 'vitest';
import { MATRIX_ROWS, runMatrixRow } from './matrix.ts';
import { MITIGATIONS } from './switches.ts';

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
      const row = MATRIX_ROWS.find((r) => r.switches[m.key] && MITIGATIONS.every((o) => o.key === m.key || !r.switches[o.key]));
      expect(row, m.key).toBeDefined();
      expect(row!.expect).toBe(m.expect);
      expect(runMatrixRow(row!).matches, m.key).toBe(true);
    }
  });
});
