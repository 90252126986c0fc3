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
import { PAGE_CLEARED, PAGE_LIVE, PAGE_STALE } from '../../../engine/kvPool.ts';
import type { NodeSnapshot, Snapshot } from '../../run/hooks.ts';
import { NEUTRAL_GREY, tenantRgb } from '../../ui/palette.ts';
import { colourScheme, themeRgb } from '../../ui/theme.ts';
import { blockIndexOf, type StageFrame } from '../../moment/moment.ts';
import type { PoolsLayout } from './stageLayout.ts';

// Grounds and marks from the theme's tokens (light or dark), read at each draw; the values given
// here are only what a test in Node, without a document, gets.
const UNKNOWN: RGB = NEUTRAL_GREY;

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
  /**
   * A walkthrough question waits (the store's `questionOpen`): whose KV the request's pages still
   * hold would answer it (chapter 6's), so those pages are hatched in no customer's colour.
   */
  writersHeld?: boolean;
}

const mix = (c: RGB, k: number): RGB => [c[0] + (255 - c[0]) * k, c[1] + (255 - c[1]) * k, c[2] + (255 - c[2]) * k];
const pack = (c: RGB) => ((255 << 24) | (Math.round(c[2]) << 16) | (Math.round(c[1]) << 8) | Math.round(c[0])) >>> 0;

/**
 * Packed colours per tenant at full strength and at the two fades the pools use, indexed by
 * tenant + 1 (0: nobody's; tenants past MAX_TENANTS share the last entry). Built once.
 */
const MAX_TENANTS = 4096;
function tenantTable(fade: number): Uint32Array {
  const table = new Uint32Array(MAX_TENANTS + 2);
  for (let i = 0; i < table.length; i++) table[i] = pack(mix(i === 0 ? UNKNOWN : tenantRgb(Math.min(i, MAX_TENANTS + 1) - 1), fade));
  return table;
}
let fullColours: Uint32Array | null = null;
let lightColours: Uint32Array | null = null;
let faintColours: Uint32Array | null = null;
let PACKED_TABLE_GROUND = 0;
let PACKED_GROUND = 0;
let PACKED_DOT = 0;
let PACKED_CLEARED = 0;
/** Reads the theme's grounds; returns what they are, so a drawing made under other ones is redrawn. */
let themeRead: string | null = null;
function readTheme(): string {
  // The tokens change only with the colour scheme: packed again only then (not on every frame).
  const scheme = colourScheme();
  if (themeRead !== null && themeRead.startsWith(scheme)) return themeRead;
  PACKED_GROUND = pack(themeRgb('--canvas', [246, 245, 241]));
  PACKED_TABLE_GROUND = pack(themeRgb('--panel', [255, 255, 255]));
  PACKED_DOT = pack(themeRgb('--muted', [120, 120, 120]));
  PACKED_CLEARED = pack(themeRgb('--accent-soft', [226, 231, 236]));
  themeRead = `${scheme}/${PACKED_GROUND}/${PACKED_TABLE_GROUND}/${PACKED_DOT}/${PACKED_CLEARED}`;
  return themeRead;
}
const EMPTY = new Int32Array(0);
const FAR = 0x7fffffff;
const TABLE_BIT = 1 << 26;
/** A request number no page holds (owners and writers are ≥ −1): "no request selected". */
const NOBODY = -2;

// Reused across frames: the stage redraws on every frame while playing.
const imageCache = new WeakMap<CanvasRenderingContext2D, ImageData>();

/**
 * What each pool's pages looked like on the canvas's last draw, and what that look depended on
 * besides the pages, so that a frame visits only the pages whose look can have changed (the page
 * model's change list, and the block-table pages the sweep or the scan crossed) and puts only the
 * page rows that changed (a few rows while playing, instead of every pool's pixels).
 */
interface PoolDrawn {
  /**
   * Each page's look in one number, so that a visit compares and stores one value per page: the
   * colour's RGB in the low 24 bits (as `pack` lays them out), the pattern in bits 24–25, and bit 26
   * set when the ground is the block table's (else the pools' ground).
   */
  look: Uint32Array;
  /** The snapshot drawn (NodeSnapshot.changes.seq; −1: unknown). */
  seq: number;
  /** Everything else a page's look depends on that is not a count along the block table. */
  context: string;
  reserved: readonly number[] | null;
  lit: number;
  scanFrom: number;
  scanTo: number;
  rowDirty: Uint8Array;
  pixels: PoolPixels;
}

/**
 * For each device pixel of a pool's box: the page whose cell holds its centre (−1: none) and which
 * patterns put the page's colour there rather than the ground (HATCH: diagonal stripes, DOTS: one
 * pixel in nine), computed once per layout so that painting is one lookup per pixel.
 */
interface PoolPixels {
  x0: number;
  y0: number;
  width: number;
  height: number;
  /** Page row of each pixel line (−1: outside the grid). */
  rowOfLine: Int32Array;
  pageAt: Int32Array;
  inked: Uint8Array;
}

function poolPixels(rect: { x: number; y: number; w: number; h: number }, cols: number, rows: number, pageCount: number, scale: number, W: number, H: number): PoolPixels {
  const x0 = Math.max(0, Math.floor(rect.x * scale));
  const x1 = Math.min(W, Math.ceil((rect.x + rect.w) * scale));
  const y0 = Math.max(0, Math.floor(rect.y * scale));
  const y1 = Math.min(H, Math.ceil((rect.y + rect.h) * scale));
  const width = Math.max(0, x1 - x0);
  const height = Math.max(0, y1 - y0);
  const cw = (rect.w / cols) * scale;
  const ch = (rect.h / rows) * scale;
  const ox = rect.x * scale;
  const oy = rect.y * scale;
  const rowOfLine = new Int32Array(height);
  const pageAt = new Int32Array(width * height);
  const inked = new Uint8Array(width * height);
  for (let j = 0; j < height; j++) {
    const y = y0 + j;
    const row = Math.floor((y + 0.5 - oy) / ch);
    rowOfLine[j] = row >= 0 && row < rows ? row : -1;
    for (let i = 0; i < width; i++) {
      const x = x0 + i;
      const col = Math.min(cols - 1, Math.floor((x + 0.5 - ox) / cw));
      const p = row * cols + col;
      const k = j * width + i;
      pageAt[k] = col < 0 || rowOfLine[j]! < 0 || p >= pageCount ? -1 : p;
      inked[k] = ((x + y) % 4 < 2 ? HATCH : 0) | (x % 3 === 0 && y % 3 === 0 ? DOTS : 0);
    }
  }
  return { x0, y0, width, height, rowOfLine, pageAt, inked };
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

// The block table as an Int32Array, like the change lists: the page loop then sees one kind of list.
const reservedCache = new WeakMap<readonly number[], Int32Array>();
function reservedPages(reserved: readonly number[]): Int32Array {
  let pages = reservedCache.get(reserved);
  if (!pages) reservedCache.set(reserved, (pages = Int32Array.from(reserved)));
  return pages;
}

/** Everything a pool's page looks depend on for one draw besides the page arrays, hoisted out of the page loop. */
interface LookInputs {
  req: number;
  focus: boolean;
  isPrefill: boolean;
  isDecode: boolean;
  /** Block-table index of each page while the request holds its table (null: not this pool, or freed). */
  blockIndex: Int32Array | null;
  /** The same after the free: its former pages. */
  formerIndex: Int32Array | null;
  lit: number;
  scanFrom: number;
  scanTo: number;
  tableColour: number;
  writersHeld: boolean;
}

/**
 * Looks at pages `list[from..to)` (or pages from..to when `list` is null), records each one whose
 * look changed (or every one when `fresh`) and marks its page row dirty; true when any changed.
 * One plain function over typed arrays: this loop is the stage's cost on a jump across the window.
 */
function visitPages(node: NodeSnapshot, look: LookInputs, drawn: PoolDrawn, cols: number, list: Int32Array | null, from: number, to: number, fresh: boolean): boolean {
  const state = node.state;
  const writerTenant = node.writerTenant;
  const owner = node.owner;
  const writtenFor = node.writtenFor;
  const n = node.pageCount;
  const { req, focus, isPrefill, isDecode, blockIndex, formerIndex, lit, scanFrom, scanTo, tableColour, writersHeld } = look;
  const full = (fullColours ??= tenantTable(0));
  const light = (lightColours ??= tenantTable(0.2));
  const faint = (faintColours ??= tenantTable(0.62));
  const drawnLook = drawn.look;
  const rowDirty = drawn.rowDirty;
  let any = false;
  for (let k = from; k < to; k++) {
    const p = list === null ? k : list[k]!;
    if (p >= n) continue;
    const writer = writerTenant[p]!;
    const w = writer < 0 ? 0 : writer > MAX_TENANTS ? MAX_TENANTS + 1 : writer + 1;
    const st = state[p]!;
    const index = blockIndex === null ? -1 : blockIndex[p]!;
    let pattern: number;
    let colour: number;
    let ground: number;
    // ground: TABLE_BIT for the block table's, 0 for the pools'.
    if (index >= 0 && index < lit) {
      // In the selected request's block table.
      ground = TABLE_BIT;
      const mine = writtenFor[p] === req;
      if (index >= scanFrom && index < scanTo) {
        pattern = SOLID;
        colour = mine ? tableColour : full[w]!;
      } else if (mine) {
        pattern = SOLID;
        colour = tableColour;
      } else if (writer >= 0 && st !== PAGE_CLEARED) {
        pattern = HATCH;
        colour = full[writersHeld ? 0 : w]!;
      } else {
        pattern = DOTS;
        colour = PACKED_DOT;
      }
    } else if (formerIndex !== null && formerIndex[p]! >= 0) {
      // Once freed, its former pages stay in view: hatched while free (KV left in place), solid
      // once a later reservation claims them, so reuse reads as a sweep.
      ground = TABLE_BIT;
      if (st === PAGE_LIVE) {
        pattern = SOLID;
        colour = light[w]!;
      } else if (st === PAGE_STALE && writer >= 0) {
        pattern = HATCH;
        colour = writtenFor[p] === req ? tableColour : full[writersHeld ? 0 : w]!;
      } else {
        pattern = DOTS;
        colour = st === PAGE_CLEARED ? PACKED_CLEARED : PACKED_DOT;
      }
    } else {
      // Everything else: faded when a request is in focus, so its own pages stand out.
      const own = owner[p] === req;
      const faded = focus ? (isPrefill && own ? full : faint) : light;
      ground = 0;
      if (own && isDecode) {
        // Reserved, not yet lit by the sweep: it still shows what its earlier owner left.
        pattern = writer >= 0 ? HATCH : SOLID;
        colour = writer >= 0 ? faded[w]! : PACKED_GROUND;
      } else if (own && isPrefill) {
        pattern = SOLID;
        colour = tableColour;
      } else if (st === PAGE_LIVE) {
        pattern = SOLID;
        colour = faded[w]!;
      } else if (st === PAGE_STALE && writer >= 0) {
        pattern = HATCH;
        colour = faded[w]!;
      } else {
        pattern = SOLID;
        colour = st === PAGE_CLEARED ? PACKED_CLEARED : PACKED_GROUND;
      }
    }
    const code = (colour & 0xffffff) | (pattern << 24) | ground;
    if (fresh || drawnLook[p] !== code) {
      drawnLook[p] = code;
      rowDirty[(p / cols) | 0] = 1;
      any = true;
    }
  }
  return any;
}

/** Paints the dirty page rows of a pool into `px`; returns the pixel-line runs painted, as rectangles. */
function paintRows(px: Uint32Array, W: number, drawn: PoolDrawn, fresh: boolean, dirty: [number, number, number, number][]): void {
  const { x0, y0, width, height, rowOfLine, pageAt, inked } = drawn.pixels;
  const { look, rowDirty } = drawn;
  let runStart = -1;
  for (let j = 0; j < height; j++) {
    const row = rowOfLine[j]!;
    // Lines outside the grid are cleared on a fresh draw only.
    const paint = row < 0 ? fresh : rowDirty[row] === 1;
    if (!paint) {
      if (runStart >= 0) dirty.push([x0, y0 + runStart, width, j - runStart]);
      runStart = -1;
      continue;
    }
    if (runStart < 0) runStart = j;
    const line = (y0 + j) * W + x0;
    const k0 = j * width;
    if (row < 0) {
      px.fill(0, line, line + width);
      continue;
    }
    for (let i = 0; i < width; i++) {
      const p = pageAt[k0 + i]!;
      if (p < 0) {
        px[line + i] = 0;
        continue;
      }
      const code = look[p]!;
      const pattern = (code >>> 24) & 3;
      px[line + i] = pattern === SOLID || (inked[k0 + i]! & pattern) !== 0 ? (code | 0xff000000) >>> 0 : code & TABLE_BIT ? PACKED_TABLE_GROUND : PACKED_GROUND;
    }
  }
  if (runStart >= 0) dirty.push([x0, y0 + runStart, width, height - runStart]);
}

/**
 * Paints the pools of `snapshot` at `scale` device pixels per diagram unit. Pure in its inputs: the
 * same snapshot, frame and size give the same pixels.
 */
export function drawStagePools(ctx: CanvasRenderingContext2D, layout: PoolsLayout, snapshot: Snapshot, paint: StagePaint, scale: number): void {
  const W = ctx.canvas.width;
  const H = ctx.canvas.height;
  let image = imageCache.get(ctx);
  if (!image || image.width !== W || image.height !== H) {
    image = ctx.createImageData(W, H);
    imageCache.set(ctx, image);
  }
  const theme = readTheme();
  // A new size, scale, layout or theme: everything is drawn afresh.
  const key = `${theme}:${W}x${H}@${scale}:${layout.width}x${layout.height}:${layout.pools.map((p) => `${p.node}/${p.rect.x},${p.rect.y},${p.rect.w},${p.rect.h},${p.cols},${p.rows},${p.pageCount}`).join(';')}`;
  let drawnAll = drawnCache.get(ctx);
  if (!drawnAll || drawnAll.key !== key) {
    drawnAll = { key, pools: new Map() };
    drawnCache.set(ctx, drawnAll);
  }
  const px = new Uint32Array(image.data.buffer);
  const f = paint.frame;
  const decodeName = f && f.decodeNode !== null ? `decode-${f.decodeNode}` : null;
  const prefillName = f && f.prefillNode !== null ? `prefill-${f.prefillNode}` : null;
  const reservedLit = f ? f.reservedLit : 0;
  const tableColour = (fullColours ??= tenantTable(0))[paint.requesterTenant < 0 ? 0 : Math.min(paint.requesterTenant, MAX_TENANTS) + 1]!;
  const scanFrom = f && f.step === 'scan' ? f.scanned - paint.scanTrail : FAR;
  const scanTo = f && f.step === 'scan' ? f.scanned : -1;
  const dirty: [number, number, number, number][] = [];
  for (const pool of layout.pools) {
    const node = snapshot.nodes.find((n) => n.name === pool.node);
    if (!node) continue;
    const n = node.pageCount;
    const isTable = pool.node === decodeName && f !== null && !f.freed;
    const blockIndex = isTable && f ? blockIndexOf(f.reserved, n) : null;
    const formerIndex = pool.node === decodeName && f !== null && f.freed ? blockIndexOf(f.reserved, n) : null;
    const isPrefill = pool.node === prefillName;
    const look: LookInputs = {
      req: paint.req ?? NOBODY,
      focus: paint.req !== null,
      isPrefill,
      isDecode: node.kind === 'decode',
      blockIndex,
      formerIndex,
      lit: blockIndex ? reservedLit : 0,
      scanFrom,
      scanTo,
      tableColour,
      writersHeld: paint.writersHeld === true,
    };
    let before = drawnAll.pools.get(pool.node);
    const fresh = !before || before.look.length !== n;
    const context = `${paint.req}/${paint.requesterTenant}/${isTable}/${formerIndex !== null}/${isPrefill}/${node.kind}/${look.writersHeld}`;
    const reserved = f ? f.reserved : null;
    const lit = look.lit;
    const scan0 = blockIndex && scanTo > scanFrom ? Math.max(0, scanFrom) : 0;
    const scan1 = blockIndex && scanTo > scanFrom ? scanTo : 0;
    // Which pages to visit: the page model's change list and the block-table pages whose lit or
    // scanned state flipped, when the last draw was of the previous snapshot in the same context;
    // else every page (each compared with its last look).
    const changes = node.changes;
    const sameContext = !fresh && before!.context === context && before!.reserved === reserved;
    const pageList = sameContext && changes ? (before!.seq === changes.seq ? EMPTY : before!.seq === changes.since ? changes.pages : null) : null;
    if (!before || fresh) {
      before = {
        look: new Uint32Array(n),
        seq: -1,
        context,
        reserved,
        lit: 0,
        scanFrom: 0,
        scanTo: 0,
        rowDirty: new Uint8Array(pool.rows),
        pixels: poolPixels(pool.rect, pool.cols, pool.rows, n, scale, W, H),
      };
      drawnAll.pools.set(pool.node, before);
    }
    before.rowDirty.fill(0);
    let anyDirty = false;
    if (pageList) {
      if (visitPages(node, look, before, pool.cols, pageList, 0, pageList.length, false)) anyDirty = true;
      // Along the block table: the pages the sweep lit or unlit, and those the scan entered or left.
      if (reserved)
        for (const [from, to] of [...windowChange(0, before.lit, 0, lit), ...windowChange(before.scanFrom, before.scanTo, scan0, scan1)])
          if (visitPages(node, look, before, pool.cols, reservedPages(reserved), from, Math.min(to, reserved.length), false)) anyDirty = true;
    } else if (visitPages(node, look, before, pool.cols, null, 0, n, fresh)) anyDirty = true;
    Object.assign(before, { seq: changes?.seq ?? -1, context, reserved, lit, scanFrom: scan0, scanTo: scan1 });
    if (!anyDirty && !fresh) continue;
    if (fresh) before.rowDirty.fill(1);
    paintRows(px, W, before, fresh, dirty);
  }
  // Only changed page rows of the pools: the rest of the canvas keeps its pixels (transparent outside
  // the pools, under the SVG).
  for (const [x, y, w, h] of dirty) ctx.putImageData(image, 0, 0, x, y, w, h);
}
