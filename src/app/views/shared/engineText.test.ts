import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../engine/events.ts';
import { translate, type MessageKey } from '../../i18n/messages.ts';
import { describeEvent } from './engineText.ts';

const t = (lang: 'en' | 'fr') => (key: MessageKey, vars?: Record<string, string>) => translate(lang, key, vars);

describe('decode freeing a request\'s pages', () => {
  const free: EngineEvent = { t: 9, type: 'decode-free', req: 0, node: 0, pages: [[1, 12_000], [20_000, 501]], cleared: false };
  const grow: EngineEvent = { t: 8, type: 'decode-grow', req: 0, node: 0, page: 20_500, tokens: 1 };
  it('says where pages beyond the reservation came from, so that a freed count above the reserved one is not a count gone wrong', () => {
    const events = [grow, free];
    expect(describeEvent(free, t('en'), { lang: 'en', phase: undefined, events })).toBe('Decode frees its 12,501 pages: the 12,500 it reserved for the prompt and 1 it took for the answer (not cleared).');
    expect(describeEvent(free, t('fr'), { lang: 'fr', phase: undefined, events }).replace(/[\u00a0\u202f]/g, ' ')).toMatch(/^La génération libère ses 12 501 pages : les 12 500 réservées pour la requête et 1 prise pour la réponse/);
  });
  it('says the count alone when decode took no page for the answer', () => {
    expect(describeEvent(free, t('en'), { lang: 'en', phase: undefined, events: [free] })).toBe('Decode frees its 12,501 pages (not cleared).');
  });
});
