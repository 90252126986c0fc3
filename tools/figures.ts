/**
 * The figures a text gives, canonical, as the report and the page write them in either language:
 * times as "13:22" (« 13 h 22 » in French), numbers without their thousands separators and with a
 * decimal point. Fact and assumption ids (F9, A12) are citations, not figures. Shared by the test of
 * cited figures (src/app/views/shared/claims.test.ts) and the video's test (e2e/video-says.spec.ts).
 */

/**
 * By default the figures a citation can hold: numbers under 100, years, page numbers (#12) and
 * percentages are left out (days, minutes and small counts are written in words by the report, or are
 * everywhere). `all`: every figure, the small ones included (what a caption says and its picture must show).
 */
export function figuresIn(text: string, lang: 'en' | 'fr', { all = false }: { all?: boolean } = {}): string[] {
  const out: string[] = [];
  let rest = text.replace(/(\d{1,2})(?::|[\s\u00a0\u202f]?h[\s\u00a0\u202f]?)(\d{2})\b/g, (_, h: string, m: string) => {
    out.push(`${Number(h)}:${m}`);
    return ' ';
  });
  const number = lang === 'en' ? /\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?/g : /\d{1,3}(?:[\s\u00a0\u202f]\d{3})+(?:,\d+)?|\d+(?:,\d+)?/g;
  rest = rest.replace(all ? /\b[FABN]\d+\b/g : /\b[FABN]\d+\b|#\d+|\d+\s?%/g, ' ');
  for (const m of rest.matchAll(number)) {
    const s = lang === 'en' ? m[0].replaceAll(',', '') : m[0].replace(/[\s\u00a0\u202f]/g, '').replace(',', '.');
    const x = Number(s);
    if (!Number.isFinite(x) || (!all && Number.isInteger(x) && (x < 100 || (x >= 1900 && x <= 2100)))) continue;
    out.push(String(x));
  }
  return out;
}
