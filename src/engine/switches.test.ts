import { describe, expect, it } from 'vitest';
import { INCIDENT_CONFIG, withOverrides } from './config.ts';
import { MATRIX_ROWS, describeOutcome, runMatrixRow, verdictOf } from './matrix.ts';
import { CHECKED_CONFIGS } from './protocol/configs.ts';
import { explore } from './protocol/explore.ts';
import { parseConfigFile } from './schema.ts';
import { SWITCH_TEXT } from './switchText.ts';
import { INCIDENT_SWITCHES, MITIGATIONS, SWITCHES, designOf, fixSetting, overridesOf, switchesOf, withFix, type Switch } from './switches.ts';

const ALL = SWITCHES as readonly Switch[];

describe('the registry of switches', () => {
  it('gives every switch a code, a fix code, evidence and text in both languages', () => {
    for (const s of ALL) {
      expect(s.code, s.key).toMatch(/^[a-z]+$/);
      expect(s.fixCode, s.key).toMatch(/^[a-z]+$/);
      expect(Object.keys(s.evidence).length, s.key).toBe(1);
      for (const text of [SWITCH_TEXT[s.key].label, SWITCH_TEXT[s.key].hint, SWITCH_TEXT[s.key].fix]) {
        expect(text.en.trim(), s.key).not.toBe('');
        expect(text.fr.trim(), s.key).not.toBe('');
        expect(text.fr, `${s.key}: French is not the English`).not.toBe(text.en);
      }
    }
  });

  it('maps each switch onto the engine and back', () => {
    const incident = withOverrides(INCIDENT_CONFIG, overridesOf(INCIDENT_SWITCHES));
    expect(switchesOf(incident)).toEqual(INCIDENT_SWITCHES);
    for (const s of ALL) {
      const fixed = withFix(INCIDENT_SWITCHES, s.key);
      const config = withOverrides(INCIDENT_CONFIG, overridesOf(fixed));
      expect(switchesOf(config), s.key).toEqual(fixed);
    }
  });

  it('gives every switch its row in the outcome matrix', () => {
    for (const s of ALL) {
      // A defect's expectation is its "only" row; a mitigation's or mechanism's, the row that isolates it.
      const row = MATRIX_ROWS.find((r) => (s.kind === 'defect' ? r.label === `${SWITCH_TEXT[s.key].label.en.toLowerCase()} only` : r.isolates === s.key));
      expect(row, s.key).toBeDefined();
      expect(row!.expect, s.key).toBe(s.expect);
      expect(row!.design, s.key).toBe(designOf(s.key));
    }
  });

  it('has, for every switch, a matrix row measuring the design its protocol counterpart checks, and they agree', () => {
    for (const s of ALL) {
      // The counterpart checks the switch's fix applied to its design: the row that isolates it.
      const row = MATRIX_ROWS.find((r) => r.isolates === s.key);
      expect(row, s.key).toBeDefined();
      expect(row!.switches[s.key], s.key).toBe(fixSetting(s.key));
      const measured = runMatrixRow(row!);
      expect(measured.matches, `${s.key}: ${describeOutcome(measured)}`).toBe(true);
      const verdict = explore(CHECKED_CONFIGS.find((x) => x.config.id === s.protocol.id)!.config);
      const holds = (p: 'confidentiality' | 'integrity') => verdict.verdicts[p].holds;
      expect({ confidentiality: holds('confidentiality'), integrity: holds('integrity') }, s.key).toEqual(verdictOf(measured.expect));
    }
    // The abort race without its fence, against the unfenced protocol configuration.
    const race = runMatrixRow(MATRIX_ROWS.find((r) => r.label === 'abort race, late writes not fenced')!);
    expect(race.matches, describeOutcome(race)).toBe(true);
    const unfenced = explore(CHECKED_CONFIGS.find((x) => x.config.id === 'abort-race')!.config);
    expect(unfenced.verdicts.confidentiality.holds).toBe(verdictOf(race.expect).confidentiality);
  });

  it('gives every switch its counterpart in the protocol check', () => {
    for (const s of ALL) {
      const c = CHECKED_CONFIGS.find((x) => x.config.id === s.protocol.id);
      expect(c, s.key).toBeDefined();
      expect(c!.expectHolds, s.key).toEqual(s.protocol.expectHolds);
      const mitigations = c!.config.mitigations as Record<string, boolean | undefined>;
      for (const [k, v] of Object.entries(s.protocol.overrides.mitigations ?? {})) expect(mitigations[k], s.key).toBe(v);
    }
    expect(new Set(CHECKED_CONFIGS.map((c) => c.config.id)).size).toBe(CHECKED_CONFIGS.length);
  });

  it('lets a config file switch every mitigation, and refuses one it does not know', () => {
    for (const m of MITIGATIONS) expect(parseConfigFile({ mitigations: { [m.key]: true } }, 'c.json').mitigations).toEqual({ [m.key]: true });
    expect(() => parseConfigFile({ mitigations: { notAMitigation: true } }, 'c.json')).toThrow(/notAMitigation/);
  });
});
