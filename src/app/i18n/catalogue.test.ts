import { describe, expect, test, vi } from 'vitest';
import { TEXT_PENDING, languageLoaded, loadLanguage, loadLaterText, subscribeCatalogue, translate } from './catalogue.ts';
import { MESSAGES, translate as nodeTranslate, type MessageKey } from './messages.ts';

describe('the catalogue as the page loads it', () => {
  const keys = Object.keys(MESSAGES.en) as MessageKey[];

  test('a page opened in French loads French only: its first part stands alone, English is not fetched for it', async () => {
    // A fresh catalogue, as a page opened with lang=fr has it.
    vi.resetModules();
    const page = await import('./catalogue.ts');
    await page.loadLanguage('fr');
    expect(page.languageLoaded('fr')).toBe(true);
    expect(page.languageLoaded('en')).toBe(false);
    // Every entry of the first part reads in French, none is pending.
    const first = keys.filter((k) => page.translate('fr', k) !== page.TEXT_PENDING);
    expect(first.length).toBeGreaterThan(50);
    for (const key of first) expect(page.translate('fr', key), key).toBe(nodeTranslate('fr', key));
  });

  test('English’s first part once loaded, the later part when asked for, French reads as English until its text arrives', async () => {
    await loadLanguage('en');
    // A lookup of a later entry reads as pending, and asks for the later part.
    const first = keys.filter((k) => translate('en', k) !== TEXT_PENDING);
    const later = keys.filter((k) => !first.includes(k));
    // Both parts hold entries: the split is real, and what is there is the catalogue's.
    expect(first.length).toBeGreaterThan(50);
    expect(later.length).toBeGreaterThan(50);
    for (const key of first) expect(translate('en', key), key).toBe(nodeTranslate('en', key));
    await Promise.all([loadLaterText('en'), loadLaterText('en')]);
    for (const key of keys) expect(translate('en', key), key).toBe(nodeTranslate('en', key));

    expect(languageLoaded('fr')).toBe(false);
    const differing = keys.find((k) => MESSAGES.en[k] !== MESSAGES.fr[k])!;
    expect(translate('fr', differing)).toBe(nodeTranslate('en', differing));
    // Once the later text has been asked for, a language switched to comes whole: both its parts.
    let told = 0;
    const stop = subscribeCatalogue(() => told++);
    await Promise.all([loadLanguage('fr'), loadLanguage('fr')]);
    stop();
    expect(told).toBe(2);
    expect(languageLoaded('fr')).toBe(true);
    for (const key of keys) expect(translate('fr', key), key).toBe(nodeTranslate('fr', key));
  });

  test('placeholders are filled as in Node’s translate', async () => {
    await loadLaterText('en');
    const key = keys.find((k) => /\{\w+\}/.test(MESSAGES.en[k]))!;
    const name = /\{(\w+)\}/.exec(MESSAGES.en[key])![1]!;
    expect(translate('en', key, { [name]: 'X' })).toBe(nodeTranslate('en', key, { [name]: 'X' }));
  });
});
