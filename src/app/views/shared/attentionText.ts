/**
 * How one output token's attention reads on the page, under the trained transformer: its share per
 * writer tenant, each with the page of that tenant that carried the most ("62 % from borealis's
 * pages, most from page 4,113"), from the decoder's provenance (TokenAttention). Text, so that the
 * shares never depend on colour; the stage and the response view say it the same way.
 */
import type { TokenAttention } from '../../../engine/index.ts';
import { formatNumber, type Lang } from '../../i18n/format.ts';
import type { Translate } from '../../i18n/i18n.ts';

export interface AttentionPart {
  /** Writer tenant, null for zeroed memory. */
  tenant: string | null;
  share: number;
  /** The page of that tenant that carried the most (−1: none, e.g. the answer's own tokens). */
  page: number;
  own: boolean;
  text: string;
}

export function percent(share: number, lang: Lang): string {
  return formatNumber(share, lang, { style: 'percent', maximumFractionDigits: 0 });
}

/** The token's shares, largest first, at most `limit` of them (the rest are summed into the last words). */
export function attentionParts(t: Translate, lang: Lang, a: TokenAttention, requester: string, limit = 3): { parts: AttentionPart[]; rest: number } {
  const parts: AttentionPart[] = [];
  let rest = 0;
  a.tenants.forEach(([tenant, share], k) => {
    if (k >= limit) {
      rest += share;
      return;
    }
    const page = a.tenantPages?.[k]?.[1] ?? -1;
    const own = tenant === requester;
    const vars = { share: percent(share, lang), tenant: tenant ?? '', page: formatNumber(page, lang) };
    const text =
      tenant === null ? t('attnZero', vars) : own ? t('attnOwn', vars) : page >= 0 ? t('attnForeign', vars) : t('attnForeignNoPage', vars);
    parts.push({ tenant, share, page, own, text });
  });
  return { parts, rest };
}

/** One line: "62 % from borealis's pages (most from page 4,113) · 30 % from its own KV (delta)". */
export function attentionLine(t: Translate, lang: Lang, a: TokenAttention, requester: string, limit = 3): string {
  if (a.pages.length === 0 && a.generated === 0 && a.tenants.length === 1 && a.tenants[0]![0] === requester) return t('attnPrefill');
  const { parts, rest } = attentionParts(t, lang, a, requester, limit);
  const texts = parts.map((p) => p.text);
  if (rest >= 0.005) texts.push(t('attnRest', { share: percent(rest, lang) }));
  return texts.join(' · ');
}
