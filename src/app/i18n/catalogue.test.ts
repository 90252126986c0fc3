import { describe, expect, test } from 'vitest';
import { languageLoaded, loadLanguage, subscribeCatalogue, translate } from './catalogue.ts';
import { MESSAGES, type MessageKey } from './messages.ts';

describe('the catalogue as the page loads it', () => {
  const keys = Object.keys(MESSAGES.en) as MessageKey[];

  test('English is there at once, entry for entry the catalogue’s; French reads as English until its table arrives', async () => {
    for (const key of keys) expect(translate('en', key), key).toBe(MESSAGES.en[key]);
    expect(languageLoaded('fr')).toBe(false);
    const differing = keys.find((k) => MESSAGES.en[k] !== MESSAGES.fr[k])!;
    expect(translate('fr', differing)).toBe(MESSAGES.en[differing]);

    let told = 0;
    const stop = subscribeCatalogue(() => told++);
    await Promise.all([loadLanguage('fr'), loadLanguage('fr')]);
    stop();
    expect(told).toBe(1);
    expect(languageLoaded('fr')).toBe(true);
    for (const key of keys) expect(translate('fr', key), key).toBe(MESSAGES.fr[key]);
  });

  test('placeholders are filled as in Node’s translate', () => {
    const key = keys.find((k) => /\{\w+\}/.test(MESSAGES.en[k]))!;
    const name = /\{(\w+)\}/.exec(MESSAGES.en[key])![1]!;
    expect(translate('en', key, { [name]: 'X' })).toBe(MESSAGES.en[key].replaceAll(`{${name}}`, 'X'));
  });
});
