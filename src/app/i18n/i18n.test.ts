import { describe, expect, it } from 'vitest';
import { SWITCHES } from '../../engine/switches.ts';
import { MESSAGES, translate, type MessageKey } from './i18n.ts';

describe('the UI catalogue', () => {
  it('has every key in both languages', () => {
    expect(Object.keys(MESSAGES.fr).sort()).toEqual(Object.keys(MESSAGES.en).sort());
  });

  it('carries each registered switch\u2019s label, hint and fix, from the registry', () => {
    for (const s of SWITCHES) {
      for (const part of ['label', 'hint', 'fix'] as const) {
        const key = `switch.${s.key}.${part}` as MessageKey;
        expect(translate('en', key), key).toBe(s[part].en);
        expect(translate('fr', key), key).toBe(s[part].fr);
      }
    }
  });
});
