/**
 * The interactive layer over a page grid, on its own canvas (as Excalidraw keeps its static and
 * interactive canvases apart): the selected page, the hovered page, the page a response token is
 * linked to, and the placeholder page magnified, since at one page in tens of thousands it is a
 * single cell otherwise. Redrawing it never touches the grid's pixels.
 */
import type { GridLayout } from './pageGrid.ts';
import { RELATION_RGB, REL_PLACEHOLDER } from './relation.ts';
import { OI, inkOn, paperOn, rgbCss } from '../../ui/palette.ts';

export interface OverlayMarks {
  selected: number | null;
  hovered: number | null;
  linked: number | null;
  placeholder: number | null;
  dark: boolean;
}

/** Side of the placeholder's magnifier in CSS pixels: always big enough to see and to point at. */
export const PLACEHOLDER_MAGNIFIER_PX = 11;

/** The magnifier's box (x, y, side) for a page, kept inside the canvas. */
export function magnifierBox(layout: GridLayout, page: number): { x: number; y: number; size: number } {
  const size = Math.max(PLACEHOLDER_MAGNIFIER_PX, layout.cell * 3);
  const cx = (page % layout.cols) * layout.cell + layout.cell / 2;
  const cy = Math.floor(page / layout.cols) * layout.cell + layout.cell / 2;
  const clamp = (v: number, max: number) => Math.max(0, Math.min(max - size, v));
  return { x: clamp(Math.round(cx - size / 2), layout.width), y: clamp(Math.round(cy - size / 2), Math.max(size, layout.height)), size };
}

function ring(ctx: CanvasRenderingContext2D, layout: GridLayout, page: number, pad: number, colour: string, width: number): void {
  const x = (page % layout.cols) * layout.cell;
  const y = Math.floor(page / layout.cols) * layout.cell;
  ctx.lineWidth = width;
  ctx.strokeStyle = colour;
  ctx.strokeRect(x - pad + 0.5, y - pad + 0.5, layout.cell + 2 * pad - 1, layout.cell + 2 * pad - 1);
}

export function drawOverlay(ctx: CanvasRenderingContext2D, layout: GridLayout, marks: OverlayMarks): void {
  ctx.clearRect(0, 0, layout.width, layout.height);
  const ink = inkOn(marks.dark);
  const paper = paperOn(marks.dark);
  if (marks.placeholder !== null) {
    const { x, y, size } = magnifierBox(layout, marks.placeholder);
    ctx.fillStyle = rgbCss(RELATION_RGB[REL_PLACEHOLDER]);
    ctx.fillRect(x, y, size, size);
    ctx.lineWidth = 1;
    ctx.strokeStyle = paper;
    ctx.strokeRect(x + 1.5, y + 1.5, size - 3, size - 3);
    ctx.strokeStyle = ink;
    ctx.strokeRect(x + 0.5, y + 0.5, size - 1, size - 1);
  }
  if (marks.linked !== null) {
    ring(ctx, layout, marks.linked, 6, paper, 4);
    ring(ctx, layout, marks.linked, 6, rgbCss(OI.vermilion), 2);
  }
  if (marks.hovered !== null && marks.hovered !== marks.selected) ring(ctx, layout, marks.hovered, 2, ink, 1);
  if (marks.selected !== null) {
    ring(ctx, layout, marks.selected, 3, paper, 3);
    ring(ctx, layout, marks.selected, 3, ink, 1.5);
  }
}
