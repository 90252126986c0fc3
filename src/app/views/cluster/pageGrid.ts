/**
 * Draws one node's pages as a grid on a canvas, in one pass over an ImageData (never one element
 * per page). Each page is a `cell`×`cell` block: live = solid tenant colour; stale = tenant colour
 * on a checkerboard (hatched); cleared = pale with a dark centre dot; zero = background. So state
 * reads without colour, and tenant is named by the inspector.
 */
import { PAGE_CLEARED, PAGE_LIVE, PAGE_STALE, PAGE_ZERO } from '../../../engine/index.ts';
import type { NodeSnapshot } from '../../run/hooks.ts';
import { tenantRgb } from '../shared/palette.ts';

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
  /** Tenant to emphasise; the others are drawn faded. −2: none. */
  focusTenant: number;
  /** Pages of this request are emphasised (e.g. the selected request's block table). */
  focusRequest: number | null;
}

const rgba = (r: number, g: number, b: number, a = 255) => ((a << 24) | (b << 16) | (g << 8) | r) >>> 0;

// One ImageData per canvas, reused while its size holds: scrubbing redraws every frame, and a fresh
// 700 KB buffer per node per frame is garbage the collector then stalls a frame to clear.
const imageCache = new WeakMap<CanvasRenderingContext2D, ImageData>();

function imageFor(ctx: CanvasRenderingContext2D, width: number, height: number): ImageData {
  let image = imageCache.get(ctx);
  if (!image || image.width !== width || image.height !== height) {
    image = ctx.createImageData(width, height);
    imageCache.set(ctx, image);
  }
  return image;
}

export function drawPageGrid(ctx: CanvasRenderingContext2D, node: NodeSnapshot, layout: GridLayout, style: GridStyle): void {
  const { cell, cols, width, height } = layout;
  const image = imageFor(ctx, width, height);
  const px = new Uint32Array(image.data.buffer);
  const [br, bg, bb] = style.background;
  const background = rgba(br, bg, bb);
  px.fill(background);
  const palette = new Map<number, [number, number]>();
  const colourOf = (tenant: number, faded: boolean): number => {
    const key = tenant * 2 + (faded ? 1 : 0);
    let c = palette.get(key);
    if (!c) {
      let [r, g, b] = tenantRgb(tenant);
      if (faded) [r, g, b] = [Math.round((r + 2 * br) / 3), Math.round((g + 2 * bg) / 3), Math.round((b + 2 * bb) / 3)];
      c = [rgba(r, g, b), rgba(Math.round((r + br) / 2), Math.round((g + bg) / 2), Math.round((b + bb) / 2))];
      palette.set(key, c);
    }
    return c[0];
  };
  const clearedFill = rgba(Math.round(br * 0.92), Math.round(bg * 0.92), Math.round(bb * 0.92));
  const dot = rgba(90, 90, 90);
  for (let p = 0; p < node.pageCount; p++) {
    const state = node.state[p]!;
    if (state === PAGE_ZERO) continue;
    const x0 = (p % cols) * cell;
    const y0 = Math.floor(p / cols) * cell;
    if (state === PAGE_CLEARED) {
      for (let y = 0; y < cell; y++) px.fill(clearedFill, (y0 + y) * width + x0, (y0 + y) * width + x0 + cell);
      px[(y0 + (cell >> 1)) * width + x0 + (cell >> 1)] = dot;
      continue;
    }
    const tenant = node.writerTenant[p]!;
    const faded =
      (style.focusTenant !== -2 && tenant !== style.focusTenant) ||
      (style.focusRequest !== null && node.owner[p] !== style.focusRequest && node.writtenFor[p] !== style.focusRequest);
    const colour = tenant < 0 ? rgba(150, 150, 150) : colourOf(tenant, faded);
    for (let y = 0; y < cell; y++) {
      const row = (y0 + y) * width + x0;
      for (let x = 0; x < cell; x++) {
        // Stale pages: checkerboard, so "still holds old KV" shows as texture, not only as hue.
        if (state === PAGE_STALE && ((x + y) & 1) === 1) continue;
        px[row + x] = colour;
      }
    }
    if (state === PAGE_LIVE && tenant < 0) {
      // Reserved but never written: an outline-ish dot marks it as live-but-empty.
      px[(y0 + (cell >> 1)) * width + x0 + (cell >> 1)] = dot;
    }
  }
  ctx.putImageData(image, 0, 0);
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
    return `${s === PAGE_STALE ? 'stale' : 'live'}:rgb(${r},${g},${b})`;
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
        const attrs = kind === 'cleared' ? 'fill="#ddd"' : kind === 'stale' ? `fill="${colour}" fill-opacity="0.5"` : `fill="${colour}"`;
        parts.push(`<rect x="${x}" y="${row * cell}" width="${(stop - start) * cell}" height="${cell}" ${attrs}/>`);
      }
      start = stop;
    }
  }
  return `<g aria-label="${label}">${parts.join('')}</g>`;
}
