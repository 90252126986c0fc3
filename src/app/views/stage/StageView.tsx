import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { CSSProperties } from 'react';
import { useCompareRun, useMainRun, useRequestDetail, type RequestDetail, type RunSummary, type Snapshot } from '../../run/hooks.ts';
import { useT } from '../../i18n/i18n.ts';
import type { Translate } from '../../i18n/i18n.ts';
import { formatNumber, type Lang } from '../../i18n/format.ts';
import { useApp } from '../../state/store.ts';
import { tenantCss, tenantInk } from '../shared/palette.ts';
import { AssumptionBadge, FactBadge, ModelBadge } from '../shared/Evidence.tsx';
import { RequestPicker } from '../shared/RequestPicker.tsx';
import { highlightable } from '../shared/highlight.ts';
import { describeEvent } from '../shared/engineText.ts';
import { stageFrame, stageSteps, stepIndexAt, type StageFrame, type StageStep } from './stageFrame.ts';
import { along, pageCenter, poolOf, rangeOutline, stageLayout, type StageLayout } from './stageLayout.ts';
import { drawStagePools } from './stagePools.ts';
import { ADVERTISED_CONTEXT_TOKENS } from '../../../engine/index.ts';
import './stage.css';

export interface StageViewProps {
  /** A page to ring on the stage (a response token's source, from the token↔page linking). */
  linkedPage?: { node: string; page: number } | null;
  /** Show the request picker above the diagram (default true). */
  picker?: boolean;
}

function useReducedMotion(): boolean {
  const query = '(prefers-reduced-motion: reduce)';
  const [reduced, setReduced] = useState(() => typeof window !== 'undefined' && window.matchMedia?.(query).matches === true);
  useEffect(() => {
    const m = window.matchMedia?.(query);
    if (!m) return;
    const on = () => setReduced(m.matches);
    m.addEventListener('change', on);
    return () => m.removeEventListener('change', on);
  }, []);
  return reduced;
}

/** The width the stage has, to choose the wide or the phone arrangement and size the canvas. */
function useWidth(el: React.RefObject<HTMLElement | null>): number {
  const [w, setW] = useState(0);
  useLayoutEffect(() => {
    const node = el.current;
    if (!node) return;
    setW(node.clientWidth);
    const ro = new ResizeObserver(() => setW(node.clientWidth));
    ro.observe(node);
    return () => ro.disconnect();
  }, [el]);
  return w;
}

/** The sentence for a stage step, in the page's language (the engine's events through engineText). */
export function stepSentence(step: StageStep | undefined, events: readonly RequestDetail['events'][number][], t: Translate, lang: Lang, run: RunSummary, reserved: number): string {
  if (!step) return t('st_idle');
  const e = events[step.event]!;
  const fmt = (n: number) => formatNumber(n, lang);
  const req = events[0]?.req ?? 0;
  const ctx = { lang, phase: run.phases[run.requests.phase[req]!], events };
  switch (step.id) {
    case 'tokenizer':
      return t('st_tokenizer', { tokens: fmt(e.type === 'arrive' ? e.tokens : 0) });
    case 'stream':
      return t('st_stream', { pages: fmt(reserved) });
    case 'reuse':
      return t('st_reuse');
    default:
      return describeEvent(e, t, ctx);
  }
}

/**
 * From a response token up to the page it drew on most: up out of the tokens box, across to the gap
 * left of the decode nodes, then to the page, so the line never crosses the prefill node.
 */
function joinPath(x0: number, y0: number, x1: number, y1: number, layout: StageLayout): string {
  if (layout.narrow) return `M${x0},${y0} L${x0},${layout.tokens.y + 18} L4,${layout.tokens.y + 18} L4,${y1} L${x1},${y1}`;
  const gap = layout.pools.find((p) => p.kind === 'decode')!.box.x - 12;
  const lane = layout.tokens.y + 18;
  return `M${x0},${y0} L${x0},${lane} L${gap},${lane} L${gap},${y1} L${x1},${y1}`;
}

/** The first prefill page the request holds while prefill holds it (from prefill-alloc to prefill-free), or null. */
function prefillRing(detail: RequestDetail, frame: StageFrame, steps: readonly StageStep[]): number | null {
  const alloc = steps.findIndex((s) => s.id === 'prefill-alloc');
  const free = steps.findIndex((s) => s.id === 'prefill-free');
  if (alloc < 0 || frame.stepIndex < alloc || (free >= 0 && frame.stepIndex >= free)) return null;
  const e = detail.events[steps[alloc]!.event]!;
  return e.type === 'prefill-alloc' ? (e.pages[0]?.[0] ?? null) : null;
}

/**
 * How many of `pages` a request other than `req` holds. A small function of its own: the loop runs
 * over every page of the block table on each frame after the free, and V8 optimises it sooner here.
 */
function claimedBy(pages: readonly number[], owner: Int32Array, req: number): number {
  let n = 0;
  for (let i = 0; i < pages.length; i++) {
    const o = owner[pages[i]!]!;
    if (o >= 0 && o !== req) n++;
  }
  return n;
}

/** The first `lit` pages of the block table's ranges, as ranges. */
function litRanges(ranges: readonly [number, number][], lit: number): [number, number][] {
  const out: [number, number][] = [];
  let left = lit;
  for (const [first, count] of ranges) {
    if (left <= 0) break;
    out.push([first, Math.min(count, left)]);
    left -= count;
  }
  return out;
}

interface ChipProps {
  x: number;
  y: number;
  w: number;
  word: string;
  /** The tenant whose KV the token drew on most (−1: none). */
  writer: number;
  foreign: boolean;
  active: boolean;
  /** Out yet: every chip stays in the DOM and is hidden until its token streams, so a scrub step
   * across the response flips one attribute per chip instead of building and removing the chips. */
  shown: boolean;
}

/** One response token; memoised, so a frame re-renders only the chips whose state changed. */
const TokenChip = memo(function TokenChip({ x, y, w, word, writer, foreign, active, shown }: ChipProps) {
  return (
    <g lang="en" className={`st-chip${foreign ? ' st-foreign' : ''}${active ? ' st-active' : ''}`} visibility={shown ? undefined : 'hidden'}>
      <rect x={x} y={y - 14} width={w} height={20} rx={3} fill={writer >= 0 ? tenantCss(writer) : '#ddd'} />
      <text x={x + w / 2} y={y} textAnchor="middle" fill={writer >= 0 ? tenantInk(writer) : '#222'}>
        {word}
      </text>
    </g>
  );
});

interface SlotsProps {
  x: number;
  y: number;
  slots: number;
  cols: number;
  slotW: number;
  slotH: number;
  written: boolean;
  fill: string;
}

/**
 * The slots of page 0 of the block table; memoised. Whether the page is written is one class on
 * the group (the stylesheet draws every slot empty until then), so writing it changes one attribute.
 */
const ZoomSlots = memo(function ZoomSlots({ x: x0, y: y0, slots, cols, slotW, slotH, written, fill }: SlotsProps) {
  return (
    <g className={`st-slots${written ? '' : ' st-unwritten'}`}>
      <SlotRects x={x0} y={y0} slots={slots} cols={cols} slotW={slotW} slotH={slotH} fill={fill} />
    </g>
  );
});

const SlotRects = memo(function SlotRects({ x: x0, y: y0, slots, cols, slotW, slotH, fill }: Omit<SlotsProps, 'written'>) {
  return (
    <>
      {Array.from({ length: slots }, (_, s) => {
        const x = x0 + (s % cols) * slotW;
        const y = y0 + Math.floor(s / cols) * (slotH + 2);
        return <rect key={s} x={x + 0.5} y={y} width={slotW - 1} height={slotH} className={s === 0 ? 'st-slot-placeholder' : 'st-slot-copied'} fill={s === 0 ? fill : undefined} />;
      })}
    </>
  );
});

interface StaticProps {
  layout: StageLayout;
  row: 'main' | 'fix';
  tenantName: string;
  /** The nodes the request goes through, outlined ("prefill-0,decode-1"). */
  selected: string;
}

/**
 * What does not move while the scrubber does: the boxes, their titles, the wires and the link.
 * Memoised, so that a scrub step reconciles only the parts of the diagram that change with time.
 */
const StageStatic = memo(function StageStatic({ layout, row, tenantName, selected }: StaticProps) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const fmt = (n: number) => formatNumber(n, lang);
  const narrow = layout.narrow;
  const chosen = selected.split(',');
  const prefillPool = layout.pools.find((p) => p.kind === 'prefill' && chosen.includes(p.node)) ?? poolOf(layout, 'prefill-0');
  const decodePool = layout.pools.find((p) => p.kind === 'decode' && chosen.includes(p.node));
  return (
    <>
      <defs>
        <marker id={`arrow-${row}`} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
          <path d="M0,0 L10,5 L0,10 z" fill="#555" />
        </marker>
      </defs>
      {/* Client and router */}
      <g className="st-node">
        <rect x={layout.client.x} y={layout.client.y} width={layout.client.w} height={layout.client.h} rx={6} />
        <text x={layout.client.x + 8} y={layout.client.y + 18} className="st-title">
          {t('stageClient')}
        </text>
        <text x={layout.client.x + 8} y={layout.client.y + 34} className="st-sub">
          {tenantName}
        </text>
      </g>
      <g className="st-node">
        <rect x={layout.router.x} y={layout.router.y} width={layout.router.w} height={layout.router.h} rx={6} />
        <text x={layout.router.x + 8} y={layout.router.y + 18} className="st-title">
          {t('stageRouter')}
        </text>
      </g>
      <line x1={layout.client.x + layout.client.w} y1={layout.client.y + 30} x2={layout.router.x} y2={layout.router.y + 30} className="st-wire" />
      {prefillPool ? (
        <line
          x1={narrow ? layout.router.x + 40 : layout.router.x + layout.router.w}
          y1={narrow ? layout.router.y + layout.router.h : layout.router.y + 30}
          x2={narrow ? layout.router.x + 40 : prefillPool.box.x}
          y2={narrow ? prefillPool.box.y : layout.router.y + 30}
          className="st-wire"
        />
      ) : null}
      {/* Nodes and their pools (the pools themselves are on the canvas underneath) */}
      {layout.pools.map((pool) => {
        const isSelected = chosen.includes(pool.node);
        return (
          <g key={pool.node} className={`st-node${isSelected ? ' st-selected' : ''}`}>
            <rect x={pool.box.x} y={pool.box.y} width={pool.box.w} height={pool.box.h} rx={6} />
            <text x={pool.box.x + 10} y={pool.box.y + 18} className="st-title">
              {t(pool.kind === 'prefill' ? 'stagePrefill' : 'stageDecode', { node: pool.node })}
            </text>
            <text x={pool.box.x + 10} y={pool.box.y + 33} className="st-sub">
              {t('stagePoolPages', { pages: fmt(pool.pageCount) })}
            </text>
            <rect x={pool.rect.x - 0.5} y={pool.rect.y - 0.5} width={pool.rect.w + 1} height={pool.rect.h + 1} className="st-pool-frame" />
          </g>
        );
      })}
      {/* RDMA link and control channel */}
      {prefillPool && decodePool ? (
        <g>
          <line x1={layout.link[0].x} y1={layout.link[0].y} x2={layout.link[1].x} y2={layout.link[1].y} className="st-link" markerEnd={`url(#arrow-${row})`} />
          <text x={layout.link[0].x + 8} y={layout.link[0].y + (narrow ? 14 : 16)} className="st-sub">
            {t('stageRdma')}
          </text>
          <line x1={layout.control[0].x} y1={layout.control[0].y} x2={layout.control[1].x} y2={layout.control[1].y} className="st-control" />
        </g>
      ) : null}
    </>
  );
});

interface RowProps {
  run: RunSummary;
  req: number;
  time: number;
  detail: RequestDetail;
  narrow: boolean;
  scale: number;
  reducedMotion: boolean;
  linkedPage: { node: string; page: number } | null;
  row: 'main' | 'fix';
}

function rowFrame(detail: RequestDetail, time: number, steps: StageStep[], reducedMotion: boolean): StageFrame {
  return stageFrame(detail.events, time, { tokenCount: detail.response.tokens.length, reducedMotion, steps });
}

/** One diagram (the run as deployed, or the comparison run with a fix) at the scrubber's instant. */
function StageRow({ run, req, time, detail, narrow, scale, reducedMotion, linkedPage, row }: RowProps) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const fmt = (n: number) => formatNumber(n, lang);
  const steps = useMemo(() => stageSteps(detail.events), [detail]);
  const frame = rowFrame(detail, time, steps, reducedMotion);
  const snapshot: Snapshot | null = run.refused ? null : run.seek(time);
  const nodes = snapshot?.nodes ?? [];
  // The decode node the router picks (the link points there from the start).
  const routeDecode = useMemo(() => {
    const r = detail.events.find((e) => e.type === 'route');
    return r && r.type === 'route' ? r.decode : 0;
  }, [detail]);
  const shapes = nodes.map((n) => `${n.name}:${n.kind}:${n.pageCount}`).join(',');
  const layout: StageLayout = useMemo(
    () =>
      stageLayout(
        shapes.split(',').filter(Boolean).map((s) => {
          const [name, kind, pages] = s.split(':');
          return { name: name!, kind: kind as 'prefill' | 'decode', pageCount: Number(pages) };
        }),
        narrow,
        routeDecode,
      ),
    [shapes, narrow, routeDecode],
  );
  const canvas = useRef<HTMLCanvasElement>(null);
  const tenant = run.tenants.indexOf(detail.response.tenant);
  const words = detail.words;
  const tokens = detail.response.tokens;
  const prov = detail.response.provenance;
  const pageSize = snapshot?.pageSize ?? 64;

  useLayoutEffect(() => {
    const c = canvas.current;
    const ctx = c?.getContext('2d');
    if (!c || !ctx || !snapshot) return;
    const w = Math.max(1, Math.round(layout.width * scale));
    const h = Math.max(1, Math.round(layout.height * scale));
    if (c.width !== w || c.height !== h) {
      c.width = w;
      c.height = h;
    }
    drawStagePools(ctx, layout, snapshot, { req, requesterTenant: tenant, frame, scanTrail: Math.max(1, Math.ceil(frame.reserved.length / 10)) }, scale);
    // For the benchmarks: which instant the canvas shows.
    c.dataset.drawnT = String(time);
  });

  const decodeName = `decode-${routeDecode}`;
  // After the free: how many of its former pages later reservations hold at this instant (the page model's owners).
  const decodeNode = frame.freed ? snapshot?.nodes.find((n) => n.name === decodeName) : undefined;
  const claimed = decodeNode ? claimedBy(frame.reserved, decodeNode.owner, req) : 0;
  const decodePool = decodeName ? poolOf(layout, decodeName) : undefined;
  const prefillPool = poolOf(layout, frame.prefillNode !== null ? `prefill-${frame.prefillNode}` : 'prefill-0');
  const reserveRanges = useMemo(() => {
    const e = detail.events.find((x) => x.type === 'decode-reserve');
    return e && e.type === 'decode-reserve' ? e.pages : [];
  }, [detail]);

  // The request card: where the prompt is, and how many tokens it carries now.
  const cardAt = (() => {
    // Along the lane above the nodes (on a phone: over each box in turn).
    const c = { x: layout.client.x + layout.client.w / 2, y: layout.lane };
    const r = { x: layout.router.x + layout.router.w / 2, y: layout.lane };
    const p = prefillPool ? (narrow ? { x: prefillPool.box.x + prefillPool.box.w / 2, y: prefillPool.box.y - 30 } : { x: prefillPool.box.x + prefillPool.box.w / 2, y: layout.lane }) : r;
    const lerp = (a: { x: number; y: number }, b: { x: number; y: number }, k: number) => ({ x: a.x + (b.x - a.x) * k, y: a.y + (b.y - a.y) * k });
    if (frame.step === 'idle') return null;
    if (frame.step === 'arrive') return lerp(c, r, frame.progress);
    if (frame.step === 'route') return lerp(r, p, frame.progress);
    if (frame.promptAt === 'router') return r;
    if (frame.promptAt === 'prefill') return p;
    if (frame.promptAt === 'gone') return null;
    return c;
  })();
  // The prompt bar's full length is the advertised context (F14), from the engine's defaults.
  const advertised = ADVERTISED_CONTEXT_TOKENS;
  const barMax = narrow ? 150 : 130;
  const barW = (n: number) => Math.max(1.5, (barMax * Math.min(n, advertised)) / advertised);
  const placeholder = frame.inputTokens === 1 && frame.promptTokens > 1;

  const beamPoint = along(layout.link, frame.beamProgress);
  const msgPoint = frame.message ? along(layout.control, frame.message.progress) : null;
  const statusPoint = frame.status !== null || frame.step === 'response' || frame.step === 'reject' ? along(frame.step === 'reject' ? [{ x: layout.router.x + layout.router.w / 2, y: layout.router.y + layout.router.h }, layout.statusPath[2]!] : layout.statusPath, frame.statusProgress) : null;

  // Token chips, wrapped inside the tokens box.
  const chips = useMemo(() => {
    const out: { x: number; y: number; w: number; word: string; i: number }[] = [];
    let x = layout.tokens.x;
    let y = layout.tokens.y + 40;
    for (let i = 0; i < tokens.length; i++) {
      const word = words[tokens[i]!] ?? String(tokens[i]);
      const w = Math.min(160, 14 + word.length * 7.8);
      if (x + w > layout.tokens.x + layout.tokens.w) {
        x = layout.tokens.x;
        y += 24;
      }
      out.push({ x, y, w, word, i });
      x += w + 4;
    }
    return out;
  }, [tokens, words, layout]);

  const active = frame.activeToken !== null ? chips[frame.activeToken] : undefined;
  const activeProv = frame.activeToken !== null ? prov[frame.activeToken] : undefined;
  const activePool = activeProv ? poolOf(layout, activeProv.node) : undefined;
  const activeCenter = activeProv && activePool ? pageCenter(activePool, activeProv.page) : null;
  const linkedPool = linkedPage ? poolOf(layout, linkedPage.node) : undefined;
  const linkedCenter = linkedPage && linkedPool && linkedPage.page < linkedPool.pageCount ? pageCenter(linkedPool, linkedPage.page) : null;
  const page0 = frame.reserved[0] ?? (reserveRanges[0]?.[0] ?? null);
  const page0Written = frame.pagesWritten > 0;
  const slots = pageSize;
  const zoomCols = narrow ? 32 : 32;
  const slotW = (layout.zoom.w - 20) / zoomCols;
  const slotH = Math.min(14, slotW);
  const sentence = stepSentence(steps[frame.stepIndex], detail.events, t, lang, run, frame.reserved.length || (reserveRanges[0]?.[1] ?? 0));
  const font = 13;
  const selectedPools = [decodeName, frame.prefillNode !== null ? `prefill-${frame.prefillNode}` : null].filter(Boolean).join(',');

  return (
    <div
      className={`stage-row${narrow ? ' narrow' : ''}`}
      data-row={row}
      data-step={frame.step}
      data-step-index={frame.stepIndex}
      data-beam-pages={frame.beamPages}
      data-tokens-shown={frame.tokensShown}
      data-status={frame.status ?? ''}
      data-reserved-lit={frame.reservedLit}
      data-input-tokens={frame.inputTokens}
      data-testid={`stage-${row}`}
    >
      <div className="stage-canvas-wrap" style={{ aspectRatio: `${layout.width} / ${layout.height}`, '--stage-ratio': String(layout.width / layout.height) } as CSSProperties}>
        <canvas ref={canvas} className="stage-canvas" aria-hidden="true" data-testid={`stage-canvas-${row}`} />
        <svg viewBox={`0 0 ${layout.width} ${layout.height}`} className="stage-svg" role="img" aria-label={t('stageFigureLabel', { sentence })} fontSize={font}>
          <StageStatic layout={layout} row={row} tenantName={detail.response.tenant} selected={selectedPools} />
          <text x={layout.router.x + 8} y={layout.router.y + layout.router.h - 26} className={`st-sub${frame.step === 'tokenizer' ? ' st-on' : ''}`}>
            {frame.stepIndex >= steps.findIndex((s) => s.id === 'tokenizer') && steps.some((s) => s.id === 'tokenizer') ? '\u2713 ' : ''}
            {t('stageTokenizer')}
          </text>
          <text x={layout.router.x + 8} y={layout.router.y + layout.router.h - 10} className={`st-sub${frame.step === 'abort' ? ' st-on' : ''}`}>
            {steps.some((s) => s.id === 'abort') && frame.stepIndex >= steps.findIndex((s) => s.id === 'abort') ? '\u26a0 ' : ''}
            {t('stageScheduler')}
          </text>
          {frame.refusedAt ? (
            <text x={layout.router.x + 8} y={layout.router.y + 36} className="st-sub st-bad st-strong" data-testid={row === 'main' ? undefined : 'stage-refused'}>
              {'\u2716 '}
              {t(frame.refusedAt === 'tokenizer' ? 'stageRefusedTokenizer' : 'stageRefusedAdmission')}
            </text>
          ) : null}
          {/* Prefill: what it computed */}
          {prefillPool && frame.computedTokens > 0 ? (
            <text x={prefillPool.box.x + prefillPool.box.w - 10} y={prefillPool.box.y + 33} textAnchor="end" className="st-sub st-strong" data-testid={row === 'main' ? 'stage-computed' : undefined}>
              {t('stageComputed', { tokens: fmt(frame.computedTokens), tokenWord: t(frame.computedTokens === 1 ? 'word_token' : 'word_tokens') })}
            </text>
          ) : null}
          {/* The prefill pages this request holds (one, for the placeholder), ringed: a cell is too small to see */}
          {prefillPool && snapshot && prefillRing(detail, frame, steps) ? (
            (() => {
              const c = pageCenter(prefillPool, prefillRing(detail, frame, steps)!);
              return <circle cx={c.x} cy={c.y} r={5} className="st-page0" />;
            })()
          ) : null}
          {/* The block table: outline over the decode pool, label */}
          {decodePool && frame.reserved.length > 0
            ? litRanges(reserveRanges, frame.reservedLit).map(([first, count], i) => (
                <polygon key={i} points={rangeOutline(decodePool, first, count)} className={`st-table${frame.freed ? ' st-freed' : ''}`} />
              ))
            : null}
          {decodePool && frame.reserved.length > 0 ? (
            <text x={decodePool.box.x + decodePool.box.w - 10} y={decodePool.box.y + 33} textAnchor="end" className="st-sub st-strong">
              {frame.freed
                ? claimed > 0
                  ? t('stageClaimed', { claimed: fmt(claimed), pages: fmt(frame.reserved.length) })
                  : t(frame.cleared ? 'stageCleared' : 'stageFreed')
                : t('stageBlockTable', { pages: fmt(frame.reservedLit) })}
            </text>
          ) : null}
          {frame.beamPages > 0 && frame.step !== 'transfer' ? (
            <g className="st-beam" data-testid={row === 'main' ? 'stage-beam' : undefined}>
              <line x1={layout.link[0].x} y1={layout.link[0].y} x2={beamPoint.x} y2={beamPoint.y} className="st-beam-line" />
              <rect x={beamPoint.x - 7} y={beamPoint.y - 7} width={14} height={14} fill={tenantCss(tenant)} stroke="#222" />
              <text x={beamPoint.x} y={beamPoint.y + (narrow ? 4 : -14)} dx={narrow ? 12 : 0} textAnchor={narrow ? 'start' : 'middle'} className="st-label">
                {t('stageBeam', { pages: fmt(frame.beamPages), pageWord: t(frame.beamPages === 1 ? 'word_page' : 'word_pages') })}
              </text>
            </g>
          ) : null}
          {frame.step === 'transfer' && decodePool ? (
            <text x={layout.link[1].x - (narrow ? -12 : 8)} y={layout.link[1].y + (narrow ? -8 : 22)} textAnchor={narrow ? 'start' : 'end'} className="st-label">
              {t('stageBeam', { pages: fmt(frame.beamPages), pageWord: t(frame.beamPages === 1 ? 'word_page' : 'word_pages') })}
            </text>
          ) : null}
          {frame.message && msgPoint ? (
            <g className="st-message" data-testid={row === 'main' ? 'stage-message' : undefined}>
              <line x1={msgPoint.x} y1={msgPoint.y} x2={layout.callout.x + 12} y2={layout.callout.y} className="st-zoom-lead" />
              <rect x={msgPoint.x - 14} y={msgPoint.y - 9} width={28} height={18} rx={9} />
              <text x={msgPoint.x} y={msgPoint.y + 4} textAnchor="middle" className="st-sub st-strong">
                {'\u2713'}
              </text>
              <rect x={layout.callout.x} y={layout.callout.y} width={layout.callout.w} height={layout.callout.h} rx={6} />
              <text x={layout.callout.x + 8} y={layout.callout.y + 18}>
                {t('stageDone', { room: String(frame.message.room), status: frame.message.status })}
              </text>
              <text x={layout.callout.x + 8} y={layout.callout.y + 35} className="st-sub">
                {t('stageDoneNote')}
              </text>
            </g>
          ) : null}
          {frame.checkFailed && decodePool ? (
            <text x={decodePool.box.x + 10} y={decodePool.box.y + decodePool.box.h - 8} className="st-label st-bad">
              {'\u2716 '}
              {t('stageCheckFailed')}
            </text>
          ) : null}
          {/* The request card travelling client → router → prefill, N collapsing to 1 */}
          {cardAt ? (
            <g className="st-card" data-testid={row === 'main' ? 'stage-card' : undefined}>
              <rect x={cardAt.x - barMax / 2 - 6} y={cardAt.y - 12} width={Math.max(barMax + 12, 190)} height={placeholder ? 40 : 30} rx={4} />
              <rect x={cardAt.x - barMax / 2} y={cardAt.y + 4} width={barW(frame.inputTokens)} height={6} fill={tenantCss(tenant)} />
              <text x={cardAt.x - barMax / 2} y={cardAt.y} className="st-label">
                {placeholder ? t('stagePlaceholderToken') : t('stagePromptTokens', { tokens: fmt(frame.inputTokens), tokenWord: t(frame.inputTokens === 1 ? 'word_token' : 'word_tokens') })}
              </text>
              {placeholder ? (
                <text x={cardAt.x - barMax / 2} y={cardAt.y + 22} className="st-sub">
                  {t('stageAborted')}
                </text>
              ) : null}
            </g>
          ) : null}
          {/* The HTTP status going back to the client */}
          {statusPoint ? (
            <g className={`st-status${frame.status === 200 || (frame.step === 'response' && detail.response.status === 200) ? '' : ' st-bad'}`} data-testid={row === 'main' ? 'stage-http' : undefined}>
              <rect x={statusPoint.x - 34} y={statusPoint.y - 11} width={68} height={22} rx={4} />
              <text x={statusPoint.x} y={statusPoint.y + 4} textAnchor="middle">
                HTTP {frame.step === 'reject' ? 400 : detail.response.status}
              </text>
            </g>
          ) : null}
          {/* Response tokens, each tinted by whose KV it drew on most */}
          {/* The model's toy vocabulary is English in both languages. */}
          <g className="st-tokens">
            <text x={layout.tokens.x} y={layout.tokens.y + 12} className="st-title">
              {t('stageResponse')}
              <tspan className="st-sub" dx={8}>
                {t('stageTokensOut', { shown: fmt(frame.tokensShown), count: fmt(tokens.length) })}
              </tspan>
            </text>
            {chips.map((c) => {
              const p = prov[c.i];
              const wt = p?.writerTenant ? run.tenants.indexOf(p.writerTenant) : -1;
              const foreign = p?.writerTenant !== null && p?.writerTenant !== detail.response.tenant;
              return <TokenChip key={c.i} x={c.x} y={c.y} w={c.w} word={c.word} writer={wt} foreign={foreign} active={c.i === frame.activeToken} shown={c.i < frame.tokensShown} />;
            })}
          </g>
          {active && activeCenter && activeProv ? (
            <g className="st-join">
              <path d={joinPath(active.x + active.w / 2, active.y - 14, activeCenter.x, activeCenter.y, layout)} />
              <circle cx={activeCenter.x} cy={activeCenter.y} r={5} />
              <text x={layout.tokens.x} y={layout.tokens.y + layout.tokens.h - 4} className="st-sub">
                {t('stageDrewOn', { word: active.word, page: `${activeProv.node}:${activeProv.page}`, tenant: activeProv.writerTenant ?? '\u2014' })}
              </text>
            </g>
          ) : null}
          {linkedCenter && linkedPage ? (
            <g className="st-linked" data-testid={row === 'main' ? 'stage-linked' : undefined}>
              <circle cx={linkedCenter.x} cy={linkedCenter.y} r={7} />
              <text x={linkedCenter.x + 10} y={linkedCenter.y - 8} className="st-label">
                {t('stageLinkedPage', { node: linkedPage.node, page: String(linkedPage.page) })}
              </text>
            </g>
          ) : null}
          {/* Slot-level zoom of page 0 of the block table */}
          {page0 !== null && decodePool ? (
            <g className="st-zoom" data-testid={row === 'main' ? 'stage-zoom' : undefined}>
              <rect x={layout.zoom.x} y={layout.zoom.y} width={layout.zoom.w} height={layout.zoom.h} rx={6} className="st-zoom-box" />
              <text x={layout.zoom.x + 10} y={layout.zoom.y + 18} className="st-title st-small">
                {t('stageZoomTitle')}
              </text>
              <text x={layout.zoom.x + 10} y={layout.zoom.y + 33} className="st-sub">
                {t('stageZoomPage', { node: decodePool.node, page: String(page0) })}
              </text>
              <ZoomSlots x={layout.zoom.x + 10} y={layout.zoom.y + 42} slots={slots} cols={zoomCols} slotW={slotW} slotH={slotH} written={page0Written} fill={tenantCss(tenant)} />
              {page0Written && frame.computedTokens === 1 ? (
                <>
                  <text x={layout.zoom.x + 10} y={layout.zoom.y + 42 + Math.ceil(slots / zoomCols) * (slotH + 2) + 14} className="st-sub">
                    {t('stageZoomPlaceholder')}
                  </text>
                  <text x={layout.zoom.x + 10} y={layout.zoom.y + 42 + Math.ceil(slots / zoomCols) * (slotH + 2) + 30} className="st-sub">
                    {t('stageZoomCopied', { last: String(slots - 1) })}
                  </text>
                  <g className="st-badge-box">
                    <rect x={layout.zoom.x + 10} y={layout.zoom.y + 42 + Math.ceil(slots / zoomCols) * (slotH + 2) + 38} width={70} height={18} rx={9} />
                    <text x={layout.zoom.x + 45} y={layout.zoom.y + 42 + Math.ceil(slots / zoomCols) * (slotH + 2) + 51} textAnchor="middle" className="st-badge">
                      {t('stageInferred')}
                    </text>
                  </g>
                </>
              ) : (
                <text x={layout.zoom.x + 10} y={layout.zoom.y + 42 + Math.ceil(slots / zoomCols) * (slotH + 2) + 14} className="st-sub">
                  {page0Written ? t('legendWritten') : t('stageZoomEmpty')}
                </text>
              )}
              {(() => {
                const c = pageCenter(decodePool, page0);
                return (
                  <>
                    <line x1={c.x} y1={c.y} x2={layout.zoom.x + 20} y2={layout.zoom.y} className="st-zoom-lead" />
                    {page0Written ? <circle cx={c.x} cy={c.y} r={4} className="st-page0" /> : null}
                  </>
                );
              })()}
            </g>
          ) : null}
        </svg>
      </div>
      <p className="stage-sentence" data-testid={row === 'main' ? undefined : 'stage-sentence-fix'}>
        {row === 'fix' ? sentence : null}
      </p>
    </div>
  );
}

/**
 * The stage: the selected request's handoff through client, router, prefill node, RDMA link and
 * decode node, every node's KV pool at real scale, as a pure function of the scrubber's time.
 * With a comparison run, a second row shows what the fixed design does at the same instant.
 */
export function StageView({ linkedPage = null, picker = true }: StageViewProps) {
  const t = useT();
  const main = useMainRun().data;
  const compareRun = useCompareRun().data;
  const req = useApp((s) => s.selectedRequest);
  const wrap = useRef<HTMLDivElement>(null);
  const width = useWidth(wrap);
  const usable = main && !main.refused && req !== null && req < main.requests.count ? main : undefined;
  const detail = useRequestDetail(usable, req);
  const compareDetail = useRequestDetail(compareRun && !compareRun.refused && req !== null && req < compareRun.requests.count ? compareRun : undefined, req);
  const pageSize = usable?.phases[0]?.pageSize ?? 64;
  // Everything above the diagram stays put while the scrubber moves: only StageBody reads the time.
  return (
    <section aria-labelledby="stage-h" className="stage-view" ref={wrap}>
      <h2 id="stage-h">
        {t('stageTitle')} <ModelBadge />
      </h2>
      <p className="hint stage-intro">
        {t('stageIntro', { pageSize: String(pageSize) })} <FactBadge id="F14" /> <AssumptionBadge id="A11" />
      </p>
      {picker && main && !main.refused ? <RequestPicker run={main} /> : null}
      {req === null || !usable ? <p className="hint">{t('stageNoRequest')}</p> : null}
      {detail.isError ? <p className="hint">{t('stageNotHandoff')}</p> : null}
      {usable && req !== null && !detail.data && !detail.isError ? <p role="status">{t('stageLoadingRequest')}</p> : null}
      {usable && req !== null && detail.data && width > 0 ? (
        <StageBody run={usable} req={req} detail={detail.data} compareRun={compareRun && !compareRun.refused ? compareRun : undefined} compareDetail={compareDetail.data} width={width} linkedPage={linkedPage} />
      ) : null}
      {usable && detail.data ? (
        <ul className="stage-legend">
          <li>
            <span className="key k-fresh" style={{ background: tenantCss(usable.tenants.indexOf(detail.data.response.tenant)) }} /> {t('stageLegendFresh')}
          </li>
          <li>
            <span className="key k-stale" /> {t('stageLegendStale')}
          </li>
          <li>
            <span className="key k-zero" /> {t('stageLegendZero')}
          </li>
          <li>
            <span className="key k-other" /> {t('stageLegendOther')}
          </li>
          <li>
            <span className="key k-flash" /> {t('stageLegendFlash')}
          </li>
        </ul>
      ) : null}
    </section>
  );
}

interface BodyProps {
  run: RunSummary;
  req: number;
  detail: RequestDetail;
  compareRun: RunSummary | undefined;
  compareDetail: RequestDetail | undefined;
  width: number;
  linkedPage: { node: string; page: number } | null;
}

/** The diagram rows at the scrubber's time, the step buttons and the live caption. */
function StageBody({ run, req, detail, compareRun, compareDetail, width, linkedPage }: BodyProps) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const compareKey = useApp((s) => s.compare);
  const time = useApp((s) => s.time);
  const set = useApp((s) => s.set);
  const reducedMotion = useReducedMotion();
  const narrow = width < 620;
  const dpr = typeof window !== 'undefined' ? window.devicePixelRatio || 1 : 1;
  const scale = (width / (narrow ? 400 : 1000)) * dpr;
  const steps = useMemo(() => stageSteps(detail.events), [detail]);
  const index = stepIndexAt(steps, time);
  const go = (i: number) => {
    const s = steps[Math.max(0, Math.min(steps.length - 1, i))];
    if (s) set({ time: s.start, playing: false });
  };
  // Back: to the start of the step on when inside it, else to the step before.
  const back = () => go(index <= 0 ? 0 : time > steps[index]!.start ? index : index - 1);
  const onKey = (e: React.KeyboardEvent) => {
    if (e.target !== e.currentTarget) return;
    if (e.key === 'ArrowRight') go(index + 1);
    else if (e.key === 'ArrowLeft') back();
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(steps.length - 1);
    else return;
    e.preventDefault();
  };
  const reserved = (detail.events.find((e) => e.type === 'decode-reserve') as { pageCount?: number } | undefined)?.pageCount ?? 0;
  const sentence = stepSentence(steps[index], detail.events, t, lang, run, reserved);
  return (
    <>
      <div
        className="stage-root"
        data-testid="stage"
        {...highlightable('stage')}
        data-step={steps[index]?.id ?? 'idle'}
        data-step-index={index}
        data-reduced-motion={reducedMotion ? 'true' : 'false'}
        tabIndex={0}
        role="group"
        aria-roledescription={t('viewStage')}
        aria-label={t('stageTitle')}
        aria-keyshortcuts="ArrowLeft ArrowRight Home End"
        aria-describedby="stage-keys"
        onKeyDown={onKey}
      >
        {compareRun && compareKey ? <h3 className="stage-row-title">{t('stageRowMain')}</h3> : null}
        <StageRow run={run} req={req} time={time} detail={detail} narrow={narrow} scale={scale} reducedMotion={reducedMotion} linkedPage={linkedPage} row="main" />
        {compareRun && compareKey && compareDetail ? (
          <>
            <h3 className="stage-row-title">{t('stageRowFix', { fix: t(`switch.${compareKey}.fix`) })}</h3>
            <StageRow run={compareRun} req={req} time={time} detail={compareDetail} narrow={narrow} scale={scale} reducedMotion={reducedMotion} linkedPage={null} row="fix" />
          </>
        ) : null}
      </div>
      <div className="stepper" role="group" aria-label={t('step')}>
        <button type="button" onClick={back} disabled={index <= 0 && !(index === 0 && time > steps[0]!.start)} data-testid="stage-prev">
          {t('stagePrev')}
        </button>
        <span data-testid="stage-step-label">{t('stageStepOf', { n: String(index + 1), count: String(steps.length) })}</span>
        <button type="button" onClick={() => go(index + 1)} disabled={index >= steps.length - 1} data-testid="stage-next">
          {t('stageNext')}
        </button>
      </div>
      <p className="stage-caption" aria-live="polite" data-testid="stage-caption" {...highlightable('stage-caption')}>
        {sentence}
      </p>
      <p className="hint" id="stage-keys">
        {t('stageKeys')}
      </p>
    </>
  );
}
