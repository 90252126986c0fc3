/**
 * The timeline chart as a plain module over d3: a UTC time axis in the page's language, zoom and pan
 * (d3-zoom, loaded after the first draw: timelineZoom.ts), and lanes for traffic density (bucketed
 * per pixel), leaked responses, cross-tenant reads and the comparison run, with the report's
 * milestones and the cursor. React owns the <svg>; this module owns what is inside.
 *
 * What is the model's and what is the report's is drawn apart: every lane carries a "model" badge
 * (lanes.ts), milestones the report dates to the minute are lines, and milestones it dates to the day
 * only are bands over the whole day, never a line at 00:00.
 */
import * as d3 from 'd3';
import { markPath, stepAreaPath, type MarkShape } from './marks.ts';
import { LANES, type LaneKey } from './lanes.ts';
import type { InvariantKey } from './invariants.ts';
import { utcScale, type UtcScale } from './utcScale.ts';
import { BADGE_PAD, BADGE_TEXT_GAP, layoutMilestoneLabels, type MilestoneLabelRequest, type PlacedMilestoneLabel } from './milestoneLabels.ts';
import { textMeasurer, type MeasureText } from './textWidth.ts';
import { holdUnsettled } from '../../state/settled.ts';

type ZoomLib = typeof import('./timelineZoom.ts');
type Zoom = d3.ZoomBehavior<SVGRectElement, unknown>;

/** d3-zoom's wheel step (its default wheelDelta), for a wheel turned before d3-zoom is there. */
const wheelDelta = (e: WheelEvent) => -e.deltaY * (e.deltaMode === 1 ? 0.05 : e.deltaMode ? 1 : 0.002) * (e.ctrlKey ? 10 : 1);

/**
 * The time axis over the lanes, drawn as d3-axis's `axisTop(x).tickSizeOuter(0)` draws it (its
 * domain line; each of the scale's ticks a 6 px line with its label 9 px above, centred; the same
 * attributes and half-pixel offset), in the page's code so that d3-axis stays out of the first
 * screen. Each label's datum is its tick's Date.
 */
export function drawAxisTop(g: d3.Selection<SVGGElement, unknown, null, undefined>, x: UtcScale, count: number, format: (d: Date) => string): void {
  const offset = typeof window !== 'undefined' && window.devicePixelRatio > 1 ? 0 : 0.5;
  const [r0, r1] = x.range();
  g.attr('fill', 'none').attr('font-size', 10).attr('font-family', 'sans-serif').attr('text-anchor', 'middle');
  g.selectAll('path.domain')
    .data([null])
    .join((enter) => enter.insert('path', '.tick').attr('class', 'domain').attr('stroke', 'currentColor'))
    .attr('d', `M${r0 + offset},${offset}H${r1 + offset}`);
  g.selectAll<SVGGElement, Date>('g.tick')
    .data(x.ticks(count))
    .join((enter) => {
      const tick = enter.append('g').attr('class', 'tick');
      tick.append('line').attr('stroke', 'currentColor').attr('y2', -6);
      tick.append('text').attr('fill', 'currentColor').attr('y', -9).attr('dy', '0em');
      return tick;
    })
    .attr('opacity', 1)
    .attr('transform', (d) => `translate(${x(d) + offset},0)`)
    .select('text')
    .text(format);
}

/** A request the fixed run answered differently: a 4xx, a 5xx (failed closed), a leak, or a clean 200. */
export interface CompareMark {
  t: number;
  kind: 'rejected' | 'failed' | 'leak' | 'served';
}

export interface TimelineLaneData {
  /** Epoch ms of simulated time 0. */
  startEpochMs: number;
  endMs: number;
  arrivals: Float64Array;
  /** Each property's breaches (invariants.ts); a confidentiality breach the audit saw is a leak. */
  invariants: Record<InvariantKey, { t: number; leaked: boolean }[]>;
  /** What the comparison run did differently, request by request, when one is shown. */
  compareMarks: CompareMark[] | null;
  /** First simulated ms at which the two runs' outcomes differ, and its label. */
  divergence: number | null;
  divergenceLabel: string;
  milestones: ChartMilestone[];
}

/** A milestone of the report: a minute (a line) or a whole UTC day (a band). */
export interface ChartMilestone {
  /** Start, in epoch ms: the minute, or 00:00 UTC of the day. */
  epochMs: number;
  /** The report gives only the day: drawn as a band over it. */
  dayOnly: boolean;
  id: string;
  /** Tooltip: fact id, label, date, and how the date follows from the report. */
  label: string;
  /** What the chart writes under the lanes, longest first: "13:22 incident declared", "13:22". */
  forms: readonly string[];
}

const DAY_MS = 86_400_000;

export interface TimelineCallbacks {
  onSeek: (ms: number) => void;
  onViewChange?: (visible: [number, number]) => void;
  /** A lane's name is hovered or focused (its key and the name's box in the chart's px), or left. */
  onLaneTip?: (tip: { key: LaneKey; x: number; y: number } | null) => void;
}

export interface TimelineChartOptions {
  /**
   * Rows of milestone labels under the lanes (LABEL_ROWS); 0 on the screen layout, whose picture
   * names no milestone under the lanes and needs their height for the lanes themselves.
   */
  labelRows?: number;
}

/** The plot's margins; the scrubber's track under the chart lines up with them. */
// Sized for 12 px text (the smallest the page draws): the axis's labels above the lanes, each lane's
// name and its badge, and the milestone labels' rows.
export const MARGIN = { left: 124, right: 12, top: 24, bottom: 4 };
const LANE_H = 32;
/** Milestone labels sit in rows under the lanes (milestoneLabels.ts). */
export const LABEL_ROWS = 4;
const LABEL_ROW_H = 18;

/**
 * The labels to lay out for the milestones in view: a minute's at its line, a day's at the visible
 * start of its band (so a band that begins left of the view is still named).
 */
export function milestoneLabelRequests(milestones: readonly ChartMilestone[], x: UtcScale, width: number): MilestoneLabelRequest[] {
  const [d0, d1] = x.domain();
  const clampX = (px: number) => Math.max(MARGIN.left, Math.min(width - MARGIN.right, px));
  const out: MilestoneLabelRequest[] = [];
  for (const m of milestones) {
    if (m.dayOnly) {
      if (!(m.epochMs < +d1! && m.epochMs + DAY_MS > +d0!)) continue;
      out.push({ key: `d-${m.id}-${m.epochMs}-${m.forms[0]}`, anchor: clampX(x(m.epochMs)), spanEnd: clampX(x(m.epochMs + DAY_MS)), badge: m.id, forms: m.forms, title: m.label });
    } else {
      const px = x(m.epochMs);
      if (px < MARGIN.left || px > width - MARGIN.right) continue;
      out.push({ key: `m-${m.id}-${m.epochMs}`, anchor: px, badge: m.id, forms: m.forms, title: m.label });
    }
  }
  return out;
}

export class TimelineChart {
  private readonly svg: d3.Selection<SVGSVGElement, unknown, null, undefined>;
  private width = 800;
  private x0: UtcScale = utcScale();
  private x: UtcScale = utcScale();
  private data: TimelineLaneData | null = null;
  private cursorMs = 0;
  /** d3-zoom once loaded; until then zoom operations wait in `zoomQueue` (in order). */
  private zoom: Zoom | null = null;
  private zoomLib: ZoomLib | null = null;
  private zoomLoading = false;
  private readonly zoomQueue: Array<() => void> = [];
  /** The view's zoom; null: the whole run (the identity). */
  private transform: d3.ZoomTransform | null = null;
  private labels: Record<string, string> = {};
  private badge = 'model';
  private tickFormat: ((d: Date) => string) | null = null;
  private laneExplain: Record<string, string> = {};
  private more: ((n: number) => string) | undefined;
  private measurers: Partial<Record<'axis' | 'label' | 'badge', MeasureText>> = {};

  private readonly labelRows: number;

  constructor(element: SVGSVGElement, private readonly callbacks: TimelineCallbacks, options: TimelineChartOptions = {}) {
    this.labelRows = options.labelRows ?? LABEL_ROWS;
    this.svg = d3.select(element);
    // Text is measured in the page's font: once it has loaded, measure and lay out again.
    document.fonts?.ready.then(() => {
      this.measurers = {};
      this.render();
    });
    this.svg.selectAll('*').remove();
    this.svg.append('g').attr('class', 'lane-labels');
    this.svg.append('g').attr('class', 'axis');
    const plot = this.svg.append('g').attr('class', 'plot');
    plot.append('g').attr('class', 'day-bands');
    plot.append('g').attr('class', 'milestones');
    plot.append('g').attr('class', 'milestone-leaders');
    plot.append('g').attr('class', 'milestone-labels');
    plot.append('path').attr('class', 'density');
    for (const lane of LANES) if (lane.key !== 'traffic') plot.append('g').attr('class', `marks marks-${lane.key}`);
    plot.append('rect').attr('class', 'divergence').attr('width', 2);
    plot.append('text').attr('class', 'divergence-label');
    plot.append('line').attr('class', 'cursor');
    const overlay = this.svg.append('rect').attr('class', 'overlay').attr('fill', 'transparent');
    this.attachScrub(overlay.node()!);
    this.attachEarlyWheel(overlay.node()!);
  }

  /**
   * Loads d3-zoom once and attaches it to the overlay: d3-zoom takes the wheel (zoom around the
   * pointer) and a shift-drag (pan); a plain drag scrubs and two fingers pinch (attachScrub), so
   * dragging the chart moves time, not the view. Queued operations run in order once it is there.
   */
  private loadZoom(): void {
    if (this.zoomLoading || this.zoom) return;
    this.zoomLoading = true;
    import('./timelineZoom.ts').then(
      (lib) => {
        const zoom = lib
          .zoom<SVGRectElement, unknown>()
          .scaleExtent([1, 1e6])
          .filter((event: Event) => event.type === 'wheel' || (event.type === 'mousedown' && (event as MouseEvent).shiftKey && (event as MouseEvent).button === 0))
          .on('zoom', (event: d3.D3ZoomEvent<SVGRectElement, unknown>) => {
            this.transform = event.transform;
            this.x = this.transform.rescaleX(this.x0);
            this.render();
            const [a, b] = this.x.domain();
            if (this.data) this.callbacks.onViewChange?.([+a! - this.data.startEpochMs, +b! - this.data.startEpochMs]);
          });
        this.zoomLib = lib;
        this.zoom = zoom;
        this.setZoomExtents();
        const overlay = this.svg.select<SVGRectElement>('rect.overlay');
        // d3-zoom starts from the view's zoom as it is (a chapter may have set none yet: identity).
        overlay.property('__zoom', this.transform ?? lib.zoomIdentity).call(zoom).on('dblclick.zoom', null);
        this.detachEarlyWheel?.();
        for (const op of this.zoomQueue.splice(0)) op();
        this.zoomAwaited?.();
      },
      () => {
        // A failed fetch (offline, a stale deploy): the next gesture asks again.
        this.zoomLoading = false;
        this.zoomAwaited?.();
      },
    );
  }

  /** Runs `op` with d3-zoom now, or as soon as it has loaded. */
  private withZoom(op: (zoom: Zoom, lib: ZoomLib) => void): void {
    if (this.zoom && this.zoomLib) op(this.zoom, this.zoomLib);
    else {
      this.zoomQueue.push(() => op(this.zoom!, this.zoomLib!));
      this.loadZoom();
    }
  }

  private detachEarlyWheel: (() => void) | null = null;
  /** Releases the page's "not at rest" while d3-zoom is awaited (state/settled.ts). */
  private zoomAwaited: (() => void) | null = null;

  /**
   * Before d3-zoom is there, a wheel over the chart (or a pointer coming near it) loads it, and the
   * wheel's zoom is kept and applied around the same point once it has loaded: no turn is lost.
   */
  private attachEarlyWheel(el: SVGRectElement): void {
    const wheel = (e: WheelEvent) => {
      e.preventDefault();
      const at: [number, number] = [e.clientX - this.svg.node()!.getBoundingClientRect().left, this.height / 2];
      const factor = Math.pow(2, wheelDelta(e));
      this.withZoom((zoom) => d3.select(el).call(zoom.scaleBy, factor, at));
    };
    const near = () => this.loadZoom();
    el.addEventListener('wheel', wheel, { passive: false });
    el.addEventListener('pointerenter', near);
    this.detachEarlyWheel = () => {
      el.removeEventListener('wheel', wheel);
      el.removeEventListener('pointerenter', near);
      this.detachEarlyWheel = null;
    };
  }

  private setZoomExtents(): void {
    if (!this.zoom || !this.data) return;
    const span = Math.max(1, this.data.endMs);
    const width = this.width;
    // Zoom in down to about one second across the whole width: "down to one request".
    this.zoom.scaleExtent([1, Math.max(1, span / 1000)]).translateExtent([[MARGIN.left, 0], [width - MARGIN.right, this.height]]).extent([[MARGIN.left, 0], [width - MARGIN.right, this.height]]);
  }

  /**
   * Press to jump, drag to scrub (mouse, pen or one finger; the pointer is captured so the drag
   * follows it off the chart), two fingers to zoom around their midpoint. The instant under the
   * pointer is clamped to the visible window so that scrubbing never pans the view under it.
   */
  private attachScrub(el: SVGRectElement): void {
    const down = new Map<number, number>();
    let pinch: number | null = null;
    const px = (e: PointerEvent) => e.clientX - this.svg.node()!.getBoundingClientRect().left;
    const seekAt = (x: number) => {
      if (!this.data) return;
      const cx = Math.max(MARGIN.left, Math.min(this.width - MARGIN.right, x));
      this.callbacks.onSeek(this.clampMs(+this.x.invert(cx) - this.data.startEpochMs));
    };
    el.addEventListener('pointerdown', (e) => {
      if (e.shiftKey || (e.pointerType === 'mouse' && e.button !== 0)) return;
      down.set(e.pointerId, px(e));
      el.setPointerCapture?.(e.pointerId);
      if (down.size === 1) seekAt(px(e));
      else if (down.size === 2) {
        const [a, b] = [...down.values()];
        pinch = Math.abs(a! - b!);
      }
    });
    el.addEventListener('pointermove', (e) => {
      if (!down.has(e.pointerId)) return;
      down.set(e.pointerId, px(e));
      if (down.size === 1) seekAt(px(e));
      else if (down.size === 2 && pinch !== null) {
        const [a, b] = [...down.values()];
        const d = Math.abs(a! - b!);
        if (pinch > 4 && d > 4) {
          const factor = d / pinch;
          const at: [number, number] = [(a! + b!) / 2, this.height / 2];
          this.withZoom((zoom) => d3.select(el).call(zoom.scaleBy, factor, at));
        }
        pinch = d;
      }
    });
    const up = (e: PointerEvent) => {
      down.delete(e.pointerId);
      if (down.size < 2) pinch = null;
    };
    el.addEventListener('pointerup', up);
    el.addEventListener('pointercancel', up);
  }

  /** A text measurer in the type of the axis (12 px), the labels (bold 12 px) or their badges (12 px). */
  private measure(kind: 'axis' | 'label' | 'badge'): MeasureText {
    return (this.measurers[kind] ??= textMeasurer(this.svg.node()!, kind === 'label' ? 700 : 400, 12));
  }

  /** The visible window, in simulated ms. */
  visibleMs(): [number, number] {
    const [a, b] = this.x.domain();
    const start = this.data?.startEpochMs ?? 0;
    return [+a! - start, +b! - start];
  }

  get height(): number {
    return this.lanesBottom + this.labelRows * LABEL_ROW_H + MARGIN.bottom;
  }

  private get lanesBottom(): number {
    return MARGIN.top + LANES.length * LANE_H;
  }

  /**
   * Lane labels, the word on each lane's model badge, the axis's tick format (format.ts) and a
   * milestone label's count of the others it holds ("+4 more"), in the page's language.
   */
  setLabels(labels: Record<string, string>, badge: string, tickFormat: (d: Date) => string, laneExplain: Record<string, string> = {}, more?: (n: number) => string): void {
    this.labels = labels;
    this.laneExplain = laneExplain;
    this.badge = badge;
    this.tickFormat = tickFormat;
    this.more = more;
  }

  setData(data: TimelineLaneData, width: number): void {
    const domainChanged = !this.data || this.data.startEpochMs !== data.startEpochMs || this.data.endMs !== data.endMs;
    this.data = data;
    this.width = width;
    this.x0 = utcScale([data.startEpochMs, data.startEpochMs + Math.max(1, data.endMs)], [MARGIN.left, width - MARGIN.right]);
    this.setZoomExtents();
    if (domainChanged) this.transform = null;
    this.x = this.transform ? this.transform.rescaleX(this.x0) : this.x0.copy();
    this.svg.attr('width', width).attr('height', this.height).attr('viewBox', `0 0 ${width} ${this.height}`);
    this.svg.select<SVGRectElement>('rect.overlay').attr('x', MARGIN.left).attr('y', 0).attr('width', Math.max(0, width - MARGIN.left - MARGIN.right)).attr('height', this.height);
    this.render();
    this.callbacks.onViewChange?.(this.visibleMs());
    // d3-zoom once the first draw is on screen and the browser is idle (a gesture loads it sooner).
    // Until it is there the page is not at rest (state/settled.ts): its arrival redraws the scrub bar.
    if (!this.zoomLoading && !this.zoomAwaited) {
      const release = holdUnsettled();
      this.zoomAwaited = release;
      if (typeof requestIdleCallback === 'function') requestIdleCallback(() => this.loadZoom(), { timeout: 1000 });
      else setTimeout(() => this.loadZoom(), 100);
    }
  }

  setCursor(ms: number): void {
    this.cursorMs = ms;
    this.renderCursor();
  }

  /** Zooms by `factor` around the cursor (keyboard zoom). */
  zoomBy(factor: number): void {
    const rect = this.svg.select<SVGRectElement>('rect.overlay');
    if (!this.data) return;
    this.withZoom((zoom) => {
      const cx = this.x(new Date(this.data!.startEpochMs + this.cursorMs));
      rect.call(zoom.scaleBy, factor, [cx, this.height / 2]);
    });
  }

  /** Shows the window [fromMs, toMs] of simulated time across the plot. */
  zoomTo(fromMs: number, toMs: number): void {
    if (!this.data || !(toMs > fromMs)) return;
    const a = this.x0(new Date(this.data.startEpochMs + fromMs));
    const b = this.x0(new Date(this.data.startEpochMs + toMs));
    // rescaleX maps x0(t) to k·x0(t) + tx: put `a` at the plot's left edge.
    const k = Math.max(1, (this.width - MARGIN.right - MARGIN.left) / Math.max(1e-9, b - a));
    this.withZoom((zoom, lib) => this.svg.select<SVGRectElement>('rect.overlay').call(zoom.transform, lib.zoomIdentity.translate(MARGIN.left - k * a, 0).scale(k)));
  }

  resetZoom(): void {
    this.withZoom((zoom, lib) => this.svg.select<SVGRectElement>('rect.overlay').call(zoom.transform, lib.zoomIdentity));
  }

  /** Keeps the cursor in view when playback or the keyboard moves it out. */
  follow(ms: number): void {
    if (!this.data) return;
    const px = this.x(new Date(this.data.startEpochMs + ms));
    if (px < MARGIN.left || px > this.width - MARGIN.right) {
      const rect = this.svg.select<SVGRectElement>('rect.overlay');
      const to = this.x0(new Date(this.data.startEpochMs + ms));
      this.withZoom((zoom) => rect.call(zoom.translateTo, to, this.height / 2));
    }
  }

  visibleSpanMs(): number {
    const [a, b] = this.x.domain();
    return +b! - +a!;
  }

  private clampMs(ms: number): number {
    return Math.max(0, Math.min(this.data?.endMs ?? 0, ms));
  }

  private laneY(lane: LaneKey): number {
    return MARGIN.top + LANES.findIndex((l) => l.key === lane) * LANE_H;
  }

  private render(): void {
    const data = this.data;
    if (!data) return;
    const x = this.x;
    const toX = (ms: number) => x(new Date(data.startEpochMs + ms));
    const visible = (ms: number) => {
      const px = toX(ms);
      return px >= MARGIN.left && px <= this.width - MARGIN.right;
    };
    drawAxisTop(this.svg.select<SVGGElement>('g.axis').attr('transform', `translate(0,${MARGIN.top})`), x, Math.max(2, Math.floor(this.width / 120)), this.tickFormat ?? String);
    // A label centred on a tick near either edge would run out of the drawing (10 Sep, the window's
    // exclusive end): it is left out rather than cut, its tick kept. Its width is measured.
    const measureTick = this.measure('axis');
    const width = this.width;
    this.svg.selectAll<SVGTextElement, Date>('g.axis g.tick text').attr('display', function (d) {
      const half = measureTick(this.textContent ?? '') / 2;
      return x(d) - half >= 0 && x(d) + half <= width ? null : 'none';
    });

    // Each lane: its name, and a "model" badge under it (every lane is drawn from the model's run).
    const lanes = this.svg
      .select('g.lane-labels')
      .selectAll<SVGGElement, (typeof LANES)[number]>('g.lane')
      .data(LANES, (l) => l.key)
      .join((enter) => {
        const g = enter.append('g').attr('class', 'lane');
        g.append('text').attr('class', 'lane-name');
        g.append('rect').attr('class', 'lane-badge').attr('rx', 3);
        g.append('text').attr('class', 'lane-badge-text');
        g.append('title');
        // Focusable, so that the lane's explanation shows on focus as on hover (Timeline.tsx draws it).
        g.attr('tabindex', 0).attr('role', 'note').attr('data-testid', (l) => `lane-${l.key}`);
        const tip = (l: (typeof LANES)[number], el: SVGGElement) => {
          const box = el.getBBox();
          this.callbacks.onLaneTip?.({ key: l.key, x: 4 + box.x, y: this.laneY(l.key) + box.y + box.height });
        };
        g.on('pointerenter focus', function (_e, l) {
          tip(l, this);
        });
        g.on('pointerleave blur', () => this.callbacks.onLaneTip?.(null));
        return g;
      });
    lanes.attr('data-evidence', (l) => ('model' in l.evidence ? 'model' : 'assumption')).attr('transform', (l) => `translate(4,${this.laneY(l.key)})`);
    lanes.select('text.lane-name').attr('y', 13).text((l) => this.labels[l.key] ?? l.key);
    const badgeW = Math.max(32, this.badge.length * 6.8 + 8);
    lanes.select('rect.lane-badge').attr('x', 0).attr('y', 16).attr('width', badgeW).attr('height', 14);
    lanes.select('text.lane-badge-text').attr('x', 4).attr('y', 27).text(this.badge);
    lanes.select('title').text((l) => `${this.labels[l.key] ?? l.key} · ${this.badge}${'assumptions' in l.evidence ? ` (${l.evidence.assumptions.join(', ')})` : ''}`);
    lanes.attr('aria-label', (l) => this.laneExplain[l.key] ?? this.labels[l.key] ?? l.key);

    // Traffic density: arrivals counted per 2-px bucket over the visible range.
    const bucketPx = 2;
    const left = MARGIN.left;
    const buckets = new Float64Array(Math.max(1, Math.ceil((this.width - MARGIN.left - MARGIN.right) / bucketPx)));
    for (let i = 0; i < data.arrivals.length; i++) {
      const px = toX(data.arrivals[i]!);
      if (px < left || px > this.width - MARGIN.right) continue;
      buckets[Math.min(buckets.length - 1, Math.floor((px - left) / bucketPx))]!++;
    }
    const max = Math.max(0, ...buckets) || 1;
    const y0 = this.laneY('traffic') + LANE_H - 2;
    this.svg.select('path.density').attr('d', stepAreaPath(left, bucketPx, y0, buckets.map((v) => y0 - (v / max) * (LANE_H - 4))));

    // One lane per property, one mark per breach or per changed outcome; the shape says what it
    // is, so that colour is never the only cue.
    const marks = (lane: LaneKey, items: { t: number; shape: MarkShape; cls: string }[]) => {
      const y = this.laneY(lane) + LANE_H / 2;
      this.svg
        .select(`g.marks-${lane}`)
        .selectAll('path')
        .data(items.filter((m) => visible(m.t)))
        .join('path')
        .attr('class', (m) => m.cls)
        .attr('d', (m) => markPath(m.shape, m.shape === 'triangle' ? 42 : 30))
        .attr('transform', (m) => `translate(${toX(m.t)},${y})`);
    };
    marks('confidentiality', data.invariants.confidentiality.map((b) => ({ t: b.t, shape: b.leaked ? 'triangle' : 'diamond', cls: b.leaked ? 'leak' : 'breach' })));
    marks('integrity', data.invariants.integrity.map((b) => ({ t: b.t, shape: 'diamond', cls: 'breach' })));
    marks('admission', data.invariants.admission.map((b) => ({ t: b.t, shape: 'square', cls: 'breach' })));
    const compareShape = { leak: 'triangle', rejected: 'square', failed: 'cross', served: 'circle' } as const;
    marks('compare', (data.compareMarks ?? []).map((m) => ({ t: m.t, shape: compareShape[m.kind], cls: m.kind })));

    const top = MARGIN.top;
    const bottom = this.lanesBottom;
    const div = this.svg.select('rect.divergence');
    const divLabel = this.svg.select('text.divergence-label');
    if (data.divergence !== null && visible(data.divergence)) {
      const dx = toX(data.divergence);
      div.attr('x', dx - 1).attr('y', top).attr('height', bottom - top).attr('display', null);
      // The label reads away from the nearer edge, inside the fix lane.
      const right = dx > (MARGIN.left + this.width - MARGIN.right) / 2;
      divLabel.attr('x', right ? dx - 4 : dx + 4).attr('y', this.laneY('compare') + 12).attr('text-anchor', right ? 'end' : 'start').attr('display', null).text(data.divergenceLabel);
    } else {
      div.attr('display', 'none');
      divLabel.attr('display', 'none');
    }

    // Day-only milestones: a band over the whole UTC day, its fact id at the top.
    const [d0, d1] = x.domain() as [Date, Date];
    const bands = this.svg
      .select('g.day-bands')
      .selectAll<SVGGElement, ChartMilestone>('g')
      // One band a day, however many of the report's facts fall on it (9 Sep holds three): its labels name them.
      .data(
        data.milestones.filter((m, i, all) => m.dayOnly && m.epochMs < +d1 && m.epochMs + DAY_MS > +d0 && all.findIndex((o) => o.dayOnly && o.epochMs === m.epochMs) === i),
        (m) => String(m.epochMs),
      )
      .join((enter) => {
        const g = enter.append('g').attr('class', 'day-band');
        g.append('rect');
        g.append('title');
        return g;
      });
    const clampX = (px: number) => Math.max(MARGIN.left, Math.min(this.width - MARGIN.right, px));
    bands.each(function (m, i) {
      const g = d3.select(this);
      const a = clampX(x(new Date(m.epochMs)));
      const b = clampX(x(new Date(m.epochMs + DAY_MS)));
      g.select('rect').attr('x', a).attr('y', top).attr('width', Math.max(1, b - a)).attr('height', bottom - top);
      g.select('title').text(data.milestones.filter((o) => o.dayOnly && o.epochMs === m.epochMs).map((o) => o.label).join('\n'));
      void i;
    });

    const ms = this.svg
      .select('g.milestones')
      .selectAll<SVGGElement, ChartMilestone>('g')
      .data(data.milestones.filter((m) => !m.dayOnly && visible(m.epochMs - data.startEpochMs)), (m) => m.id + m.label)
      .join((enter) => {
        const g = enter.append('g');
        g.append('line');
        g.append('title');
        return g;
      });
    ms.attr('transform', (m) => `translate(${toX(m.epochMs - data.startEpochMs)},0)`);
    ms.select('line').attr('y1', top).attr('y2', bottom);
    ms.select('title').text((m) => m.label);

    // Labels of both kinds, in words with their time or day, in rows under the lanes so that none
    // overlaps another or leaves the drawing (milestoneLabels.ts; 9 Sep holds seven of them).
    const labelTop = this.lanesBottom;
    const measureBadge = this.measure('badge');
    let placed: PlacedMilestoneLabel[] = [];
    try {
      if (this.labelRows > 0) placed = layoutMilestoneLabels(milestoneLabelRequests(data.milestones, x, this.width), { left: 2, right: this.width - 2, rows: this.labelRows, measureText: this.measure('label'), measureBadge, ...(this.more ? { more: this.more } : {}) });
    } catch {
      // A drawing too narrow for even one label: the milestone list under the chart still has them all.
    }
    const rowBase = (p: PlacedMilestoneLabel) => labelTop + (p.row + 1) * LABEL_ROW_H - 4;
    // Leaders first, so that a label of a row below is drawn over the leaders it crosses.
    this.svg
      .select('g.milestone-leaders')
      .selectAll<SVGLineElement, PlacedMilestoneLabel>('line')
      .data(placed, (p) => p.key)
      .join('line')
      .attr('x1', (p) => p.leader)
      .attr('x2', (p) => p.leader)
      .attr('y1', labelTop)
      .attr('y2', (p) => rowBase(p) - 12);
    const labels = this.svg
      .select('g.milestone-labels')
      .selectAll<SVGGElement, PlacedMilestoneLabel>('g')
      .data(placed, (p) => p.key)
      .join((enter) => {
        const g = enter.append('g').attr('class', 'milestone-label');
        g.append('rect').attr('class', 'label-back');
        g.append('rect').attr('class', 'label-badge').attr('rx', 3);
        g.append('text').attr('class', 'label-badge-text');
        g.append('text').attr('class', 'label-text');
        g.append('title');
        return g;
      });
    labels.attr('data-row', (p) => p.row).attr('data-fact', (p) => p.badge).attr('data-gathered', (p) => p.gathered.length).attr('transform', (p) => `translate(${p.x},0)`);
    labels.select('rect.label-back').attr('x', 0).attr('y', (p) => rowBase(p) - 13).attr('width', (p) => p.width).attr('height', 16);
    labels.select('rect.label-badge').attr('x', 0).attr('y', (p) => rowBase(p) - 12).attr('width', (p) => p.badgeWidth).attr('height', 15);
    labels.select('text.label-badge-text').attr('x', BADGE_PAD).attr('y', rowBase).text((p) => p.badge);
    labels.select('text.label-text').attr('x', (p) => p.badgeWidth + BADGE_TEXT_GAP).attr('y', rowBase).text((p) => p.text);
    labels.select('title').text((p) => p.title);
    this.renderCursor();
  }

  private renderCursor(): void {
    if (!this.data) return;
    const px = this.x(new Date(this.data.startEpochMs + this.cursorMs));
    this.svg.select('line.cursor').attr('x1', px).attr('x2', px).attr('y1', 2).attr('y2', this.height - MARGIN.bottom);
  }
}
