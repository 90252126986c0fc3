import { Suspense, lazy } from 'react';
import { useRequestDetail } from '../../run/hooks.ts';
import { tokenSourcesOf } from '../../moment/moment.ts';
import { useT } from '../../i18n/i18n.ts';
import type { RunSummary } from '../../run/hooks.ts';
import { useApp } from '../../state/store.ts';
import { ResponseTokens } from './ResponseTokens.tsx';
import { AttentionTable } from './AttentionTable.tsx';
import { highlightable } from '../shared/highlight.ts';
import { RequestPicker } from '../shared/RequestPicker.tsx';
import { AssumptionBadge, FactBadge, ModelBadge } from '../shared/Evidence.tsx';
import { describeRefusal } from '../shared/engineText.ts';
import { formatNumber } from '../../i18n/format.ts';
import { GATEWAY_PHASE } from '../../../engine/index.ts';
import { trackPending } from '../../state/settled.ts';

// WebGPU and its shaders load only with this view.
const DecodeBackendPanel = lazy(() => trackPending(import('../decode/DecodeBackendPanel.tsx')).then((m) => ({ default: m.DecodeBackendPanel })));

/** `picker`: false where another picker of the selected request is on screen (the first screen has one). */
export function ResponseView({ run, picker = true }: { run: RunSummary; picker?: boolean }) {
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
      {picker ? <RequestPicker run={run} /> : null}
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
              <ResponseTokens run={run} response={r} words={words} testId="response-tokens" sources={detail.data && detail.data.runKey === run.runKey ? tokenSourcesOf(run, r.request, detail.data) : null} />
              <AttentionTable run={run} response={r} words={words} />
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
