/**
 * The microscope's rows: the selected request's decode block table at slot level for a few pages
 * (its first pages, and the pages its output tokens drew on most), the thousands of others as
 * compressed bands with counts by writer. A pure function of the engine's slot sample
 * (`ResponseRecord.slots`), the stage frame and the pages' writers at the instant shown, so every
 * way of reaching a moment gives the same rows.
 *
 * What a row says comes from memory as the engine holds it: each slot's word (its V token) and the
 * request that wrote it. Page 0's slots 1…P−1 after a placeholder transfer are marked inferred: the
 * engine copies the prefill page whole, as the mechanics note infers SGLang does.
 */
import type { SlotSample } from '../../../engine/index.ts';
import { formatNumber, type Lang } from '../../i18n/format.ts';
import type { Translate } from '../../i18n/messages.ts';
import type { StageFrame } from '../../moment/moment.ts';

export type RowState =
  /** Not in the block table yet: a free page, still holding what its last writer left. */
  | 'free'
  /** Reserved for the request, still holding an earlier request's words (stale). */
  | 'stale'
  /** Reserved and cleared or never written: zeros. */
  | 'zero'
  /** Written for this request in this handoff. */
  | 'own'
  /** After the free: back in the free list, words still there. */
  | 'freed'
  /** After the free: held by a later request. */
  | 'claimed';

export interface MicroPageRow {
  kind: 'page';
  /** Position in the block table and the pool's page id. */
  position: number;
  page: number;
  /** Index in the slot sample. */
  sample: number;
  state: RowState;
  /** Per slot: the word's token and the writer request (−1: zeros) as shown now. */
  tokens: ArrayLike<number>;
  writers: ArrayLike<number>;
  /** The writer request most of the page's slots hold (−1: zeros). */
  writer: number;
  /** The transfer just wrote this page (0…1 of the flip), or 1 once written, 0 before. */
  written: number;
  /** This row is page 0 after a one-token transfer: slot 0 the placeholder, the rest copied with it. */
  placeholderPage: boolean;
  /** Decode's scan has passed over this row. */
  scanned: boolean;
  /** The reservation's sweep has reached this row (0…1 of its share). */
  lit: number;
  /** A later request holding the page after the free, or −1. */
  claimedBy: number;
}

export interface MicroBandRow {
  kind: 'band';
  /** Block-table positions [from, to) the band stands for. */
  from: number;
  to: number;
  /** Pages of the band the sweep has reached so far (the count rolls during the reservation). */
  litPages: number;
  scanned: boolean;
}

export type MicroRow = MicroPageRow | MicroBandRow;

/**
 * The writer most of one page's written slots hold (−1: none written). Prefill writes whole pages, but a
 * decode step writes one slot: a page the answer is being written into holds a few of the request's
 * words and zeros after them, and is the request's own, not "zeros".
 */
function mainWriter(writers: ArrayLike<number>, from: number, to: number): number {
  const counts = new Map<number, number>();
  let best = -1;
  let bestN = 0;
  for (let i = from; i < to; i++) {
    const w = writers[i]!;
    if (w < 0) continue;
    const n = (counts.get(w) ?? 0) + 1;
    counts.set(w, n);
    if (n > bestN) {
      bestN = n;
      best = w;
    }
  }
  return best;
}

export interface MicroscopeInput {
  sample: SlotSample;
  frame: StageFrame;
  /** The request whose block table it is. */
  req: number;
  /** Pages in its block table. */
  tableLength: number;
  /** How many of the first sampled pages to show (the rest of the sample: pages output tokens drew on). */
  firstPages: number;
  /** The page's holder at the instant shown (−1: free), for the reuse. */
  ownerOf: (page: number) => number;
  /** At most this many of the pages output tokens drew on: those most drawn on, shown in block-table order. */
  drewOnRows?: number;
  /** How many output tokens drew on a page most (ranks the pages when there are more than drewOnRows). */
  drawsOf?: (page: number) => number;
  /** A page shown whatever its rank (the page a hovered or focused response token drew on), when sampled. */
  mustShow?: number | null;
}

/** Which rows the microscope has: the sampled pages shown and the bands between them, in block-table order. */
export type MicroPlanItem = { kind: 'page'; k: number } | { kind: 'band'; from: number; to: number };

/**
 * The rows' plan: which sampled pages are shown and which bands lie between them. It depends on the
 * sample, the table and the choice of pages only (not on the frame), so a view computes it once per
 * request and layout, and only `microscopeRowsAt` on each frame.
 */
export function microscopePlan({ sample, tableLength, firstPages, drewOnRows = Infinity, drawsOf = () => 0, mustShow = null }: Omit<MicroscopeInput, 'frame' | 'req' | 'ownerOf'>): MicroPlanItem[] {
  const shownFirst = Math.min(firstPages, sample.before.count);
  const shown: number[] = [];
  for (let k = 0; k < shownFirst; k++) shown.push(k);
  const extra: number[] = [];
  for (let k = sample.before.count; k < sample.positions.length; k++) extra.push(k);
  // Most drawn on first (ties: earlier in the table), then back in block-table order.
  const rank = (k: number) => (sample.pages[k] === mustShow ? Infinity : drawsOf(sample.pages[k]!));
  extra.sort((a, b) => rank(b) - rank(a) || a - b);
  shown.push(...extra.slice(0, drewOnRows).sort((a, b) => a - b));
  // Rows and bands in block-table order.
  const layout: MicroPlanItem[] = [];
  let next = 0;
  for (const k of shown) {
    const pos = sample.positions[k]!;
    if (pos > next) layout.push({ kind: 'band', from: next, to: pos });
    layout.push({ kind: 'page', k });
    next = pos + 1;
  }
  if (next < tableLength) layout.push({ kind: 'band', from: next, to: tableLength });
  return layout;
}

/** The stage picture's microscope: the block table's first pages shown slot by slot. */
export const FIRST_PAGES = 2;
/** Pages the response drew on, shown slot by slot (the sample holds more). */
export const DREW_ON_ROWS = 3;

/** How many of the answer's tokens drew on each page (the drew-on rows are the pages drawn on most). */
export function drawsByPage(provenance: readonly { page: number }[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const p of provenance) m.set(p.page, (m.get(p.page) ?? 0) + 1);
  return m;
}

/**
 * The rows the stage's picture plans: its first pages and the pages drawn on most; with `mustShow`
 * (a linked token's page, sampled) page 0 and that page; on the screen layout one drew-on row.
 */
export function picturePlan({ sample, tableLength, draws, mustShow, screen }: { sample: SlotSample; tableLength: number; draws: ReadonlyMap<number, number>; mustShow: number | null; screen: boolean }): MicroPlanItem[] {
  const linked = mustShow !== null;
  return microscopePlan({ sample, tableLength, firstPages: linked ? 1 : FIRST_PAGES, drewOnRows: screen || linked ? 1 : DREW_ON_ROWS, drawsOf: (p) => draws.get(p) ?? 0, mustShow });
}

/** A page row's label, as the picture draws it and its list says it: its block, then the pool's page id. */
export function microPageLabel(row: Pick<MicroPageRow, 'position' | 'page'>, t: Translate, lang: Lang): { block: string; page: string } {
  return { block: t('hpPageN', { n: formatNumber(row.position, lang) }), page: t('pageId', { page: formatNumber(row.page, lang) }) };
}

/** The rows in block-table order, each a function of the frame. */
export function microscopeRows(input: MicroscopeInput): MicroRow[] {
  return microscopeRowsAt(microscopePlan(input), input);
}

/** The rows of a plan at one frame (what the handoff time changes: states, the sweep, the scan, the writes). */
export function microscopeRowsAt(layout: readonly MicroPlanItem[], { sample, frame, req, ownerOf }: Pick<MicroscopeInput, 'sample' | 'frame' | 'req' | 'ownerOf'>): MicroRow[] {
  const P = sample.pageSize;
  const reserving = frame.step === 'reserve';
  const reservedDone = frame.reserved.length > 0 && !reserving;
  // The sweep shares the reservation's progress equally among the rows, in block-table order.
  const sweep = reserving ? frame.progress * layout.length : reservedDone ? layout.length : 0;
  const scanning = frame.step === 'scan';
  const scanRows = scanning ? frame.progress * layout.length : frame.scanned > 0 || frame.tokensShown > 0 ? layout.length : 0;
  const onePage = frame.computedTokens === 1 && frame.promptTokens > 1;
  const pagesWrittenNow = frame.pagesWritten;
  const inTransfer = frame.step === 'transfer';
  return layout.map((item, row): MicroRow => {
    const lit = Math.max(0, Math.min(1, sweep - row));
    const scanned = scanRows > row;
    if (item.kind === 'band') return { kind: 'band', from: item.from, to: item.to, litPages: Math.round((item.to - item.from) * lit), scanned };
    const k = item.k;
    const pos = sample.positions[k]!;
    const page = sample.pages[k]!;
    const hasBefore = k < sample.before.count;
    // Written by the transfer: the pages it wrote are the table's first `pagesWritten` (placeholder: page 0 only).
    let written = 0;
    if (pos < pagesWrittenNow) written = inTransfer ? Math.max(0, Math.min(1, frame.progress * Math.max(1, Math.min(pagesWrittenNow, 8)) - Math.min(pos, 7))) : 1;
    const showAfter = written >= 0.5 || !hasBefore;
    const src = showAfter ? { tokens: sample.tokens, writers: sample.writers } : { tokens: sample.before.tokens, writers: sample.before.writers };
    const tokens = src.tokens.subarray(k * P, (k + 1) * P);
    const writers = src.writers.subarray(k * P, (k + 1) * P);
    const writer = mainWriter(writers, 0, P);
    let state: RowState;
    const holder = frame.freed ? ownerOf(page) : -1;
    // The free sweeps down the table: rows it has passed are back in the free list.
    const freedHere = frame.freed && (frame.step !== 'free' || frame.progress * layout.length > row);
    if (freedHere) state = holder >= 0 && holder !== req ? 'claimed' : 'freed';
    else if (frame.freed) state = writer === req ? 'own' : writer < 0 ? 'zero' : 'stale';
    else if (lit <= 0 && !reservedDone) state = 'free';
    else if (written >= 0.5 && writer === req) state = 'own';
    else if (written >= 0.5 && pos === 0 && onePage) state = 'own';
    else state = writer < 0 ? 'zero' : 'stale';
    return {
      kind: 'page',
      position: pos,
      page,
      sample: k,
      state,
      tokens,
      writers,
      writer,
      written,
      placeholderPage: pos === 0 && onePage && written >= 0.5,
      scanned,
      lit,
      claimedBy: state === 'claimed' ? holder : -1,
    };
  });
}

/**
 * The slot of a sampled page a token drew on (its index in the page), or null when the page is not
 * sampled. A provenance slot counts positions in the request's context (block-table order), so its
 * place in the page is that position modulo the page size.
 */
export function sampledSlot(sample: SlotSample, page: number, slot: number): { k: number; slot: number } | null {
  const k = sample.pages.indexOf(page);
  if (k < 0) return null;
  return { k, slot: slot % sample.pageSize };
}
