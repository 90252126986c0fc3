import { describe, expect, it } from 'vitest';
import { formatMs, formatNumber, formatOffsetSeconds, formatScientific, formatUtc, formatUtcDay, formatUtcDayRange, timeAxisFormat } from './format.ts';

const NNBSP = '\u202f';

describe('numbers and instants in the page\u2019s language', () => {
  it('groups thousands the French way, with a narrow no-break space, and the English way with commas', () => {
    expect(formatNumber(800_000, 'fr')).toBe(`800${NNBSP}000`);
    expect(formatNumber(1_048_576, 'fr')).toBe(`1${NNBSP}048${NNBSP}576`);
    expect(formatNumber(1_048_576, 'en')).toBe('1,048,576');
    expect(formatOffsetSeconds(125, 'fr')).toBe('+0,125\u00a0s');
    expect(formatOffsetSeconds(125, 'en')).toBe('+0.125\u00a0s');
    expect(formatMs(8.44, 'fr')).toBe('8,4\u00a0ms');
    expect(formatScientific(1.234e-7, 'fr')).toBe('1,23E-7');
    expect(Number(formatScientific(1.234e-7, 'en'))).toBeCloseTo(1.23e-7, 12);
  });

  it('writes UTC instants day first, with the month\u2019s name in the page\u2019s language', () => {
    const t = Date.UTC(2026, 7, 27, 8, 43, 25);
    expect(formatUtc(t, 'en')).toBe('27 Aug 2026 08:43:25 UTC');
    // « à » between a day and its time, to the second as to the minute.
    expect(formatUtc(t, 'fr')).toBe('27 août 2026 à 08:43:25 UTC');
    expect(formatUtc(t, 'fr', { date: false })).toBe('08:43:25 UTC');
    expect(formatUtc(Date.UTC(2026, 8, 9, 13, 22), 'fr', { seconds: false, year: false })).toBe('9 sept. à 13\u00a0h\u00a022 UTC');
    expect(formatUtc(Date.UTC(2026, 8, 9, 9, 5), 'fr', { seconds: false, date: false, utc: false })).toBe('9\u00a0h\u00a005');
    expect(formatUtc(Date.UTC(2026, 8, 9, 13, 22), 'en', { seconds: false, year: false })).toBe('9 Sep 13:22 UTC');
    expect(formatUtcDay('2026-09-09', 'fr', { weekday: true })).toBe('mer. 9 sept. 2026');
    expect(formatUtcDayRange('2026-08-27', '2026-09-09', 'fr')).toBe('27 août – 9 sept. 2026');
    expect(formatUtcDayRange('2026-08-27', '2026-09-09', 'en')).toBe('27 Aug – 9 Sep 2026');
    // In a French sentence the range reads in words (« Reconstitution de la période du 27 août au 9 septembre 2026 »).
    expect(formatUtcDayRange('2026-08-27', '2026-09-09', 'fr', { prose: true })).toBe('du 27 août au 9 septembre 2026');
    expect(formatUtcDayRange('2026-08-27', '2026-09-09', 'en', { prose: true })).toBe('27 Aug – 9 Sep 2026');
  });

  it('labels the time axis in French: « jeu. 27 août », a 24-hour clock, no AM/PM', () => {
    const fr = timeAxisFormat('fr');
    expect(fr(new Date(Date.UTC(2026, 7, 27)))).toBe('jeu. 27 août');
    expect(fr(new Date(Date.UTC(2026, 8, 1)))).toBe('septembre');
    expect(fr(new Date(Date.UTC(2026, 8, 9, 13)))).toBe('13:00');
    expect(timeAxisFormat('en')(new Date(Date.UTC(2026, 7, 27)))).toBe('Thu 27 Aug');
    expect(timeAxisFormat('en')(new Date(Date.UTC(2026, 8, 1)))).toBe('September');
    expect(fr(new Date(Date.UTC(2026, 8, 9, 13, 22)))).toBe('13:22');
    expect(fr(new Date(Date.UTC(2026, 8, 9, 13, 22, 5)))).toBe(':05');
    expect(fr(new Date(Date.UTC(2026, 8, 9, 13, 22, 5, 40)))).toBe('.040');
    expect(fr(new Date(Date.UTC(2027, 0, 1)))).toBe('2027');
    expect(fr(new Date(Date.UTC(2026, 8, 9)))).toBe('mer. 9 sept.');
  });
});
