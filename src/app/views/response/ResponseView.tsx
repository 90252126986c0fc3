import { Suspense, lazy } from 'react';
import { useRequestDetail } from '../../run/hooks.ts';
import { useT } from '../../i18n/i18n.ts';
import type { RunSummary } from '../../run/hooks.ts';
import { useApp } from '../../state/store.ts';
import { tenantCss, tenantInk } from '../shared/palette.ts';
import { highlightable } from '../shared/highlight.ts';
import { RequestPicker } from '../shared/RequestPicker.tsx';

const fmt = (n: number) => n.toLocaleString('en-US');

// WebGPU and its shaders load only with this view.
const DecodeBackendPanel = lazy(() => import('../decode/DecodeBackendPanel.tsx').then((m) => ({ default: m.DecodeBackendPanel })));

export function ResponseView({ run }: { run: RunSummary }) {
  const t = useT();
  const req = useApp((s) => s.selectedRequest);
  const detail = useRequestDetail(run, req);
  const r = detail.data?.response;
  const words = detail.data?.words ?? [];
  return (
    <section aria-labelledby="response-h" className="response-view">
      <h2 id="response-h">
        {t('responseTitle')} <span className="badge model">{t('model')}</span>
      </h2>
      <RequestPicker run={run} />
      {req === null ? <p className="hint">{t('selectRequest')}</p> : null}
      {r ? (
        <>
          <dl className="facts-row">
            <div>
              <dt>{t('clientSent')}</dt>
              <dd>
                {fmt(r.promptTokens)} {t('tokens')}
              </dd>
            </div>
            <div>
              <dt>{t('prefillComputed')}</dt>
              <dd data-testid="response-computed">
                {r.computedTokens === 1 && r.promptTokens > 1 ? `1 (${t('placeholderNote')})` : `${fmt(r.computedTokens)} ${t('tokens')}`}
              </dd>
            </div>
            <div>
              <dt>{t('status')}</dt>
              <dd data-testid="response-status">HTTP {r.status}</dd>
            </div>
          </dl>
          {r.tokens.length === 0 ? (
            <p>
              {t('notServed')} {r.reason}
            </p>
          ) : (
            <>
              <p className="tokens" data-testid="response-tokens" lang="en" {...highlightable('response-tokens')}>
                {r.tokens.map((tok, i) => {
                  const p = r.provenance[i]!;
                  const word = words[tok] ?? String(tok);
                  const foreign = p.writerTenant !== null && p.writerTenant !== r.tenant;
                  const tenantIndex = p.writerTenant === null ? -1 : run.tenants.indexOf(p.writerTenant);
                  const canary = word.startsWith('canary-');
                  const title =
                    p.writerTenant === null
                      ? t('emptyKv')
                      : foreign
                        ? `${t('foreignKv')} ${p.writerTenant} (${p.node}, ${t('page')} ${p.page})`
                        : `${t('ownKv')} (${p.node}, ${t('page')} ${p.page})`;
                  return (
                    <span
                      key={i}
                      className={`tok ${foreign ? 'foreign' : p.writerTenant === null ? 'empty' : 'own'}${canary ? ' canary' : ''}`}
                      style={foreign ? { background: tenantCss(tenantIndex), color: tenantInk(tenantIndex) } : undefined}
                      title={title}
                      data-writer={p.writerTenant ?? ''}
                    >
                      {canary ? '⚑ ' : ''}
                      {word}
                      {foreign ? <sub aria-label={`${t('foreignKv')} ${p.writerTenant}`}>{p.writerTenant}</sub> : null}
                    </span>
                  );
                })}
              </p>
              <p data-testid="response-leak" className={r.leakedFrom.length ? 'alert' : ''} {...highlightable('response-leak')}>
                {r.leakedFrom.length ? t('leakOf', { tenants: r.leakedFrom.join(', ') }) : t('noLeak')}
                {r.canaryHits.length ? ` · ⚑ ${t('canaryMarker')}: ${r.canaryHits.join(', ')}` : ''}
              </p>
              {r.expectedText ? (
                <p className="expected">
                  {t('expected')}: <q>{r.expectedText}</q>
                </p>
              ) : null}
            </>
          )}
        </>
      ) : null}
      <Suspense fallback={<p role="status">{t('loading')}</p>}>
        <DecodeBackendPanel />
      </Suspense>
    </section>
  );
}
