/**
 * Draws one node's pages as a grid on a canvas, in one pass over an ImageData (never one element
 * per page). Each page is a `cell`×`cell` block. With a request selected, a page is coloured by what
 * it is to that request (relation.ts): its own page solid, the placeholder solid, a page it holds that
 * still carries another request's KV with the stale checkerboard, a reserved page never written with a
 * centre dot, every other page a grey by state. With none selected, by the writer's tenant. So state
 * reads without colour, and the tenant is named by the inspector and the hover card.
 *
 * Scrubbing repaints only the pages whose look changed since the last draw (each canvas keeps the
 * looks it last drew), and puts only the rows that changed: at incident scale most pages keep their
 * look between two nearby instants. When the canvas last drew the snapshot just before this one, it
 * visits only the pages the page model lists as changed (NodeSnapshot.changes), not every page. Selection, hover, the linked page and the placeholder's magnifier
 * live on an overlay canvas (pageOverlay.ts), so they never repaint the grid.
 */
import { PAGE_CLEARED, PAGE_LIVE, PAGE_STALE, PAGE_ZERO } from '../../../engine/kvPool.ts';
import type { NodeSnapshot } from '../../run/hooks.ts';
import { EXPORT_CLEARED, GRID_DOT, NEUTRAL_GREY, rgbCss, tenantRgb } from '../../ui/palette.ts';
import { REL_FOREIGN, REL_OWN, REL_PLACEHOLDER, REL_RESERVED, RELATION_RGB, otherGrey, type Focus } from './relation.ts';
export interface GridLayout {
  cell: number;
  cols: number;
  rows: number;
  width: number;
  height: number;
}
export function gridLayout(pageCount: number, maxWidth: number): GridLayout {
  const cell = maxWidth >= 700 ? 3 : 2;
  const cols = Math.max(16, Math.floor(maxWidth / cell));
  const rows = Math.ceil(pageCount / cols);
  return { cell, cols, rows, width: cols * cell, height: rows * cell };
}

export interface GridStyle {
  background: [number, number, number];
  dark: boolean;
  /** The request the pages are classified against, or null: coloured by the writer's tenant. */
  focus: Focus | null;
}

const rgba = (r: number, g: number, b: number, a = 255) => ((a << 24) | (b << 16) | (g << 8) | r) >>> 0;

// A page's look: its colour (24 bits) and its pattern (the top byte). Two pages look alike exactly
// when their looks are equal, so a changed look is a page to repaint.
const SOLID = 0;
const CHECKER = 1;
const DOTTED = 2;
const EMPTY = 3;
const look = (pattern: number, [r, g, b]: [number, number, number]) => ((pattern << 24) | (b << 16) | (g << 8) | r) >>> 0;

/** Full redraw on every frame (the way the grids were drawn before): the benchmark's baseline. */
let alwaysFull = false;
export function setGridRedraw(mode: 'dirty' | 'full'): void {
  alwaysFull = mode === 'full';
}

interface CanvasMemory {
  image: ImageData;
  /** The look of each page as last drawn. */
  looks: Uint32Array;
  /** What the looks depend on besides the page arrays. */
  key: string;
  /** The snapshot last drawn (NodeSnapshot.changes.seq), −1 if unknown, and its placeholder page. */
  seq: number;
  placeholderPage: number;
}

// One ImageData per canvas, reused while its size holds: a fresh 700 KB buffer per node per frame is
// garbage the collector then stalls a frame to clear.
const memory = new WeakMap<CanvasRenderingContext2D, CanvasMemory>();

export interface DrawReport {
  /** Pages repainted. */
  repainted: number;
  /** The placeholder page of the focused request on this node, or −1. */
  placeholderPage: number;
  full: boolean;
}

/**
 * The look of every page as a function of its arrays, with the few looks a style can produce made
 * once per draw: the loop over tens of thousands of pages then allocates nothing.
 */
function lookOf(style: GridStyle): (node: NodeSnapshot, p: number) => number {
  const byState = [
    look(EMPTY, style.background),
    look(SOLID, style.focus ? otherGrey(PAGE_LIVE, style.dark) : NEUTRAL_GREY),
    look(CHECKER, otherGrey(PAGE_STALE, style.dark)),
    look(DOTTED, otherGrey(PAGE_CLEARED, style.dark)),
  ];
  const focus = style.focus;
  if (focus) {
    const own = look(SOLID, RELATION_RGB[focus.placeholder ? REL_PLACEHOLDER : REL_OWN]);
    const foreign = look(CHECKER, RELATION_RGB[REL_FOREIGN]);
    const reserved = look(DOTTED, RELATION_RGB[REL_RESERVED]);
    return (node, p) => {
      if (node.owner[p] !== focus.req) return byState[node.state[p]!]!;
      const writer = node.writtenFor[p]!;
      return writer === focus.req ? own : writer >= 0 ? foreign : reserved;
    };
  }
  const reservedGrey = look(DOTTED, NEUTRAL_GREY);
  const tenantLooks: number[] = [];
  return (node, p) => {
    const state = node.state[p]!;
    if (state === PAGE_ZERO || state === PAGE_CLEARED) return byState[state]!;
    const tenant = node.writerTenant[p]!;
    // Live but never written (reserved): grey with a dot.
    if (tenant < 0) return state === PAGE_LIVE ? reservedGrey : byState[PAGE_LIVE]!;
    const k = tenant * 2 + (state === PAGE_STALE ? 1 : 0);
    return (tenantLooks[k] ??= look(state === PAGE_STALE ? CHECKER : SOLID, tenantRgb(tenant)));
  };
}

export function drawPageGrid(ctx: CanvasRenderingContext2D, node: NodeSnapshot, layout: GridLayout, style: GridStyle): DrawReport {
  const { cell, cols, width, height } = layout;
  const key = `${width}x${height}:${cell}:${style.background.join(',')}:${style.dark}:${style.focus ? `${style.focus.req}/${style.focus.placeholder}` : '-'}`;
  let mem = memory.get(ctx);
  const full = alwaysFull || !mem || mem.key !== key || mem.looks.length !== node.pageCount;
  if (!mem || mem.image.width !== width || mem.image.height !== height) {
    mem = { image: ctx.createImageData(width, height), looks: new Uint32Array(node.pageCount), key, seq: -1, placeholderPage: -1 };
    memory.set(ctx, mem);
  }
  if (mem.looks.length !== node.pageCount) mem.looks = new Uint32Array(node.pageCount);
  mem.key = key;
  const px = new Uint32Array(mem.image.data.buffer);
  const [br, bg, bb] = style.background;
  const background = rgba(br, bg, bb);
  const dot = rgba(...GRID_DOT[style.dark ? 'dark' : 'light']);
  if (full) px.fill(background);
  const looks = mem.looks;
  // Per grid row, the span of columns repainted (for the sub-rectangle puts).
  const rows = layout.rows;
  const spanFrom = new Int32Array(rows).fill(cols);
  const spanTo = new Int32Array(rows).fill(-1);
  let repainted = 0;
  const pageLook = lookOf(style);
  const placeholderLook = style.focus?.placeholder ? look(SOLID, RELATION_RGB[REL_PLACEHOLDER]) : -1;
  const isPlaceholder = (p: number, l: number) => l === placeholderLook && node.owner[p] === style.focus!.req;
  // Which pages to visit: none when this very snapshot was drawn last, the seeker's change list when
  // the previous one was, else every page (compared with the looks last drawn).
  const changes = node.changes;
  const same = !full && changes !== undefined && mem.seq === changes.seq;
  const list = !full && changes && mem.seq === changes.since ? changes.pages : null;
  const visits = same ? 0 : list ? list.length : node.pageCount;
  // The placeholder page is the lowest page with its look; a partial visit keeps the one last found.
  let placeholderPage = list || same ? mem.placeholderPage : -1;
  let lostPlaceholder = false;
  for (let k = 0; k < visits; k++) {
    const p = list ? list[k]! : k;
    const l = pageLook(node, p);
    if (isPlaceholder(p, l)) {
      if (placeholderPage < 0 || p < placeholderPage) placeholderPage = p;
    } else if (p === placeholderPage) lostPlaceholder = true;
    if (!full && looks[p] === l) continue;
    looks[p] = l;
    repainted++;
    const col = p % cols;
    const row = (p - col) / cols;
    if (col < spanFrom[row]!) spanFrom[row] = col;
    if (col > spanTo[row]!) spanTo[row] = col;
    const pattern = l >>> 24;
    const colour = ((l & 0xffffff) | 0xff000000) >>> 0;
    const x0 = col * cell;
    const y0 = row * cell;
    for (let y = 0; y < cell; y++) {
      const at = (y0 + y) * width + x0;
      if (pattern === EMPTY) px.fill(background, at, at + cell);
      else if (pattern === CHECKER) for (let x = 0; x < cell; x++) px[at + x] = ((x + y) & 1) === 1 ? background : colour;
      else px.fill(colour, at, at + cell);
    }
    if (pattern === DOTTED) px[(y0 + (cell >> 1)) * width + x0 + (cell >> 1)] = dot;
  }
  if (lostPlaceholder) {
    placeholderPage = -1;
    for (let p = 0; p < node.pageCount; p++)
      if (isPlaceholder(p, looks[p]!)) {
        placeholderPage = p;
        break;
      }
  }
  mem.seq = changes?.seq ?? -1;
  mem.placeholderPage = placeholderPage;
  if (full) ctx.putImageData(mem.image, 0, 0);
  else if (repainted > 0) {
    // Adjacent changed rows share one put: a put has a fixed cost, and a band of rows is one copy.
    let r = 0;
    while (r < rows) {
      if (spanTo[r]! < 0) {
        r++;
        continue;
      }
      let from = spanFrom[r]!;
      let to = spanTo[r]!;
      let end = r + 1;
      while (end < rows && spanTo[end]! >= 0) {
        from = Math.min(from, spanFrom[end]!);
        to = Math.max(to, spanTo[end]!);
        end++;
      }
      ctx.putImageData(mem.image, 0, 0, from * cell, r * cell, (to - from + 1) * cell, (end - r) * cell);
      r = end;
    }
  }
  return { repainted, placeholderPage, full };
}

export function pageAt(layout: GridLayout, pageCount: number, x: number, y: number): number | null {
  const col = Math.floor(x / layout.cell);
  const row = Math.floor(y / layout.cell);
  if (col < 0 || col >= layout.cols || row < 0) return null;
  const page = row * layout.cols + col;
  return page < pageCount ? page : null;
}

/** Run-length SVG of the grid (one rect per run of equal pages in a row), for export. */
export function pageGridSvg(node: NodeSnapshot, layout: GridLayout, label: string): string {
  const { cell, cols } = layout;
  const parts: string[] = [];
  const fill = (p: number) => {
    const s = node.state[p]!;
    if (s === PAGE_ZERO) return null;
    if (s === PAGE_CLEARED) return 'cleared';
    const [r, g, b] = tenantRgb(node.writerTenant[p]!);
    return `${s === PAGE_STALE ? 'stale' : 'live'}:${rgbCss([r, g, b])}`;
  };
  for (let row = 0; row * cols < node.pageCount; row++) {
    let start = row * cols;
    const end = Math.min(node.pageCount, start + cols);
    while (start < end) {
      const f = fill(start);
      let stop = start + 1;
      while (stop < end && fill(stop) === f) stop++;
      if (f) {
        const [kind, colour] = f.split(':') as [string, string | undefined];
        const x = (start - row * cols) * cell;
        const attrs = kind === 'cleared' ? `fill="${EXPORT_CLEARED}"` : kind === 'stale' ? `fill="${colour}" fill-opacity="0.5"` : `fill="${colour}"`;
        parts.push(`<rect x="${x}" y="${row * cell}" width="${(stop - start) * cell}" height="${cell}" ${attrs}/>`);
      }
      start = stop;
    }
  }
  return `<g aria-label="${label}">${parts.join('')}</g>`;
}
