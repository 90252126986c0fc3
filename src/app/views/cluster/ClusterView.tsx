import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import { PAGE_CLEARED, PAGE_LIVE, PAGE_STALE, PAGE_ZERO } from '../../../engine/index.ts';
import { useSnapshot } from '../../run/hooks.ts';
import { useT } from '../../i18n/i18n.ts';
import type { NodeSnapshot, RunSummary, Snapshot } from '../../run/hooks.ts';
import { useApp } from '../../state/store.ts';
import { formatNumber, formatUtc } from '../../i18n/format.ts';
import { ModelBadge } from '../shared/Evidence.tsx';
import { drawPageGrid, gridLayout, pageAt, type GridLayout } from './pageGrid.ts';
import { highlightable } from '../shared/highlight.ts';
import { tenantCss } from '../shared/palette.ts';
import { themeColor, themeRgb } from '../../theme.ts';

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

function NodeGrid({ node, layout, pageSize: snapshotPageSize, t: snapshotTime }: { node: NodeSnapshot; layout: GridLayout; pageSize: number; t: number }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const fmt = (n: number) => formatNumber(n, lang);
  const canvas = useRef<HTMLCanvasElement>(null);
  const selectedPage = useApp((s) => s.selectedPage);
  const selectedRequest = useApp((s) => s.selectedRequest);
  const set = useApp((s) => s.set);
  const selectedHere = selectedPage?.node === node.name ? selectedPage.page : null;

  // Layout effect: the grid is drawn before the browser paints this commit, so a scrub shows in one frame.
  useLayoutEffect(() => {
    const ctx = canvas.current?.getContext('2d');
    if (!ctx) return;
    // Fade the rest only while the selected request holds pages here: then its block table stands out.
    const holds = selectedRequest !== null && node.owner.includes(selectedRequest);
    drawPageGrid(ctx, node, layout, { background: themeRgb('--canvas', [244, 242, 238]), focusTenant: -2, focusRequest: holds ? selectedRequest : null });
    if (selectedHere !== null) {
      const x = (selectedHere % layout.cols) * layout.cell;
      const y = Math.floor(selectedHere / layout.cols) * layout.cell;
      ctx.lineWidth = 2;
      ctx.strokeStyle = themeColor('--ink', '#000');
      ctx.strokeRect(x - 3, y - 3, layout.cell + 6, layout.cell + 6);
    }
    // Lets the scrub benchmark see when the frame for a given time is drawn.
    canvas.current!.dataset.drawnT = String(snapshotTime);
  }, [node, layout, selectedHere, selectedRequest, snapshotTime]);

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
  const counts = useMemo(() => {
    const c = [0, 0, 0, 0];
    for (let p = 0; p < node.pageCount; p++) c[node.state[p]!]!++;
    return c;
  }, [node]);
  return (
    <figure className="node-grid">
      <figcaption>
        <b>{node.name}</b> · {t('nodeCaption', { pages: fmt(node.pageCount), size: fmt(snapshotPageSize) })}
        <span className="hint">
          {' '}
          · {t('nodeCounts', { live: fmt(counts[PAGE_LIVE]!), stale: fmt(counts[PAGE_STALE]!), cleared: fmt(counts[PAGE_CLEARED]!), zero: fmt(counts[PAGE_ZERO]!) })}
        </span>
      </figcaption>
      <canvas
        ref={canvas}
        width={layout.width}
        height={layout.height}
        tabIndex={0}
        role="img"
        aria-label={`${node.name}: ${t('gridLabel')}`}
        data-node={node.name}
        {...highlightable(`node-${node.name}`)}
        onKeyDown={onKey}
        onClick={(e) => {
          const r = e.currentTarget.getBoundingClientRect();
          select(pageAt(layout, node.pageCount, (e.clientX - r.left) * (layout.width / r.width), (e.clientY - r.top) * (layout.height / r.height)));
        }}
        style={{ width: layout.width, height: layout.height }}
      />
    </figure>
  );
}

function Inspector({ run, snapshot }: { run: RunSummary; snapshot: Snapshot }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const sel = useApp((s) => s.selectedPage);
  const node = sel ? snapshot.nodes.find((n) => n.name === sel.node) : undefined;
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
  return (
    <aside className="inspector" aria-live="polite" data-testid="inspector" {...highlightable('inspector')}>
      <h3>
        {node.name} · {t('page')} {formatNumber(p, lang)}
      </h3>
      <dl>
        <dt>{t('state')}</dt>
        <dd data-testid="inspector-state">{t(state)}</dd>
        <dt>{t('lastWrittenBy')}</dt>
        <dd>
          {writer >= 0 ? (
            <>
              <span className="swatch" style={{ background: tenantCss(writerTenant) }} aria-hidden="true" />{' '}
              {t('writerLine', { tenant: run.tenants[writerTenant] ?? '?', request: run.requests.ids[writer] ?? '?', time: formatUtc(run.startEpochMs + node.writeTime[p]!, lang) })} <ModelBadge title={t('clockTip')} />
            </>
          ) : (
            t('neverWritten')
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
  const snapshot = useSnapshot(run);
  const box = useRef<HTMLDivElement>(null);
  const width = useWidth(box);
  const tenantsShown = useMemo(() => run.tenants.slice(0, 12), [run]);
  return (
    <section className="cluster-view" aria-labelledby="cluster-h">
      <h2 id="cluster-h">
        {t('clusterTitle')} <ModelBadge />
      </h2>
      <div className="cluster-body">
        <div ref={box} className="grids" {...highlightable('grids')}>
          {snapshot
            ? snapshot.nodes.map((node) => <NodeGrid key={node.name} node={node} pageSize={snapshot.pageSize} t={snapshot.t} layout={gridLayout(node.pageCount, Math.max(200, width))} />)
            : <p role="status">{t('loading')}</p>}
        </div>
        <div className="side">
          {snapshot ? <Inspector run={run} snapshot={snapshot} /> : null}
          <div className="legend" aria-label={t('legend')} {...highlightable('legend')}>
            <p>
              <span className="key live" /> {t('live')} <span className="key stale" /> {t('stale')} <span className="key cleared" /> {t('cleared')} <span className="key zero" /> {t('zero')}
            </p>
            <ul className="tenant-keys">
              {tenantsShown.map((name, i) => (
                <li key={name}>
                  <span className="swatch" style={{ background: tenantCss(i) }} aria-hidden="true" /> {name}
                </li>
              ))}
              {run.tenants.length > tenantsShown.length ? <li>+{formatNumber(run.tenants.length - tenantsShown.length, lang)}</li> : null}
            </ul>
          </div>
        </div>
      </div>
    </section>
  );
}
