/**
 * Draws the microscope's rows (each page's ground, labels, writer chip, the words its slots hold and
 * its strip of slot cells, one cell a slot, tinted by writer; each band's counts by writer) on one canvas, in one pass.
 * What is drawn is a plain description (`MicroPaint`), a function of the picture's props only, so
 * the same description gives the same pixels however the moment was reached; a canvas already
 * showing a description is left as it is. Colours come from the theme's tokens and the palette;
 * sizes are CSS pixels of the picture (12–13 px text), scaled by devicePixelRatio × zoom.
 */
import { tenantCss, tenantInk } from '../../ui/palette.ts';
import { colourScheme, themeColor } from '../../ui/theme.ts';

export type MicroPaintState = 'free' | 'stale' | 'zero' | 'own' | 'freed' | 'claimed';

export interface MicroPaintPage {
  kind: 'page';
  /** The row's top, in picture coordinates. */
  y: number;
  state: MicroPaintState;
  scanned: boolean;
  linked: boolean;
  /** "Page N", and "#id · state". */
  title: string;
  sub: string;
  /** The writer chip: its tenant (−1: zeros) and its text. */
  chipTenant: number;
  chip: string;
  /** The words shown (a window of the page's slots), from slot `from`; ellipses before and after. */
  words: string[];
  from: number;
  lead: boolean;
  trail: boolean;
  /** The slot whose word is marked (the token drawing on it, or the linked one), −1: none. */
  active: number;
  /** Slot 0 holds the placeholder (its word bold, its cell outlined). */
  placeholder: boolean;
  /** The slot cells: runs of one writer's tenant (−1: zeros), [from, to, tenant] flattened. */
  runs: number[];
  slots: number;
}

export interface MicroPaintBand {
  kind: 'band';
  y: number;
  dim: boolean;
  label: string;
  counts: string;
  /** Tenant and page count per writer (largest first), and the band's pages. */
  bars: number[];
  total: number;
}

export type MicroPaintRow = MicroPaintPage | MicroPaintBand;

export interface MicroPaint {
  /** Picture width, the microscope's top and bottom (picture coordinates). */
  width: number;
  top: number;
  bottom: number;
  narrow: boolean;
  labelW: number;
  chipW: number;
  wordsX: number;
  wordsW: number;
  pageRowH: number;
  rows: MicroPaintRow[];
}

/** Room around the picture's width, so strokes on its edges are drawn whole. */
export const MICRO_PAD = 4;

interface Ink {
  fg: string;
  muted: string;
  panel: string;
  border: string;
  accent: string;
  accentSoft: string;
  error: string;
  ground: string;
  never: string;
  sans: string;
  mono: string;
}

let inkRead: { scheme: string; ink: Ink } | null = null;
/** The theme's tokens and fonts, read again only when the colour scheme changes. */
function ink(el: HTMLElement): Ink {
  const scheme = colourScheme();
  if (inkRead && inkRead.scheme === scheme) return inkRead.ink;
  const sans = (typeof getComputedStyle === 'function' ? getComputedStyle(el).fontFamily : '') || 'sans-serif';
  const value = {
    fg: themeColor('--fg'),
    muted: themeColor('--muted'),
    panel: themeColor('--panel'),
    border: themeColor('--border'),
    accent: themeColor('--accent'),
    accentSoft: themeColor('--accent-soft'),
    error: themeColor('--error'),
    ground: themeColor('--canvas'),
    never: themeColor('--never'),
    sans,
    mono: themeColor('--font-mono', 'monospace'),
  };
  inkRead = { scheme, ink: value };
  return value;
}

function roundRect(ctx: CanvasRenderingContext2D, x: number, y: number, w: number, h: number, r: number): void {
  ctx.beginPath();
  ctx.roundRect(x, y, w, h, r);
}

const STROKE: Record<MicroPaintState, { width: number; dash: number[]; colour: keyof Ink }> = {
  free: { width: 1, dash: [3, 3], colour: 'border' },
  stale: { width: 1.5, dash: [], colour: 'error' },
  zero: { width: 1, dash: [], colour: 'border' },
  own: { width: 1.5, dash: [], colour: 'fg' },
  freed: { width: 1, dash: [6, 3], colour: 'border' },
  claimed: { width: 1, dash: [6, 3], colour: 'border' },
};

function drawPage(ctx: CanvasRenderingContext2D, p: MicroPaint, r: MicroPaintPage, k: Ink): void {
  const y = r.y;
  ctx.globalAlpha = r.state === 'free' ? 0.6 : 1;
  // The row's ground, its outline saying its state.
  const s = STROKE[r.state];
  roundRect(ctx, 0, y, p.width, p.pageRowH - 4, 4);
  ctx.fillStyle = r.scanned ? k.accentSoft : k.panel;
  ctx.fill();
  ctx.setLineDash(r.linked ? [] : s.dash);
  ctx.lineWidth = r.linked ? 3 : s.width;
  ctx.strokeStyle = r.linked ? k.accent : k[s.colour];
  ctx.stroke();
  ctx.setLineDash([]);
  // Labels.
  ctx.textAlign = 'left';
  ctx.fillStyle = k.fg;
  ctx.font = `650 13px ${k.sans}`;
  ctx.fillText(r.title, 6, y + 15);
  ctx.fillStyle = k.muted;
  ctx.font = `12px ${k.sans}`;
  ctx.fillText(r.sub, 6, y + (p.narrow ? 33 : 42));
  // The writer chip.
  roundRect(ctx, p.labelW, y + 4, p.chipW - 6, 18, 9);
  ctx.fillStyle = r.chipTenant >= 0 ? tenantCss(r.chipTenant) : k.ground;
  ctx.fill();
  ctx.lineWidth = 0.75;
  ctx.strokeStyle = r.chipTenant >= 0 ? k.fg : k.never;
  ctx.stroke();
  ctx.fillStyle = r.chipTenant >= 0 ? tenantInk(r.chipTenant) : k.fg;
  ctx.font = `650 12px ${k.sans}`;
  ctx.textAlign = 'center';
  ctx.fillText(r.chip, p.labelW + (p.chipW - 6) / 2, y + 17);
  ctx.textAlign = 'left';
  // The words the slots hold, one space apart; the marked one bold and underlined.
  let x = p.wordsX;
  const plain = `13px ${k.mono}`;
  const bold = `800 13px ${k.mono}`;
  ctx.fillStyle = k.fg;
  ctx.font = plain;
  let run = r.lead ? '\u2026 ' : '';
  const flush = () => {
    if (!run) return;
    ctx.fillText(run, x, y + 15);
    x += ctx.measureText(run).width;
    run = '';
  };
  for (let j = 0; j < r.words.length; j++) {
    const slot = r.from + j;
    const marked = slot === r.active || (r.placeholder && slot === 0);
    if (!marked) {
      run += `${r.words[j]!} `;
      continue;
    }
    flush();
    ctx.font = bold;
    const w = r.words[j]!;
    ctx.fillText(w, x, y + 15);
    const ww = ctx.measureText(w).width;
    if (slot === r.active) ctx.fillRect(x, y + 17, ww, 1);
    x += ctx.measureText(`${w} `).width;
    ctx.font = plain;
  }
  if (r.trail) run += '\u2026';
  flush();
  // The page's slots, each tinted by its writer; a tick every eight; slot 0 of the placeholder page outlined.
  const sx = p.narrow ? 6 : p.wordsX;
  const sy = p.narrow ? y + 40 : y + 21;
  const sw = p.narrow ? p.width - 10 : p.wordsW;
  const cell = sw / r.slots;
  for (let i = 0; i < r.runs.length; i += 3) {
    const a = r.runs[i]!;
    const b = r.runs[i + 1]!;
    const tn = r.runs[i + 2]!;
    if (tn >= 0) {
      ctx.fillStyle = tenantCss(tn);
      ctx.fillRect(sx + a * cell, sy, (b - a) * cell, 8);
    } else {
      ctx.fillStyle = k.ground;
      ctx.fillRect(sx + a * cell, sy, (b - a) * cell, 8);
      ctx.lineWidth = 1;
      ctx.strokeStyle = k.never;
      ctx.strokeRect(sx + a * cell, sy, (b - a) * cell, 8);
    }
  }
  // Every slot a cell: a hairline between any two, a wider gap every eight (to count by).
  ctx.strokeStyle = k.panel;
  ctx.lineWidth = cell >= 4 ? 1 : 0.5;
  ctx.beginPath();
  for (let t = 1; t < r.slots; t++) {
    if (t % 8 === 0) continue;
    const tx = sx + t * cell;
    ctx.moveTo(tx, sy);
    ctx.lineTo(tx, sy + 8);
  }
  ctx.stroke();
  ctx.lineWidth = 2;
  ctx.beginPath();
  for (let t = 8; t < r.slots; t += 8) {
    const tx = sx + t * cell;
    ctx.moveTo(tx, sy - 1);
    ctx.lineTo(tx, sy + 9);
  }
  ctx.stroke();
  if (r.placeholder) {
    ctx.strokeStyle = k.fg;
    ctx.lineWidth = 2;
    ctx.strokeRect(sx - 1, sy - 3, cell + 2, 14);
  }
  ctx.globalAlpha = 1;
}

function drawBand(ctx: CanvasRenderingContext2D, p: MicroPaint, r: MicroPaintBand, k: Ink): void {
  const y = r.y;
  ctx.globalAlpha = r.dim ? 0.55 : 1;
  ctx.textAlign = 'left';
  ctx.fillStyle = k.muted;
  ctx.font = `12px ${k.sans}`;
  ctx.fillText('\u22ee', 0, y + 14);
  ctx.fillText(r.label, 14, y + 14);
  ctx.fillText(r.counts, p.wordsX, y + 14);
  let x = p.wordsX;
  for (let i = 0; i < r.bars.length; i += 2) {
    const tn = r.bars[i]!;
    const bw = (p.wordsW * r.bars[i + 1]!) / Math.max(1, r.total);
    const w = Math.max(1, bw);
    ctx.fillStyle = tn >= 0 ? tenantCss(tn) : k.ground;
    ctx.fillRect(x, y + 18, w, 8);
    if (tn < 0) {
      ctx.lineWidth = 1;
      ctx.strokeStyle = k.never;
      ctx.strokeRect(x, y + 18, w, 8);
    }
    x += bw;
  }
  ctx.globalAlpha = 1;
}

/**
 * Draws `paint` on `canvas` at `scale` (devicePixelRatio × zoom), sizing the canvas to the
 * microscope (its width plus MICRO_PAD each side, its height plus MICRO_PAD above and below).
 * Returns whether it drew (false: the canvas already showed this paint).
 */
export function drawMicroscope(canvas: HTMLCanvasElement, paint: MicroPaint, scale: number): boolean {
  const ctx = canvas.getContext('2d');
  if (!ctx) return false;
  const k = ink(canvas);
  const fonts = typeof document !== 'undefined' && document.fonts ? document.fonts.status : '';
  const key = `${k.fg}/${k.panel}/${fonts}/${scale}:${JSON.stringify(paint)}`;
  const w = Math.max(1, Math.round((paint.width + 2 * MICRO_PAD) * scale));
  const h = Math.max(1, Math.round((paint.bottom - paint.top + 2 * MICRO_PAD) * scale));
  if (canvas.width === w && canvas.height === h && drawnKeys.get(canvas) === key) return false;
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
  }
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, w, h);
  ctx.setTransform(scale, 0, 0, scale, MICRO_PAD * scale, (MICRO_PAD - paint.top) * scale);
  ctx.textBaseline = 'alphabetic';
  for (const r of paint.rows) {
    if (r.kind === 'page') drawPage(ctx, paint, r, k);
    else drawBand(ctx, paint, r, k);
  }
  drawnKeys.set(canvas, key);
  return true;
}

const drawnKeys = new WeakMap<HTMLCanvasElement, string>();
