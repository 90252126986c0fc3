import { Suspense, lazy } from 'react';
import { useRequestDetail } from '../../run/hooks.ts';
import { useT } from '../../i18n/i18n.ts';
import type { RunSummary } from '../../run/hooks.ts';
import { useApp } from '../../state/store.ts';
import { tenantCss, tenantInk } from '../shared/palette.ts';
import { highlightable } from '../shared/highlight.ts';
import { RequestPicker } from '../shared/RequestPicker.tsx';
import { AssumptionBadge, FactBadge, ModelBadge } from '../shared/Evidence.tsx';
import { describeRefusal } from '../shared/engineText.ts';
import { formatNumber } from '../../i18n/format.ts';
import { GATEWAY_PHASE } from '../../../engine/index.ts';

// WebGPU and its shaders load only with this view.
const DecodeBackendPanel = lazy(() => import('../decode/DecodeBackendPanel.tsx').then((m) => ({ default: m.DecodeBackendPanel })));

export function ResponseView({ run }: { run: RunSummary }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const fmt = (n: number) => formatNumber(n, lang);
  const req = useApp((s) => s.selectedRequest);
  const detail = useRequestDetail(run, req);
  const r = detail.data?.response;
  const words = detail.data?.words ?? [];
  const atGateway = req !== null && req < run.requests.count && run.requests.phase[req] === GATEWAY_PHASE;
  const refusal = detail.data ? describeRefusal(t, { lang, phase: run.phases[run.requests.phase[req!]!], events: detail.data.events }) : null;
  return (
    <section aria-labelledby="response-h" className="response-view">
      <h2 id="response-h">
        {t('responseTitle')} <ModelBadge />
      </h2>
      <p className="hint model-note" data-testid="response-model-note">
        {t('responseModelNote')} <FactBadge id="F6" /> <AssumptionBadge id="A12" />
      </p>
      <RequestPicker run={run} />
      {req === null ? <p className="hint">{t('selectRequest')}</p> : null}
      {atGateway ? (
        <p data-testid="response-gateway">
          {t('gatewayRefused', { status: String(run.requests.status[req]) })} <AssumptionBadge id="A8" />
        </p>
      ) : null}
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
                {r.computedTokens === 1 && r.promptTokens > 1 ? `${fmt(1)} (${t('placeholderNote')})` : `${fmt(r.computedTokens)} ${t('tokens')}`}
              </dd>
            </div>
            <div>
              <dt>{t('status')}</dt>
              <dd data-testid="response-status">HTTP {r.status}</dd>
            </div>
          </dl>
          {r.tokens.length === 0 ? (
            <p data-testid="response-refusal">
              {t('notServed')} {refusal}
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
                      : t('tokenSource', { who: foreign ? `${t('foreignKv')} ${p.writerTenant}` : t('ownKv'), node: p.node, page: fmt(p.page) });
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
                {r.canaryHits.length ? t('canaryHits', { tenants: r.canaryHits.join(', ') }) : ''}
              </p>
              {r.expectedText ? (
                <p className="expected">
                  {t('expected')} <q lang="en">{r.expectedText}</q>
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
