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

// Reused buffers: the stage redraws on every frame while playing.
const imageCache = new WeakMap<CanvasRenderingContext2D, ImageData>();
let pagePattern = new Uint8Array(0);
let pageColour = new Uint32Array(0);
let pageGround = new Uint32Array(0);

/**
 * What each pool's pages looked like on the canvas's last draw, so that a frame repaints and puts
 * only the page rows that changed (a few rows while playing, instead of every pool's pixels).
 */
interface PoolDrawn {
  pattern: Uint8Array;
  colour: Uint32Array;
  ground: Uint32Array;
}
const drawnCache = new WeakMap<CanvasRenderingContext2D, { key: string; pools: Map<string, PoolDrawn> }>();

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
    if (pagePattern.length < n) {
      pagePattern = new Uint8Array(n);
      pageColour = new Uint32Array(n);
      pageGround = new Uint32Array(n);
    }
    const isTable = pool.node === decodeName && f !== null && !f.freed;
    const blockIndex = isTable && f ? blockIndexOf(f.reserved, n) : null;
    // Once freed, its former pages stay in view: hatched while free (KV left in place), solid once a
    // later reservation claims them, so reuse reads as a sweep.
    const formerIndex = pool.node === decodeName && f !== null && f.freed ? blockIndexOf(f.reserved, n) : null;
    const isPrefill = pool.node === prefillName;
    const focus = paint.req !== null;
    const groundFaded = pack(GROUND);
    for (let p = 0; p < n; p++) {
      const writer = node.writerTenant[p]!;
      const state = node.state[p]!;
      const index = blockIndex ? blockIndex[p]! : -1;
      if (index >= 0 && index < reservedLit) {
        // In the selected request's block table.
        pageGround[p] = PACKED_TABLE_GROUND;
        const mine = node.writtenFor[p] === paint.req;
        if (index >= scanFrom && index < scanTo) {
          pagePattern[p] = SOLID;
          pageColour[p] = mine ? tableTenantColour : colourOf(writer, 0);
        } else if (mine) {
          pagePattern[p] = SOLID;
          pageColour[p] = tableTenantColour;
        } else if (writer >= 0 && state !== PAGE_CLEARED) {
          pagePattern[p] = HATCH;
          pageColour[p] = colourOf(writer, 0);
        } else {
          pagePattern[p] = DOTS;
          pageColour[p] = PACKED_DOT;
        }
        continue;
      }
      if (formerIndex && formerIndex[p]! >= 0) {
        pageGround[p] = PACKED_TABLE_GROUND;
        if (state === PAGE_LIVE) {
          pagePattern[p] = SOLID;
          pageColour[p] = colourOf(writer, 0.2);
        } else if (state === PAGE_STALE && writer >= 0) {
          pagePattern[p] = HATCH;
          pageColour[p] = node.writtenFor[p] === paint.req ? tableTenantColour : colourOf(writer, 0);
        } else {
          pagePattern[p] = DOTS;
          pageColour[p] = state === PAGE_CLEARED ? PACKED_CLEARED : PACKED_DOT;
        }
        continue;
      }
      // Everything else: faded when a request is in focus, so its own pages stand out.
      const fade = focus ? (isPrefill && node.owner[p] === paint.req ? 0 : 0.62) : 0.2;
      pageGround[p] = groundFaded;
      if (paint.req !== null && node.owner[p] === paint.req && node.kind === 'decode') {
        // Reserved, not yet lit by the sweep: it still shows what its earlier owner left.
        pagePattern[p] = writer >= 0 ? HATCH : SOLID;
        pageColour[p] = writer >= 0 ? colourOf(writer, fade) : groundFaded;
      } else if (isPrefill && node.owner[p] === paint.req && paint.req !== null) {
        pagePattern[p] = SOLID;
        pageColour[p] = tableTenantColour;
      } else if (state === PAGE_LIVE) {
        pagePattern[p] = SOLID;
        pageColour[p] = colourOf(writer, fade);
      } else if (state === PAGE_STALE && writer >= 0) {
        pagePattern[p] = HATCH;
        pageColour[p] = colourOf(writer, fade);
      } else {
        pagePattern[p] = SOLID;
        pageColour[p] = state === PAGE_CLEARED ? PACKED_CLEARED : groundFaded;
      }
    }
    // Which page rows differ from the last draw (all of them on the first draw of this pool).
    const { rect, cols } = pool;
    let before = drawn.pools.get(pool.node);
    const fresh = !before || before.pattern.length !== n;
    if (!before || fresh) {
      before = { pattern: new Uint8Array(n), colour: new Uint32Array(n), ground: new Uint32Array(n) };
      drawn.pools.set(pool.node, before);
    }
    const rowDirty = new Uint8Array(pool.rows);
    let anyDirty = false;
    for (let p = 0; p < n; p++) {
      if (fresh || before.pattern[p] !== pagePattern[p] || before.colour[p] !== pageColour[p] || before.ground[p] !== pageGround[p]) {
        rowDirty[Math.floor(p / cols)] = 1;
        anyDirty = true;
      }
    }
    if (fresh) rowDirty.fill(1);
    if (!anyDirty && !fresh) continue;
    before.pattern.set(pagePattern.subarray(0, n));
    before.colour.set(pageColour.subarray(0, n));
    before.ground.set(pageGround.subarray(0, n));
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
        const pattern = pagePattern[p]!;
        let c: number;
        if (pattern === SOLID) c = pageColour[p]!;
        else if (pattern === HATCH) c = (x + y) % 4 < 2 ? pageColour[p]! : pageGround[p]!;
        else c = x % 3 === 0 && y % 3 === 0 ? pageColour[p]! : pageGround[p]!;
        px[line + x] = c;
      }
    }
    endRun(y1);
  }
  // Only changed page rows of the pools: the rest of the canvas keeps its pixels (transparent outside
  // the pools, under the SVG).
  for (const [x, y, w, h] of dirty) ctx.putImageData(image, 0, 0, x, y, w, h);
}
