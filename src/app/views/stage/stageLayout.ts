/**
 * A node's pool as a grid at real scale (one cell per page, as square as its box allows), for the
 * stage's context maps (handoffLayout.ts places them); and where a page's cell is.
 */
export interface Rect {
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface PoolGeometry {
  node: string;
  kind: 'prefill' | 'decode';
  /** The node's box, and its KV pool's grid inside it. */
  box: Rect;
  rect: Rect;
  pageCount: number;
  cols: number;
  rows: number;
}

export interface Point {
  x: number;
  y: number;
}

/** Pools laid out on one canvas: its size in CSS px and each pool's grid. */
export interface PoolsLayout {
  width: number;
  height: number;
  pools: PoolGeometry[];
}

export interface NodeShape {
  name: string;
  kind: 'prefill' | 'decode';
  pageCount: number;
}

export function grid(node: NodeShape, box: Rect, rect: Rect): PoolGeometry {
  // Columns so that cells are about square: cols / rows ≈ w / h.
  const cols = Math.max(1, Math.round(Math.sqrt((node.pageCount * rect.w) / rect.h)));
  const rows = Math.max(1, Math.ceil(node.pageCount / cols));
  return { node: node.name, kind: node.kind, box, rect, pageCount: node.pageCount, cols, rows };
}

export function pageCenter(pool: PoolGeometry, page: number): Point {
  const cw = pool.rect.w / pool.cols;
  const ch = pool.rect.h / pool.rows;
  return { x: pool.rect.x + ((page % pool.cols) + 0.5) * cw, y: pool.rect.y + (Math.floor(page / pool.cols) + 0.5) * ch };
}

