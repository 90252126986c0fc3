import { describe, expect, it } from 'vitest';
import { CHECKED_CONFIGS, PROPERTIES, explore, type CheckedConfigId, type Mutation } from '../../../engine/protocol/index.ts';
import { frenchTypography, translate, type Translate } from '../../i18n/messages.ts';
import { describeStep, describeViolation } from './stepText.ts';

const en: Translate = (key, vars) => translate('en', key, vars);
const fr: Translate = (key, vars) => translate('fr', key, vars);
// The catalogue sets apostrophes as ’; the model's labels use '.
const plain = (s: string | null) => s?.replaceAll('\u2019', "'") ?? null;

describe('the protocol model\u2019s steps, rebuilt for the page', () => {
  const mutations: Mutation[] = ['none', 'decode-frees-early', 'success-without-send', 'double-allocation'];
  for (const mutation of mutations) {
    it(`say in English exactly what the model\u2019s own labels say (${mutation})`, () => {
      let steps = 0;
      for (const checked of CHECKED_CONFIGS) {
        const c = mutation === 'none' ? checked.config : { ...checked.config, mutation };
        const result = explore(c);
        for (const p of PROPERTIES) {
          const ce = result.verdicts[p].counterexample;
          if (!ce) continue;
          ce.steps.forEach((step, i) => {
            const before = i === 0 ? ce.initial : ce.steps[i - 1]!.state;
            expect(plain(describeStep(c, before, step, en)), `${c.id} ${p} step ${i + 1}`).toBe(step.label);
            steps++;
          });
          const last = ce.steps[ce.steps.length - 1];
          expect(plain(describeViolation(c, p, last, ce.initial, en)), `${c.id} ${p} violation`).toBe(last?.violation ?? null);
        }
      }
      expect(steps).toBeGreaterThan(20);
    });
  }

  it('say it in French too, with no English left in the sentence', () => {
    const c = CHECKED_CONFIGS.find((x) => x.config.id === 'incident')!.config;
    const ce = explore(c).verdicts.confidentiality.counterexample!;
    const texts = ce.steps.map((step, i) => describeStep(c, i === 0 ? ce.initial : ce.steps[i - 1]!.state, step, fr));
    for (const s of texts) expect(s).not.toMatch(/\b(arrives|reserves|computes|sends|frees|queues|tenant|pages? reserved|stale slots)\b/);
    expect(texts.join('\n')).toContain('jeton provisoire');
  });
});

describe('the configurations\u2019 titles and notes', () => {
  it('are in the catalogue in both languages, derived from the check\u2019s list (the English is what the CLI prints)', () => {
    for (const { config, title, note } of CHECKED_CONFIGS) {
      const id = config.id as CheckedConfigId;
      expect(translate('en', `vpConfig.${id}.title`), config.id).toBe(config.title);
      expect(translate('en', `vpConfig.${id}.note`), config.id).toBe(note.en);
      expect(translate('fr', `vpConfig.${id}.title`), config.id).toBe(frenchTypography(title.fr));
      expect(translate('fr', `vpConfig.${id}.note`), config.id).not.toBe(note.en);
    }
  });
});
