/**
 * Draws every node's KV pool of the stage on one canvas, in one pass over one ImageData (never one
 * element per page). Colours say what a page is to the selected request, and a pattern says its
 * state, so colour is never the only cue:
 * - its own KV (written for it): solid in its tenant's colour;
 * - in its block table but still an earlier tenant's KV: that tenant's colour, hatched;
 * - in its block table, never written: white with grey dots;
 * - being read by decode right now (the scan): solid in the colour of its last writer;
 * - everything else: faded (live pages solid, stale pages hatched, free pages plain).
 */
import { PAGE_CLEARED, PAGE_LIVE, PAGE_STALE } from '../../../engine/index.ts';
import type { Snapshot } from '../../run/hooks.ts';
import { tenantRgb } from '../shared/palette.ts';
import { blockIndexOf, type StageFrame } from './stageFrame.ts';
import type { StageLayout } from './stageLayout.ts';

const GROUND: RGB = [246, 245, 241];
const CLEARED: RGB = [226, 231, 236];
const TABLE_GROUND: RGB = [255, 255, 255];
const DOT: RGB = [120, 120, 120];
const UNKNOWN: RGB = [150, 150, 150];

type RGB = readonly [number, number, number];

// Per-page paint: a pattern and a colour.
const SOLID = 0;
const HATCH = 1;
const DOTS = 2;

export interface StagePaint {
  /** The selected request, its tenant, and the frame (what of its block table is lit, scanned, freed). */
  req: number | null;
  requesterTenant: number;
  frame: StageFrame | null;
  /** How many pages light at once as decode's scan passes (a trail behind the scan's head). */
  scanTrail: number;
}

const mix = (c: RGB, k: number): RGB => [c[0] + (255 - c[0]) * k, c[1] + (255 - c[1]) * k, c[2] + (255 - c[2]) * k];

// Reused across frames: the stage redraws on every frame while playing.
const imageCache = new WeakMap<CanvasRenderingContext2D, ImageData>();

/**
 * What each pool's pages looked like on the canvas's last draw, and what that look depended on
 * besides the pages, so that a frame visits only the pages whose look can have changed (the page
 * model's change list, and the block-table pages the sweep or the scan crossed) and puts only the
 * page rows that changed (a few rows while playing, instead of every pool's pixels).
 */
interface PoolDrawn {
  pattern: Uint8Array;
  colour: Uint32Array;
  ground: Uint32Array;
  /** The snapshot drawn (NodeSnapshot.changes.seq; −1: unknown). */
  seq: number;
  /** Everything else a page's look depends on that is not a count along the block table. */
  context: string;
  reserved: readonly number[] | null;
  lit: number;
  scanFrom: number;
  scanTo: number;
}
const drawnCache = new WeakMap<CanvasRenderingContext2D, { key: string; pools: Map<string, PoolDrawn> }>();

/** Block-table indices whose membership differs between [a0, a1) and [b0, b1), as at most two ranges. */
function windowChange(a0: number, a1: number, b0: number, b1: number): [number, number][] {
  const emptyA = !(a1 > a0);
  const emptyB = !(b1 > b0);
  if (emptyA && emptyB) return [];
  if (emptyA) return [[b0, b1]];
  if (emptyB) return [[a0, a1]];
  return [
    [Math.min(a0, b0), Math.max(a0, b0)],
    [Math.min(a1, b1), Math.max(a1, b1)],
  ];
}

const pack = (c: RGB) => ((255 << 24) | (Math.round(c[2]) << 16) | (Math.round(c[1]) << 8) | Math.round(c[0])) >>> 0;

/** Packed colours per tenant (−1: nobody's), at full strength and at each fade the pools use: built once. */
const FADES = [0, 0.2, 0.62] as const;
const MAX_TENANTS = 4096;
const tenantColours = FADES.map(() => new Uint32Array(MAX_TENANTS + 1));
function colourOf(tenant: number, fade: 0 | 0.2 | 0.62): number {
  const table = tenantColours[fade === 0 ? 0 : fade === 0.2 ? 1 : 2]!;
  const i = tenant < 0 ? 0 : tenant >= MAX_TENANTS ? MAX_TENANTS : tenant + 1;
  let c = table[i]!;
  if (c === 0) {
    c = pack(mix(tenant >= 0 ? tenantRgb(tenant) : UNKNOWN, fade));
    table[i] = c;
  }
  return c;
}
const PACKED_TABLE_GROUND = pack(TABLE_GROUND);
const PACKED_DOT = pack(DOT);
const PACKED_CLEARED = pack(CLEARED);
const EMPTY = new Int32Array(0);

/**
 * Paints the pools of `snapshot` at `scale` device pixels per diagram unit. Pure in its inputs: the
 * same snapshot, frame and size give the same pixels.
 */
export function drawStagePools(ctx: CanvasRenderingContext2D, layout: StageLayout, snapshot: Snapshot, paint: StagePaint, scale: number): void {
  const W = ctx.canvas.width;
  const H = ctx.canvas.height;
  let image = imageCache.get(ctx);
  if (!image || image.width !== W || image.height !== H) {
    image = ctx.createImageData(W, H);
    imageCache.set(ctx, image);
  }
  // A new size, scale or layout: everything is drawn afresh.
  const key = `${W}x${H}@${scale}:${layout.width}x${layout.height}:${layout.pools.map((p) => `${p.node}/${p.rect.x},${p.rect.y},${p.rect.w},${p.rect.h},${p.cols},${p.rows}`).join(';')}`;
  let drawn = drawnCache.get(ctx);
  if (!drawn || drawn.key !== key) {
    drawn = { key, pools: new Map() };
    drawnCache.set(ctx, drawn);
  }
  const px = new Uint32Array(image.data.buffer);
  const f = paint.frame;
  const decodeName = f && f.decodeNode !== null ? `decode-${f.decodeNode}` : null;
  const prefillName = f && f.prefillNode !== null ? `prefill-${f.prefillNode}` : null;
  const reservedLit = f ? f.reservedLit : 0;
  const tableTenantColour = colourOf(paint.requesterTenant, 0);
  const scanFrom = f ? (f.step === 'scan' ? f.scanned - paint.scanTrail : Infinity) : Infinity;
  const scanTo = f && f.step === 'scan' ? f.scanned : -1;
  const dirty: [number, number, number, number][] = [];
  for (const pool of layout.pools) {
    const node = snapshot.nodes.find((n) => n.name === pool.node);
    if (!node) continue;
    const n = node.pageCount;
    const isTable = pool.node === decodeName && f !== null && !f.freed;
    const blockIndex = isTable && f ? blockIndexOf(f.reserved, n) : null;
    // Once freed, its former pages stay in view: hatched while free (KV left in place), solid once a
    // later reservation claims them, so reuse reads as a sweep.
    const formerIndex = pool.node === decodeName && f !== null && f.freed ? blockIndexOf(f.reserved, n) : null;
    const isPrefill = pool.node === prefillName;
    const focus = paint.req !== null;
    const groundFaded = pack(GROUND);
    let pattern = SOLID;
    let colour = 0;
    let ground = 0;
    // The look of page p, into pattern / colour / ground.
    const lookAt = (p: number) => {
      const writer = node.writerTenant[p]!;
      const state = node.state[p]!;
      const index = blockIndex ? blockIndex[p]! : -1;
      if (index >= 0 && index < reservedLit) {
        // In the selected request's block table.
        ground = PACKED_TABLE_GROUND;
        const mine = node.writtenFor[p] === paint.req;
        if (index >= scanFrom && index < scanTo) {
          pattern = SOLID;
          colour = mine ? tableTenantColour : colourOf(writer, 0);
        } else if (mine) {
          pattern = SOLID;
          colour = tableTenantColour;
        } else if (writer >= 0 && state !== PAGE_CLEARED) {
          pattern = HATCH;
          colour = colourOf(writer, 0);
        } else {
          pattern = DOTS;
          colour = PACKED_DOT;
        }
        return;
      }
      if (formerIndex && formerIndex[p]! >= 0) {
        ground = PACKED_TABLE_GROUND;
        if (state === PAGE_LIVE) {
          pattern = SOLID;
          colour = colourOf(writer, 0.2);
        } else if (state === PAGE_STALE && writer >= 0) {
          pattern = HATCH;
          colour = node.writtenFor[p] === paint.req ? tableTenantColour : colourOf(writer, 0);
        } else {
          pattern = DOTS;
          colour = state === PAGE_CLEARED ? PACKED_CLEARED : PACKED_DOT;
        }
        return;
      }
      // Everything else: faded when a request is in focus, so its own pages stand out.
      const fade = focus ? (isPrefill && node.owner[p] === paint.req ? 0 : 0.62) : 0.2;
      ground = groundFaded;
      if (paint.req !== null && node.owner[p] === paint.req && node.kind === 'decode') {
        // Reserved, not yet lit by the sweep: it still shows what its earlier owner left.
        pattern = writer >= 0 ? HATCH : SOLID;
        colour = writer >= 0 ? colourOf(writer, fade) : groundFaded;
      } else if (isPrefill && node.owner[p] === paint.req && paint.req !== null) {
        pattern = SOLID;
        colour = tableTenantColour;
      } else if (state === PAGE_LIVE) {
        pattern = SOLID;
        colour = colourOf(writer, fade);
      } else if (state === PAGE_STALE && writer >= 0) {
        pattern = HATCH;
        colour = colourOf(writer, fade);
      } else {
        pattern = SOLID;
        colour = state === PAGE_CLEARED ? PACKED_CLEARED : groundFaded;
      }
    };
    const { rect, cols } = pool;
    let before = drawn.pools.get(pool.node);
    const fresh = !before || before.pattern.length !== n;
    const context = `${paint.req}/${paint.requesterTenant}/${isTable}/${formerIndex !== null}/${isPrefill}/${node.kind}`;
    const reserved = f ? f.reserved : null;
    const lit = blockIndex ? reservedLit : 0;
    const scan0 = blockIndex && scanTo > scanFrom ? Math.max(0, scanFrom) : 0;
    const scan1 = blockIndex && scanTo > scanFrom ? scanTo : 0;
    // Which pages to visit: the page model's change list and the block-table pages whose lit or
    // scanned state flipped, when the last draw was of the previous snapshot in the same context;
    // else every page (each compared with its last look).
    const changes = node.changes;
    const sameContext = !fresh && before!.context === context && before!.reserved === reserved;
    const pageList = sameContext && changes ? (before!.seq === changes.seq ? EMPTY : before!.seq === changes.since ? changes.pages : null) : null;
    if (!before || fresh) {
      before = { pattern: new Uint8Array(n), colour: new Uint32Array(n), ground: new Uint32Array(n), seq: -1, context, reserved, lit: 0, scanFrom: 0, scanTo: 0 };
      drawn.pools.set(pool.node, before);
    }
    const rowDirty = new Uint8Array(pool.rows);
    let anyDirty = false;
    const drawnPattern = before.pattern;
    const drawnColour = before.colour;
    const drawnGround = before.ground;
    const visit = (p: number) => {
      lookAt(p);
      if (fresh || drawnPattern[p] !== pattern || drawnColour[p] !== colour || drawnGround[p] !== ground) {
        drawnPattern[p] = pattern;
        drawnColour[p] = colour;
        drawnGround[p] = ground;
        rowDirty[Math.floor(p / cols)] = 1;
        anyDirty = true;
      }
    };
    if (pageList && reserved) {
      for (let k = 0; k < pageList.length; k++) visit(pageList[k]!);
      // Along the block table: the pages the sweep lit or unlit, and those the scan entered or left.
      for (const [from, to] of [...windowChange(0, before.lit, 0, lit), ...windowChange(before.scanFrom, before.scanTo, scan0, scan1)])
        for (let i = from; i < to && i < reserved.length; i++) if (reserved[i]! < n) visit(reserved[i]!);
    } else if (pageList) {
      for (let k = 0; k < pageList.length; k++) visit(pageList[k]!);
    } else for (let p = 0; p < n; p++) visit(p);
    Object.assign(before, { seq: changes?.seq ?? -1, context, reserved, lit, scanFrom: scan0, scanTo: scan1 });
    if (fresh) rowDirty.fill(1);
    if (!anyDirty && !fresh) continue;
    // Pixels of the pool's box; each maps to the page whose cell holds its centre.
    const x0 = Math.max(0, Math.floor(rect.x * scale));
    const x1 = Math.min(W, Math.ceil((rect.x + rect.w) * scale));
    const y0 = Math.max(0, Math.floor(rect.y * scale));
    const y1 = Math.min(H, Math.ceil((rect.y + rect.h) * scale));
    const cw = (rect.w / cols) * scale;
    const ch = (rect.h / pool.rows) * scale;
    const ox = rect.x * scale;
    const oy = rect.y * scale;
    const colOf = new Int32Array(x1 - x0);
    for (let x = x0; x < x1; x++) colOf[x - x0] = Math.min(cols - 1, Math.floor((x + 0.5 - ox) / cw));
    // Runs of pixel lines whose page row changed, each put as one rectangle.
    let runStart = -1;
    const endRun = (y: number) => {
      if (runStart >= 0) dirty.push([x0, runStart, x1 - x0, y - runStart]);
      runStart = -1;
    };
    for (let y = y0; y < y1; y++) {
      const row = Math.floor((y + 0.5 - oy) / ch);
      if (row < 0 || row >= pool.rows) {
        if (fresh) {
          px.fill(0, y * W + x0, y * W + x1);
          if (runStart < 0) runStart = y;
        } else endRun(y);
        continue;
      }
      if (!rowDirty[row]) {
        endRun(y);
        continue;
      }
      if (runStart < 0) runStart = y;
      const base = row * cols;
      const line = y * W;
      for (let x = x0; x < x1; x++) {
        const col = colOf[x - x0]!;
        if (col < 0) {
          px[line + x] = 0;
          continue;
        }
        const p = base + col;
        if (p >= n) {
          px[line + x] = 0;
          continue;
        }
        const look = drawnPattern[p]!;
        let c: number;
        if (look === SOLID) c = drawnColour[p]!;
        else if (look === HATCH) c = (x + y) % 4 < 2 ? drawnColour[p]! : drawnGround[p]!;
        else c = x % 3 === 0 && y % 3 === 0 ? drawnColour[p]! : drawnGround[p]!;
        px[line + x] = c;
      }
    }
    endRun(y1);
  }
  // Only changed page rows of the pools: the rest of the canvas keeps its pixels (transparent outside
  // the pools, under the SVG).
  for (const [x, y, w, h] of dirty) ctx.putImageData(image, 0, 0, x, y, w, h);
}
