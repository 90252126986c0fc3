/**
 * What the Transfer view says of the request's block table as of the moment, in the page's language:
 * a pure function of the moment's table, so a Node test holds the words to `momentOf`
 * (`momentViews.test.ts`) and the page shows the same.
 */
import { formatNumber, type Lang } from '../../i18n/format.ts';
import type { Translate } from '../../i18n/messages.ts';
import type { BlockTable } from '../../moment/moment.ts';
import { blockOwnersText } from '../shared/engineText.ts';

/** The line under the strip: reserved, written for it, stale, and every owner with its count. */
export function blockTableSummaryText(table: BlockTable, roster: readonly string[], t: Translate, lang: Lang): string {
  const fmt = (n: number) => formatNumber(n, lang);
  return t('stripSummary', { total: fmt(table.pages.length), written: fmt(table.written), stale: fmt(table.stale), byTenant: blockOwnersText(table, roster, t, lang) });
}
