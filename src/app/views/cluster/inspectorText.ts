/**
 * What the grids' inspector says of the selected page, in the page's language: pure functions of the
 * run, the pools at the moment and the selected request's block table, so a Node test holds the
 * words to `momentOf` (`views/transfer/momentViews.test.ts`) and the page shows the same.
 */
import { formatNumber, formatUtc, type Lang } from '../../i18n/format.ts';
import type { Translate } from '../../i18n/messages.ts';
import { blockPagesOf } from '../../moment/moment.ts';
import type { NodeSnapshot, RequestDetail, RunSummary } from '../../run/summary.ts';

/** The selected page's block in the selected request's block table (block i → page #p), or −1 where it is not in it. */
export function inspectedBlock(run: RunSummary, sel: { node: string; page: number }, selectedRequest: number | null, detail: RequestDetail | undefined): number {
  return selectedRequest !== null && detail && detail.response.request === selectedRequest && sel.node === `decode-${run.requests.decodeNode[selectedRequest]}` ? blockPagesOf(detail.events).indexOf(sel.page) : -1;
}

/** The inspector's words: its heading's page, the block it is of the request's table, who last wrote it. */
export interface InspectorText {
  /** "page #p". */
  page: string;
  /** "block i of q1's block table", or null where the page is not in the request's table. */
  block: string | null;
  /** Its last writer (tenant, request, when), or that it was never written. */
  writer: string;
}

export function inspectorText(run: RunSummary, node: NodeSnapshot, page: number, block: number, focusReq: number | null, t: Translate, lang: Lang): InspectorText {
  const writer = node.writtenFor[page]!;
  const writerTenant = node.writerTenant[page]!;
  return {
    page: t('pageId', { page: formatNumber(page, lang) }),
    block: block >= 0 && focusReq !== null ? t('inspectorBlock', { block: formatNumber(block, lang), request: run.requests.ids[focusReq] ?? '?' }) : null,
    writer: writer >= 0 ? t('writerLine', { tenant: run.tenants[writerTenant] ?? '?', request: run.requests.ids[writer] ?? '?', time: formatUtc(run.startEpochMs + node.writeTime[page]!, lang) }) : t('neverWritten'),
  };
}
