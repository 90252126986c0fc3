/**
 * Where the handoff picture's parts sit, in CSS pixels of the width it is drawn at (so a 13 px label
 * renders at 13 px): the flow (client, router, prefill, the RDMA link, decode, with each node's pool
 * as a small context map), the microscope's rows, the response. Pure.
 */
import { grid, type PoolGeometry, type Rect } from './stageLayout.ts';

export interface FlowLayout {
  width: number;
  narrow: boolean;
  font: number;
  small: number;
  lane: number;
  client: Rect;
  router: Rect;
  prefill: Rect;
  decode: Rect;
  /** The RDMA link and the control channel, prefill → decode. */
  link: [number, number, number];
  control: [number, number, number];
  /** Wires between the boxes (x1, y1, x2, y2). */
  wires: [number, number, number, number][];
  /** The status's way back, decode → client, at this y. */
  statusY: number;
  /**
   * Two rows of labels under the boxes (y of each baseline): what a step says about a node goes
   * there, never across a box's edge or over another box's text.
   */
  labelRows: [number, number];
  /** Where the tokenizer's running count is written: under the router, or inside it on a phone. */
  countAt: [number, number];
  height: number;
}

export function flowLayout(width: number): FlowLayout {
  const W = Math.max(320, width);
  const narrow = W < 620;
  const font = narrow ? 12 : 13;
  const small = 12;
  if (narrow) {
    // Two rows on a phone: client and router above, prefill and decode below, the link between them.
    const top = 50;
    // The router's three lines (tokenizer, scheduler, the count) fit inside it: below it run the wires.
    const h1 = 100;
    const client = { x: 0, y: top, w: W * 0.42, h: h1 };
    const router = { x: W * 0.5, y: top, w: W * 0.5, h: h1 };
    const y2 = top + h1 + 26;
    const prefill = { x: 0, y: y2, w: W * 0.4, h: 92 };
    const decode = { x: W * 0.58, y: y2, w: W * 0.42, h: 92 };
    return {
      width: W,
      narrow,
      font,
      small,
      lane: 24,
      client,
      router,
      prefill,
      decode,
      link: [prefill.x + prefill.w, decode.x, y2 + 30],
      control: [prefill.x + prefill.w, decode.x, y2 + 70],
      wires: [
        [client.x + client.w, top + 30, router.x, top + 30],
        [router.x + router.w / 2, top + h1, router.x + router.w / 2, y2 - 10],
        [router.x + router.w / 2, y2 - 10, prefill.x + prefill.w / 2, y2 - 10],
        [prefill.x + prefill.w / 2, y2 - 10, prefill.x + prefill.w / 2, y2],
      ],
      statusY: y2 + 92 + 16,
      labelRows: [y2 + 92 + 16, y2 + 92 + 32],
      countAt: [router.x + 8, router.y + 88],
      height: y2 + 92 + 46,
    };
  }
  const top = 50;
  const h = 88;
  const client = { x: 0, y: top, w: W * 0.12, h };
  const router = { x: W * 0.15, y: top, w: W * 0.16, h };
  const prefill = { x: W * 0.35, y: top, w: W * 0.21, h };
  const decode = { x: W * 0.66, y: top, w: W * 0.34, h };
  const lx0 = prefill.x + prefill.w;
  const lx1 = decode.x;
  return {
    width: W,
    narrow,
    font,
    small,
    lane: 24,
    client,
    router,
    prefill,
    decode,
    link: [lx0, lx1, top + 30],
    control: [lx0, lx1, top + h - 22],
    wires: [
      [client.x + client.w, top + 30, router.x, top + 30],
      [router.x + router.w, top + 30, prefill.x, top + 30],
    ],
    statusY: top + h + 16,
    labelRows: [top + h + 16, top + h + 32],
    countAt: [router.x + 8, top + h + 16],
    height: top + h + 46,
  };
}

/** The context map of a node's pool inside its box (below its title lines). */
export function contextPool(node: { name: string; kind: 'prefill' | 'decode'; pageCount: number }, box: Rect): PoolGeometry {
  const rect = { x: Math.round(box.x + 6), y: Math.round(box.y + 42), w: Math.round(box.w - 12), h: Math.round(box.h - 48) };
  return grid(node, box, rect);
}

export interface MicroLayout {
  top: number;
  labelW: number;
  chipW: number;
  wordsX: number;
  wordsW: number;
  pageRowH: number;
  bandRowH: number;
  /** y of each row's top, and the microscope's bottom. */
  rowY: number[];
  bottom: number;
}

export function microLayout(width: number, top: number, kinds: readonly ('page' | 'band')[]): MicroLayout {
  const narrow = width < 620;
  const labelW = narrow ? 94 : 124;
  const chipW = narrow ? 70 : 92;
  const wordsX = labelW + chipW + 8;
  const pageRowH = narrow ? 56 : 50;
  const bandRowH = 32;
  const rowY: number[] = [];
  let y = top + 44;
  for (const k of kinds) {
    rowY.push(y);
    y += k === 'page' ? pageRowH : bandRowH;
  }
  return { top, labelW, chipW, wordsX, wordsW: Math.max(80, width - wordsX - 4), pageRowH, bandRowH, rowY, bottom: y + 6 };
}

/** Approximate width of a word at 13 px (Inter's average advance), for laying out chips. */
export function wordWidth(word: string, font = 13): number {
  return word.length * font * 0.56 + 2;
}

/** Width of a text in the monospaced face the microscope's words use (0.6 em a character). */
export function monoWidth(text: string, font = 13): number {
  return text.length * font * 0.6;
}

export interface ChipPlace {
  x: number;
  y: number;
  w: number;
}

/** Response chips wrapped in `width` from `top`; returns each chip's place and the bottom. */
export function chipLayout(words: readonly string[], width: number, top: number): { chips: ChipPlace[]; bottom: number } {
  const chips: ChipPlace[] = [];
  let x = 0;
  let y = top + 42;
  for (const word of words) {
    const w = Math.min(180, wordWidth(word) + 14);
    if (x + w > width && x > 0) {
      x = 0;
      y += 26;
    }
    chips.push({ x, y, w });
    x += w + 4;
  }
  return { chips, bottom: y + 30 };
}
