/**
 * What a response token's hover says of its source, in the page's language: pure functions of the
 * run and the token's source, so a Node test holds the words to `momentOf`
 * (`views/transfer/momentViews.test.ts`) and the page shows the same.
 */
import type { ResponseRecord } from '../../../engine/index.ts';
import { formatNumber, formatUtc, type Lang } from '../../i18n/format.ts';
import type { Translate } from '../../i18n/messages.ts';
import type { TokenSource } from '../../moment/moment.ts';
import type { RunSummary } from '../../run/summary.ts';

/** Token i's source: as the moment names it, else (until the sources are there) the engine's provenance without its block. */
export function tokenSourceAt(sources: readonly TokenSource[] | null, provenance: ResponseRecord['provenance'], i: number): TokenSource | undefined {
  const s = sources?.[i];
  if (s) return s;
  const p = provenance[i];
  return p && { node: p.node, page: p.page, slot: p.slot, block: -1, writerRequest: p.writerRequest, writerTenant: p.writerTenant };
}

/** The source's sentence: where decode drew it from (node, block → page), then whose KV the slot held (null: zeros, nobody's). */
export function tokenSourceText(run: RunSummary, src: TokenSource, t: Translate, lang: Lang): { from: string; by: string | null } {
  const fmt = (n: number) => formatNumber(n, lang);
  const writer = src.writerRequest;
  return {
    from: src.block >= 0 ? t('tokenFromBlock', { node: src.node, block: fmt(src.block), page: fmt(src.page) }) : t('tokenFrom', { node: src.node, page: fmt(src.page) }),
    by: writer >= 0 ? t('tokenWrittenBy', { request: run.requests.ids[writer] ?? '?', tenant: src.writerTenant ?? '?', time: formatUtc(run.startEpochMs + run.requests.arrivedAt[writer]!, lang) }) : null,
  };
}
