/**
 * Numbers, dates and times in the page's language, through `Intl` (never a hand-made month list or a
 * fixed `en-US`). Every view that shows a number or an instant formats it here, so the French page
 * reads « 800 000 » (with the narrow no-break space French uses), « jeu. 27 août » and
 * « 0,123 s », and the English page "800,000", "Thu 27 Aug" and "0.123 s".
 *
 * Times are always UTC, as the report gives them; the helpers say so ("UTC") where a reader could
 * take them for local time. Formatters are cached per language and options.
 */
import type { Language as Lang } from '../../engine/switches.ts';

/** The page's language (declared once, in the registry of switches). */
export type { Lang };

/**
 * The BCP 47 locale each page language takes its names and separators from. Dates are assembled day
 * first in both ("27 Aug 2026", « 27 août 2026 »), as the report writes them; en-US gives the
 * three-letter months ("Sep", where en-GB now writes "Sept").
 */
export const LOCALES: Record<Lang, string> = { en: 'en-US', fr: 'fr-FR' };

const numberFormats = new Map<string, Intl.NumberFormat>();
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** The plain formatter of each language: most numbers take no options, and the stage formats hundreds a frame. */
const plainNumberFormats = new Map<Lang, Intl.NumberFormat>();

function numberFormat(lang: Lang, opts?: Intl.NumberFormatOptions): Intl.NumberFormat {
  if (opts === undefined) {
    let plain = plainNumberFormats.get(lang);
    if (!plain) plainNumberFormats.set(lang, (plain = new Intl.NumberFormat(LOCALES[lang])));
    return plain;
  }
  const key = `${lang}:${JSON.stringify(opts)}`;
  let f = numberFormats.get(key);
  if (!f) numberFormats.set(key, (f = new Intl.NumberFormat(LOCALES[lang], opts)));
  return f;
}

function dateFormat(lang: Lang, opts: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${lang}:${JSON.stringify(opts)}`;
  let f = dateFormats.get(key);
  if (!f) dateFormats.set(key, (f = new Intl.DateTimeFormat(LOCALES[lang], { timeZone: 'UTC', ...opts })));
  return f;
}

const pluralRules = new Map<Lang, Intl.PluralRules>();

/** Whether a count takes the singular in `lang`: 1 in English, 0 and 1 in French (« 0 page réservée »). */
export function isSingular(n: number, lang: Lang): boolean {
  let rules = pluralRules.get(lang);
  if (!rules) pluralRules.set(lang, (rules = new Intl.PluralRules(LOCALES[lang])));
  return rules.select(n) === 'one';
}

/**
 * A number in the page's language: `formatNumber(1048576, 'fr')` is « 1 048 576 » (narrow no-break
 * spaces), `formatNumber(0.5, 'fr', { minimumFractionDigits: 3 })` is « 0,500 ». Options are
 * `Intl.NumberFormat`'s.
 */
export function formatNumber(n: number, lang: Lang, opts?: Intl.NumberFormatOptions): string {
  if (!Number.isFinite(n)) return '—';
  return numberFormat(lang, opts).format(n);
}

/** A count with a fixed number of decimals: `formatFixed(12.34, 'fr', 1)` is « 12,3 ». */
export function formatFixed(n: number, lang: Lang, digits: number): string {
  return formatNumber(n, lang, { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** Scientific notation: `formatScientific(1.234e-7, 'fr', 2)` is « 1,23E-7 ». */
export function formatScientific(n: number, lang: Lang, digits = 2): string {
  return formatNumber(n, lang, { notation: 'scientific', minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A duration in milliseconds, one decimal under 10 ms, the unit held to its number: « 8,4 ms », "123 ms". */
export function formatMs(ms: number, lang: Lang): string {
  if (!Number.isFinite(ms)) return '—';
  return `${formatFixed(ms, lang, ms < 10 ? 1 : 0)}\u00a0ms`;
}

/** Seconds with three decimals and a sign, for offsets within one request's handoff: "+0.125 s", « +0,125 s ». */
export function formatOffsetSeconds(ms: number, lang: Lang): string {
  return `${ms < 0 ? '−' : '+'}${formatFixed(Math.abs(ms) / 1000, lang, 3)}\u00a0s`;
}

export interface UtcOptions {
  /** Show the seconds (default true). */
  seconds?: boolean;
  /** Show the date (default true); false gives the time of day alone. */
  date?: boolean;
  /** Show the year with the date (default true). */
  year?: boolean;
  /** Show the weekday with the date (default false). */
  weekday?: boolean;
  /** Append " UTC" (default true). */
  utc?: boolean;
}

function part(parts: Intl.DateTimeFormatPart[], type: Intl.DateTimeFormatPartTypes): string {
  return parts.find((p) => p.type === type)?.value ?? '';
}

/**
 * An instant in UTC, in the page's language: `formatUtc(ms, 'en')` is "27 Aug 2026 08:43:25 UTC",
 * `formatUtc(ms, 'fr')` « 27 août 2026 à 08:43:25 UTC »; with `{ seconds: false, year: false }`
 * "9 Sep 13:22 UTC" and, as French writes an hour and its minutes, « 9 sept. à 13 h 22 UTC ». The
 * day, month and weekday names come from `Intl`; the order is the same in both languages (day,
 * month, year, time), which is how both the report and British English write it. A clock to the
 * second keeps « 08:43:25 » in French too, as a clock reads, after « à » as French writes a day's time.
 */
export function formatUtc(epochMs: number, lang: Lang, opts: UtcOptions = {}): string {
  const { seconds = true, date = true, year = true, weekday = false, utc = true } = opts;
  const out: string[] = [];
  if (date) out.push(formatUtcDay(epochMs, lang, { year, weekday }));
  const parts = dateFormat(lang, { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).formatToParts(epochMs);
  // French puts « à » between a day and its time, to the minute or to the second alike.
  if (lang === 'fr' && date) out.push('à');
  if (lang === 'fr' && !seconds) {
    // No-break spaces: « 13 h 22 » never breaks across lines.
    out.push(`${Number(part(parts, 'hour'))}\u00a0h\u00a0${part(parts, 'minute')}`);
  } else out.push(`${part(parts, 'hour')}:${part(parts, 'minute')}${seconds ? `:${part(parts, 'second')}` : ''}`);
  if (utc) out.push('UTC');
  return out.join(' ');
}

/**
 * A UTC day: `formatUtcDay(ms, 'fr', { weekday: true })` is « jeu. 27 août 2026 »; `{ year: false }`
 * drops the year. Accepts epoch ms or an ISO date (`2026-09-09`).
 */
export function formatUtcDay(day: number | string, lang: Lang, opts: { year?: boolean; weekday?: boolean; month?: 'short' | 'long' } = {}): string {
  const ms = typeof day === 'number' ? day : Date.parse(day.length === 10 ? `${day}T00:00:00Z` : day);
  const { year = true, weekday = false, month = 'short' } = opts;
  const parts = dateFormat(lang, { weekday: 'short', day: 'numeric', month, year: 'numeric' }).formatToParts(ms);
  return [weekday ? part(parts, 'weekday') : '', part(parts, 'day'), part(parts, 'month'), year ? part(parts, 'year') : ''].filter(Boolean).join(' ');
}

/**
 * A range of whole UTC days, for facts the report dates to the day only: « 8 sept. 2026 » for one
 * day, "27 Aug – 9 Sep 2026" for several; `{ prose: true }` gives French running text its words,
 * « du 27 août au 9 septembre 2026 » (a label keeps the dash).
 */
export function formatUtcDayRange(fromIso: string, toIso: string, lang: Lang, opts: { prose?: boolean } = {}): string {
  if (fromIso === toIso) return formatUtcDay(fromIso, lang);
  // In a French sentence: « du 27 août au 9 septembre 2026 », months in full.
  if (opts.prose && lang === 'fr') return `du ${formatUtcDay(fromIso, lang, { year: fromIso.slice(0, 4) !== toIso.slice(0, 4), month: 'long' })} au ${formatUtcDay(toIso, lang, { month: 'long' })}`;
  return `${formatUtcDay(fromIso, lang, { year: fromIso.slice(0, 4) !== toIso.slice(0, 4) })} – ${formatUtcDay(toIso, lang)}`;
}

/**
 * The tick format of a UTC time axis in the page's language: d3's multi-scale rule (seconds, minutes,
 * hours, days, months, years), with a 24-hour clock and the day before the month: "Thu 27 Aug",
 * « jeu. 27 août », "13:00", « septembre ». Pass it to `axis.tickFormat`.
 */
export function timeAxisFormat(lang: Lang): (date: Date) => string {
  // Intl, not d3-time-format: the names are Intl's either way, and the page need not load a
  // second formatting library for its axis.
  const two = (n: number, width = 2) => String(n).padStart(width, '0');
  const ms = (d: Date) => `.${two(d.getUTCMilliseconds(), 3)}`;
  const sec = (d: Date) => `:${two(d.getUTCSeconds())}`;
  const hm = (d: Date) => `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`;
  const day = (d: Date) => formatUtcDay(+d, lang, { weekday: true, year: false });
  const monthName = dateFormat(lang, { month: 'long' });
  const month = (d: Date) => monthName.format(d);
  const year = (d: Date) => String(d.getUTCFullYear());
  // The finest UTC boundary the instant is not on picks the format (d3's rule, without d3-time).
  return (date) =>
    (date.getUTCMilliseconds() ? ms : date.getUTCSeconds() ? sec : date.getUTCMinutes() || date.getUTCHours() ? hm : date.getUTCDate() !== 1 ? day : date.getUTCMonth() ? month : year)(date);
}
