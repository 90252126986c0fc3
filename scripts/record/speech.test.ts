import { describe, expect, it } from 'vitest';
import { spokenText, VOICES } from './speech.ts';

describe('what the narration says', () => {
  it('English in festival\u2019s HTS voice, French in espeak-ng\u2019s', () => {
    expect(VOICES.en).toEqual({ engine: 'festival', voice: 'cmu_us_slt_arctic_hts' });
    expect(VOICES.fr.engine).toBe('espeak-ng');
  });

  it('says the four times of 9 September as times, in both languages', () => {
    expect(spokenText('13:22 UTC: incident declared (F10).', 'en')).toBe('thirteen twenty-two UTC: incident declared.');
    expect(spokenText('at 14:00, private; 14:35; 19:40', 'en')).toBe('at fourteen hundred, private; fourteen thirty-five; nineteen forty');
    expect(spokenText('13 h 22 UTC : incident déclaré (F10).', 'fr')).toBe('treize heures vingt-deux U T C : incident déclaré.');
    expect(spokenText('à 14 h 00, puis 14 h 35 et 19 h 40', 'fr')).toBe('à quatorze heures, puis quatorze heures trente-cinq et dix-neuf heures quarante');
  });

  it('respells for the French voice the words it says badly, and never the words on screen', () => {
    expect(spokenText('prefill, SGLang, Cloudflare, HackerOne, Knostic', 'fr')).toBe('pri-fil, S G Lang, Claoude-flère, Hackeur-ouane, Nostique');
    expect(spokenText('SGLang and Knostic via HackerOne', 'en')).toBe('S G Lang and Nostic via Hacker One');
  });
});
