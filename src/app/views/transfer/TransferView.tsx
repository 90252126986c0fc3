import { Suspense, lazy, useEffect, useMemo, useRef, useState } from 'react';
import { useRequestDetail } from '../../run/hooks.ts';
import { useT } from '../../i18n/i18n.ts';
import { formatNumber } from '../../i18n/format.ts';
import type { RunSummary } from '../../run/hooks.ts';
import { useApp, useAppStore } from '../../state/store.ts';
import { REL_FOREIGN, REL_OWN, REL_PLACEHOLDER, RELATION_RGB, blockTableRelation, focusOf, type Focus, type Relation, type REL_OTHER } from '../cluster/relation.ts';
import { inkOn, paperOn, rgbCss } from '../../ui/palette.ts';
import '../cluster/grids.css';
import { highlightable } from '../shared/highlight.ts';
import { RequestPicker } from '../shared/RequestPicker.tsx';
import { ModelBadge, SourceRef } from '../shared/Evidence.tsx';
import { goToStep, useMoment } from '../shared/useMoment.ts';
import type { Moment } from '../../moment/moment.ts';
import { HandoffSteps } from '../stage/HandoffSteps.tsx';
import { blockTableSummaryText } from './blockTableText.ts';
import { trackPending } from '../../state/settled.ts';

// The protocol explorer is loaded only when someone opens it: it is not needed to read a run.
const VerifyPanel = lazy(() => trackPending(import('../verify/VerifyPanel.tsx')).then((m) => ({ default: m.VerifyPanel })));

function ProtocolCheck() {
  const t = useT();
  const [open, setOpen] = useState(false);
  return (
    <details className="protocol-check" onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)} data-testid="protocol-check">
      <summary>
        {t('protocolCheck')} <ModelBadge title={t('vpModelTip')} />
      </summary>
      {open ? (
        <Suspense fallback={<p role="status">{t('loading')}</p>}>
          <VerifyPanel />
        </Suspense>
      ) : null}
    </details>
  );
}

/** Width of the placeholder page in the strip, in CSS pixels, however many pages the table has. */
const STRIP_PLACEHOLDER_PX = 12;

/**
 * The request's block table as of the moment (its own handoff's step, not the incident's clock): one
 * column per block, coloured by who last wrote its page; counts and owners from the moment.
 */
function BlockTableStrip({ moment, focus }: { moment: Moment; focus: Focus }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const fmt = (n: number) => formatNumber(n, lang);
  const canvas = useRef<HTMLCanvasElement>(null);
  const width = 720;
  const height = 36;
  const { pages, node: decodeNode } = moment.blockTable;
  const req = moment.req;
  const tenants = moment.roster;
  const node = moment.snapshot?.nodes.find((n) => n.name === decodeNode);
  const summary = moment.blockTable;
  const placeholderIndex = focus.placeholder ? summary.firstWrittenBlock : -1;
  const magnifier = Math.max(STRIP_PLACEHOLDER_PX, Math.ceil(width / Math.max(1, pages.length)));
  // The page a hovered response token drew on, marked in the table too.
  const linked = useApp((s) => (s.linkedPage?.node === decodeNode ? s.linkedPage.page : null));
  const linkedIndex = useMemo(() => (linked === null ? -1 : pages.indexOf(linked)), [linked, pages]);

  useEffect(() => {
    const ctx = canvas.current?.getContext('2d');
    if (!ctx || !node) return;
    ctx.clearRect(0, 0, width, height);
    const n = pages.length;
    const css = (rel: Exclude<Relation, typeof REL_OTHER>) => rgbCss(RELATION_RGB[rel]);
    // One column per page when they fit, else pages share a column (the first page of the column is drawn).
    const column = Math.max(1, Math.floor(width / Math.max(1, n)));
    for (let x = 0; x < width; x += column) {
      const p = pages[Math.min(n - 1, Math.floor((x / width) * n))];
      if (p === undefined) break;
      const rel = blockTableRelation(node, p, focus);
      ctx.fillStyle = css(rel);
      if (rel === REL_OWN || rel === REL_PLACEHOLDER) ctx.fillRect(x, 0, column, height);
      // Hatched: another request's KV, the stale pattern of the grids.
      else if (rel === REL_FOREIGN) for (let y = ((x / column) & 1) * 2; y < height; y += 4) ctx.fillRect(x, y, column, 2);
      else ctx.fillRect(x, height / 2 - 1, column, 2);
    }
    if (placeholderIndex >= 0) {
      // The placeholder page is one page among hundreds of thousands: drawn magnified, outlined, always visible.
      const x = Math.max(0, Math.min(width - magnifier, Math.floor((placeholderIndex / n) * width)));
      ctx.fillStyle = css(REL_PLACEHOLDER);
      ctx.fillRect(x, 0, magnifier, height);
      ctx.strokeStyle = inkOn(false);
      ctx.lineWidth = 1;
      ctx.strokeRect(x + 0.5, 0.5, magnifier - 1, height - 1);
    }
    if (linkedIndex >= 0) {
      const x = Math.max(0, Math.min(width - 7, Math.floor((linkedIndex / n) * width) - 3));
      ctx.lineWidth = 2;
      ctx.strokeStyle = paperOn(false);
      ctx.strokeRect(x, 1, 7, height - 2);
      ctx.strokeStyle = inkOn(false);
      ctx.lineWidth = 1;
      ctx.strokeRect(x + 0.5, 0.5, 6, height - 1);
    }
  }, [node, pages, req, focus, placeholderIndex, magnifier, linkedIndex, moment.engineT]);

  return (
    <div className="strip">
      <canvas ref={canvas} width={width} height={height} role="img" aria-label={t('stripLabel', { total: fmt(pages.length), written: fmt(summary.written), stale: fmt(summary.stale), empty: fmt(summary.empty) })} data-testid="block-table" data-placeholder-index={placeholderIndex} data-placeholder-px={placeholderIndex >= 0 ? magnifier : 0} data-linked-index={linkedIndex} {...highlightable('block-table')} />
      <p className="hint" data-testid="block-table-summary">
        {blockTableSummaryText(summary, tenants, t, lang)}
      </p>
    </div>
  );
}

export function TransferView({ run }: { run: RunSummary }) {
  const t = useT();
  const store = useAppStore();
  const lang = useApp((s) => s.lang);
  const fmt = (n: number) => formatNumber(n, lang);
  const req = useApp((s) => s.selectedRequest);
  const detail = useRequestDetail(run, req);
  const events = detail.data?.events ?? [];
  // The moment: the one step list of the handoff (the stage's, on its handoff clock) and the block table as of it.
  const moment = useMoment(run.refused ? undefined : run, req, detail.data);
  const script = moment?.script ?? { steps: [], total: 0 };
  const current = moment?.position.index ?? -1;
  const go = (i: number) => goToStep(store, script, i);
  const blockPages = moment?.blockTable.pages ?? [];
  const done = events.find((e) => e.type === 'transfer-done');
  return (
    <section aria-labelledby="transfer-h" className="transfer-view">
      <h2 id="transfer-h">
        {t('transferTitle')} <ModelBadge />
      </h2>
      <RequestPicker run={run} />
      {req === null ? <p className="hint">{t('selectRequest')}</p> : null}
      {detail.data ? (
        <>
          <p>
            <b>{detail.data.response.id}</b> · {t('tenant')} <b>{detail.data.response.tenant}</b> · {t('clientSent')} {fmt(detail.data.response.promptTokens)} {t('tokens')} · {t('prefillComputed')}{' '}
            <b data-testid="computed-tokens" {...highlightable('computed-tokens')}>{fmt(detail.data.response.computedTokens)}</b>
            {detail.data.response.computedTokens === 1 && detail.data.response.promptTokens > 1 ? ` (${t('placeholderNote')})` : ''} · {t('status')}{' '}
            <b data-testid="transfer-status" {...highlightable('transfer-status')}>{detail.data.response.status}</b>
          </p>
          <div className="stepper" role="group" aria-label={t('step')}>
            <button type="button" onClick={() => go(current - 1)} disabled={current <= 0}>
              {t('stepBack')}
            </button>
            <span aria-live="polite" data-testid="step-label">
              {t('stepOf', { n: String(current + 1), count: String(script.steps.length) })}
            </span>
            <button type="button" onClick={() => go(current + 1)} disabled={current >= script.steps.length - 1} data-testid="step-forward">
              {t('stepForward')}
            </button>
          </div>
          {moment ? <HandoffSteps run={run} moment={moment} pointable /> : null}
          {moment && blockPages.length > 0 ? (
            <>
              <h3>
                {t('blockTable', { node: moment.blockTable.node })}
              </h3>
              <BlockTableStrip moment={moment} focus={focusOf(run, req)!} />
              <p className="legend-inline" data-testid="block-table-legend">
                <span className="key rel-own" aria-hidden="true" /> {t('relOwn')} <span className="key rel-placeholder" aria-hidden="true" /> {t('relPlaceholder')}{' '}
                <span className="key rel-foreign" aria-hidden="true" /> {t('relForeign')} <span className="key rel-reserved" aria-hidden="true" /> {t('relReserved')}
              </p>
            </>
          ) : null}
          {done && done.type === 'transfer-done' ? (
            <p className="done-message" {...highlightable('done-message')}>
              <b>{t('doneMessage')}</b> <code>{t('doneValue', { room: String(done.room), status: done.status })}</code> — {t('doneNote')} <SourceRef id="B10" />
            </p>
          ) : null}
        </>
      ) : null}
      <ProtocolCheck />
    </section>
  );
}
