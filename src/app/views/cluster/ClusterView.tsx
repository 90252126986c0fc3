import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { PAGE_CLEARED, PAGE_LIVE, PAGE_STALE, PAGE_ZERO } from '../../../engine/kvPool.ts';
import { useMomentSnapshot } from '../shared/useMoment.ts';
import { useT } from '../../i18n/i18n.ts';
import { useRequestDetail, type NodeSnapshot, type RunSummary, type Snapshot } from '../../run/hooks.ts';
import { tenantsHeldBy } from '../../moment/moment.ts';
import { inspectedBlock, inspectorText } from './inspectorText.ts';
import { TenantKeys } from '../shared/TenantKeys.tsx';
import { useApp } from '../../state/store.ts';
import { formatNumber } from '../../i18n/format.ts';
import { ModelBadge } from '../shared/Evidence.tsx';
import { drawPageGrid, gridLayout, pageAt, type GridLayout } from './pageGrid.ts';
import { drawOverlay, magnifierBox } from './pageOverlay.ts';
import { REL_FOREIGN, REL_OTHER, REL_OWN, REL_PLACEHOLDER, REL_RESERVED, RELATION_NAMES, focusOf, relationCss, relationOf, type Focus, type Relation } from './relation.ts';
import { onNextFrame } from '../../state/clock.ts';
import './grids.css';
import { highlightable } from '../shared/highlight.ts';
import { poolPagesArithmetic } from '../shared/engineText.ts';
import { tenantCss } from '../../ui/palette.ts';
import { themeRgb } from '../../ui/theme.ts';

const RELATION_KEYS = ['relOwn', 'relPlaceholder', 'relForeign', 'relReserved', 'relOther'] as const satisfies Record<Relation, string>;

const STATE_NAMES = { [PAGE_ZERO]: 'zero', [PAGE_LIVE]: 'live', [PAGE_STALE]: 'stale', [PAGE_CLEARED]: 'cleared' } as const;

function useWidth(ref: React.RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(800);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const ro = new ResizeObserver(([entry]) => setWidth(Math.floor(entry!.contentRect.width)));
    ro.observe(el);
    return () => ro.disconnect();
  }, [ref]);
  return width;
}

function NodeGrid({ node, maxWidth, pageSize: snapshotPageSize, t: snapshotTime, focus, run }: { node: NodeSnapshot; maxWidth: number; pageSize: number; t: number; focus: Focus | null; run: RunSummary }) {
  // One layout object while the size holds: the drawing effects key on it.
  const layout: GridLayout = useMemo(() => gridLayout(node.pageCount, maxWidth), [node.pageCount, maxWidth]);
  const t = useT();
  const lang = useApp((s) => s.lang);
  const fmt = (n: number) => formatNumber(n, lang);
  const canvas = useRef<HTMLCanvasElement>(null);
  const overlay = useRef<HTMLCanvasElement>(null);
  const selectedPage = useApp((s) => s.selectedPage);
  const selectedRequest = useApp((s) => s.selectedRequest);
  const linked = useApp((s) => (s.linkedPage?.node === node.name ? s.linkedPage.page : null));
  const set = useApp((s) => s.set);
  const selectedHere = selectedPage?.node === node.name ? selectedPage.page : null;
  const [hovered, setHovered] = useState<{ page: number; x: number; y: number } | null>(null);
  const placeholder = useRef<number | null>(null);
  const dark = typeof window !== 'undefined' && !!window.matchMedia?.('(prefers-color-scheme: dark)').matches;

  const paintOverlay = () => {
    const ctx = overlay.current?.getContext('2d');
    if (!ctx) return;
    drawOverlay(ctx, layout, { selected: selectedHere, hovered: hovered?.page ?? null, linked, placeholder: placeholder.current, dark });
  };

  // Layout effect: the grid is drawn before the browser paints this commit, so a scrub shows in one
  // frame; only the pages whose look changed are repainted (pageGrid.ts).
  useLayoutEffect(() => {
    const el = canvas.current;
    const ctx = el?.getContext('2d');
    if (!el || !ctx) return;
    const report = drawPageGrid(ctx, node, layout, { background: themeRgb('--canvas', dark ? [31, 33, 39] : [244, 242, 238]), dark, focus });
    placeholder.current = report.placeholderPage >= 0 ? report.placeholderPage : null;
    // The overlay follows in the same commit: the magnifier sits on the placeholder of this instant.
    paintOverlay();
    el.dataset.repainted = String(report.repainted);
    el.dataset.placeholderPage = String(report.placeholderPage);
    el.dataset.placeholderPx = report.placeholderPage >= 0 ? String(magnifierBox(layout, report.placeholderPage).size) : '0';
    el.dataset.focus = focus ? String(focus.req) : '';
    // Lets the scrub benchmark see when the frame for a given time is drawn.
    el.dataset.drawnT = String(snapshotTime);
  }, [node, layout, focus, snapshotTime, dark]);
  // Selection, hover and the linked page move on the overlay alone, on the page's one frame clock.
  useEffect(() => {
    onNextFrame(`overlay:${node.name}`, paintOverlay);
  }, [selectedHere, hovered?.page, linked, layout]);

  const select = (page: number | null) => {
    if (page === null) return;
    const owner = node.owner[page]!;
    const writer = node.writtenFor[page]!;
    set({ selectedPage: { node: node.name, page }, selectedRequest: owner >= 0 ? owner : writer >= 0 ? writer : selectedRequest });
  };
  const onKey = (e: React.KeyboardEvent) => {
    const current = selectedHere ?? 0;
    const moves: Record<string, number> = { ArrowRight: 1, ArrowLeft: -1, ArrowDown: layout.cols, ArrowUp: -layout.cols, PageDown: layout.cols * 8, PageUp: -layout.cols * 8 };
    if (e.key in moves) {
      e.preventDefault();
      e.stopPropagation();
      select(Math.max(0, Math.min(node.pageCount - 1, current + moves[e.key]!)));
    } else if (e.key === 'Home' || e.key === 'End') {
      e.preventDefault();
      e.stopPropagation();
      select(e.key === 'Home' ? 0 : node.pageCount - 1);
    }
  };
  const pageUnder = (e: React.MouseEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    return { page: pageAt(layout, node.pageCount, (e.clientX - r.left) * (layout.width / r.width), (e.clientY - r.top) * (layout.height / r.height)), x: e.clientX - r.left, y: e.clientY - r.top };
  };
  const counts = useMemo(() => {
    const c = [0, 0, 0, 0];
    for (let p = 0; p < node.pageCount; p++) c[node.state[p]!]!++;
    return c;
  }, [node, snapshotTime]);
  return (
    <figure className="node-grid">
      <figcaption>
        <b>{node.name}</b> · {t('nodeCaption', { pages: fmt(node.pageCount), size: fmt(snapshotPageSize) })}
        {/* Why the pages times their size is not the capacity (681,280 tokens beside 10,646 pages of 64). */}
        <span className="hint" data-testid="pool-padding">
          {' '}
          ({poolPagesArithmetic(node.pageCount, snapshotPageSize, t, lang)} <ModelBadge />)
        </span>
        <span className="hint">
          {' '}
          · {t('nodeCounts', { live: fmt(counts[PAGE_LIVE]!), stale: fmt(counts[PAGE_STALE]!), cleared: fmt(counts[PAGE_CLEARED]!), zero: fmt(counts[PAGE_ZERO]!) })}
        </span>
      </figcaption>
      <div className="grid-stack" style={{ width: layout.width, height: layout.height }}>
        <canvas
          ref={canvas}
          width={layout.width}
          height={layout.height}
          tabIndex={0}
          role="img"
          aria-label={`${node.name}: ${t('gridLabel')}`}
          data-node={node.name}
          data-linked-page={linked ?? ''}
          data-cell={layout.cell}
          data-cols={layout.cols}
          {...highlightable(`node-${node.name}`)}
          onKeyDown={onKey}
          onClick={(e) => select(pageUnder(e).page)}
          onMouseMove={(e) => {
            const h = pageUnder(e);
            setHovered(h.page === null ? null : { page: h.page, x: h.x, y: h.y });
          }}
          onMouseLeave={() => setHovered(null)}
          style={{ width: layout.width, height: layout.height }}
        />
        <canvas ref={overlay} className="grid-overlay" width={layout.width} height={layout.height} aria-hidden="true" data-overlay={node.name} style={{ width: layout.width, height: layout.height }} />
        {hovered ? <HoverCard run={run} node={node} page={hovered.page} focus={focus} x={hovered.x} y={hovered.y} width={layout.width} /> : null}
      </div>
    </figure>
  );
}

/** The hovered page's second cue: what it is to the selected request and whose KV it holds. */
function HoverCard({ run, node, page, focus, x, y, width }: { run: RunSummary; node: NodeSnapshot; page: number; focus: Focus | null; x: number; y: number; width: number }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const writer = node.writtenFor[page]!;
  const tenant = node.writerTenant[page]!;
  const rel = focus ? relationOf(node, page, focus) : null;
  return (
    <div className="hover-card" data-testid="hover-card" style={{ left: Math.min(x + 12, Math.max(0, width - 220)), top: y + 12 }} role="tooltip">
      <b>
        {t('pageId', { page: formatNumber(page, lang) })}
      </b>
      {rel !== null ? <> · {t(RELATION_KEYS[rel])}</> : null}
      <br />
      {writer >= 0 ? (
        <>
          <span className="swatch" style={{ background: tenantCss(tenant) }} aria-hidden="true" /> {t('writtenForTenant', { tenant: run.tenants[tenant] ?? '?', request: run.requests.ids[writer] ?? '?' })}
        </>
      ) : (
        t('neverWritten')
      )}
    </div>
  );
}

function Inspector({ run, snapshot }: { run: RunSummary; snapshot: Snapshot }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const sel = useApp((s) => s.selectedPage);
  const selectedRequest = useApp((s) => s.selectedRequest);
  const detail = useRequestDetail(run.refused ? undefined : run, selectedRequest).data;
  const node = sel ? snapshot.nodes.find((n) => n.name === sel.node) : undefined;
  // The page's position in the selected request's block table (block i → page #p), where it is in it.
  const block = sel ? inspectedBlock(run, sel, selectedRequest, detail) : -1;
  if (!sel || !node || sel.page >= node.pageCount) {
    return (
      <aside className="inspector" aria-live="polite" data-testid="inspector" {...highlightable('inspector')}>
        <p className="hint">{t('inspectorEmpty')}</p>
      </aside>
    );
  }
  const p = sel.page;
  const state = STATE_NAMES[node.state[p] as 0 | 1 | 2 | 3];
  const writer = node.writtenFor[p]!;
  const writerTenant = node.writerTenant[p]!;
  const owner = node.owner[p]!;
  const ownerTenant = owner >= 0 ? run.requests.tenant[owner]! : -1;
  const crossRead = owner >= 0 && writerTenant >= 0 && ownerTenant !== writerTenant;
  const focus = focusOf(run, selectedRequest);
  const rel = focus ? relationOf(node, p, focus) : null;
  const said = inspectorText(run, node, p, block, focus ? focus.req : null, t, lang);
  return (
    <aside className="inspector" aria-live="polite" data-testid="inspector" {...highlightable('inspector')}>
      <h3>
        {node.name} · {said.page}
        {said.block !== null ? <span data-testid="inspector-block"> · {said.block}</span> : null}
      </h3>
      <dl>
        <dt>{t('state')}</dt>
        <dd data-testid="inspector-state">{t(state)}</dd>
        {focus && rel !== null ? (
          <>
            <dt>{t('relationTo', { request: run.requests.ids[focus.req] ?? '?' })}</dt>
            <dd data-testid="inspector-relation" data-relation={RELATION_NAMES[rel]}>
              {rel !== REL_OTHER ? <span className="swatch" style={{ background: relationCss(rel) }} aria-hidden="true" /> : null} {t(RELATION_KEYS[rel])}
              {rel === REL_FOREIGN && writerTenant >= 0 ? ` (${run.tenants[writerTenant]})` : ''}
            </dd>
          </>
        ) : null}
        <dt>{t('lastWrittenBy')}</dt>
        <dd>
          {writer >= 0 ? (
            <>
              <span className="swatch" style={{ background: tenantCss(writerTenant) }} aria-hidden="true" />{' '}
              {said.writer} <ModelBadge title={t('clockTip')} />
            </>
          ) : (
            said.writer
          )}
        </dd>
        <dt>{t('heldBy')}</dt>
        <dd>{owner >= 0 ? t('holderLine', { request: run.requests.ids[owner] ?? '?', tenant: run.tenants[ownerTenant] ?? '?' }) : t('free')}</dd>
      </dl>
      {crossRead ? (
        <p className="alert" role="note" data-testid="cross-read">
          ⚠ {t('crossRead', { owner: run.tenants[ownerTenant]!, writer: run.tenants[writerTenant]! })}
        </p>
      ) : null}
    </aside>
  );
}

export function ClusterView({ run }: { run: RunSummary }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  // The pools at the moment (the handoff's engine time when its clock runs): what the stage shows.
  const snapshot = useMomentSnapshot(run);
  const box = useRef<HTMLDivElement>(null);
  const width = useWidth(box);
  const selectedRequest = useApp((s) => s.selectedRequest);
  const selectedFocus = useMemo(() => focusOf(run, selectedRequest), [run, selectedRequest]);
  // The legend names the tenants whose KV the pools hold at the moment (the roster's indices), the
  // first twelve, and says how many more it folds; and whether the selected request holds any page.
  // The snapshot's arrays are refilled by each seek: its instant is part of the key.
  const appearing = useMemo(() => tenantsHeldBy(snapshot), [snapshot, snapshot?.t]);
  const holds = useMemo(() => {
    if (!selectedFocus) return false;
    for (const n of snapshot?.nodes ?? []) for (let p = 0; p < n.pageCount; p++) if (n.owner[p] === selectedFocus.req) return true;
    return false;
  }, [snapshot, snapshot?.t, selectedFocus]);
  // A request that holds no page at the moment (not yet reserved, or freed: the page's opening instant
  // is just after its answer, its block table already freed) would leave every page grey under the
  // relation legend: the grids then show the pages by their writer's tenant, and say why.
  const focus = holds ? selectedFocus : null;
  return (
    <section className="cluster-view" aria-labelledby="cluster-h">
      <h2 id="cluster-h">
        {t('clusterTitle')} <ModelBadge />
      </h2>
      <div className="cluster-body">
        <div ref={box} className="grids" {...highlightable('grids')}>
          {snapshot
            ? snapshot.nodes.map((node) => <NodeGrid key={node.name} run={run} node={node} focus={focus} pageSize={snapshot.pageSize} t={snapshot.t} maxWidth={Math.max(200, width)} />)
            : <p role="status">{t('loading')}</p>}
        </div>
        <div className="side">
          {snapshot ? <Inspector run={run} snapshot={snapshot} /> : null}
          <div className="legend" aria-label={t('legend')} data-testid="grid-legend" {...highlightable('legend')}>
            {focus ? (
              <>
                <p className="legend-title">{t('relationLegend', { request: run.requests.ids[focus.req] ?? '?', tenant: run.tenants[run.requests.tenant[focus.req]!] ?? '?' })}</p>
                <ul className="relation-keys">
                  {([REL_OWN, REL_PLACEHOLDER, REL_FOREIGN, REL_RESERVED] as const).map((rel) => (
                    <li key={rel} data-relation={RELATION_NAMES[rel]}>
                      <span className={`key rel-${RELATION_NAMES[rel]}`} aria-hidden="true" /> {t(RELATION_KEYS[rel])}
                    </li>
                  ))}
                  <li data-relation="other">
                    <span className="key rel-other" aria-hidden="true" /> {t('relOtherKey')}
                  </li>
                </ul>
                <p className="hint">{t('relationHint')}</p>
              </>
            ) : (
              <>
                {selectedFocus ? (
                  <p className="legend-title" data-testid="legend-none-held">
                    {t('relationNoneHeld', { request: run.requests.ids[selectedFocus.req] ?? '?' })}
                  </p>
                ) : null}
                <p>
                  {(
                    [
                      ['live', t('live')],
                      ['stale', t('stale')],
                      ['cleared', t('cleared')],
                      ['zero', t('zero')],
                      ['reserved', t('relReserved')],
                    ] as const
                  ).map(([key, label]) => (
                    <span key={key} className="legend-entry">
                      <span className={`key ${key}`} /> {label}
                    </span>
                  ))}
                </p>
                <TenantKeys roster={run.tenants} tenants={appearing} testId="tenant-keys" />
              </>
            )}
          </div>
        </div>
      </div>
    </section>
  );
}
