/**
 * The incident as it happened and with a fix, side by side on the same clock: where the two runs
 * first answer differently (computed from both runs' request tables), what the fix changed, and the
 * selected request's two responses next to each other.
 */
import { useMemo } from 'react';
import type { SwitchKey } from '../../../engine/index.ts';
import { useT } from '../../i18n/i18n.ts';
import { formatNumber } from '../../i18n/format.ts';
import { useRequestDetail, type RunSummary } from '../../run/hooks.ts';
import { useApp } from '../../state/store.ts';
import { ModelBadge } from '../shared/Evidence.tsx';
import { tenantCss, tenantInk } from '../../ui/palette.ts';
import { differences, type Outcome } from './divergence.ts';
import './compare.css';

type T = ReturnType<typeof useT>;

export function outcomeText(o: Outcome, t: T): string {
  return [String(o.status), ...(o.leaked ? [t('outcomeLeak')] : []), ...(o.wrong ? [t('outcomeWrong')] : [])].join(' + ');
}

function ResponseCard({ run, req, title, testId }: { run: RunSummary; req: number; title: string; testId: string }) {
  const t = useT();
  const detail = useRequestDetail(run, req);
  const r = detail.data?.response;
  const words = detail.data?.words ?? [];
  return (
    <article className="compare-card" data-testid={testId} aria-label={title}>
      <h3>{title}</h3>
      {!r ? (
        <p role="status">{t('loading')}</p>
      ) : (
        <>
          <p className="compare-status" data-testid={`${testId}-status`}>
            HTTP {r.status}
            {r.leakedFrom.length ? <span className="alert"> · {t('leakOf', { tenants: r.leakedFrom.join(', ') })}</span> : null}
          </p>
          {r.tokens.length === 0 ? (
            <p className="hint">{t('notServed')}</p>
          ) : (
            <p className="tokens" lang="en">
              {r.tokens.map((tok, i) => {
                const p = r.provenance[i]!;
                const foreign = p.writerTenant !== null && p.writerTenant !== r.tenant;
                const k = p.writerTenant === null ? -1 : run.tenants.indexOf(p.writerTenant);
                return (
                  <span key={i} className={`tok ${foreign ? 'foreign' : p.writerTenant === null ? 'empty' : 'own'}`} style={foreign ? { background: tenantCss(k), color: tenantInk(k) } : undefined}>
                    {words[tok] ?? String(tok)}
                    {foreign ? <sub aria-label={`${t('foreignKv')} ${p.writerTenant}`}>{p.writerTenant}</sub> : null}
                  </span>
                );
              })}
            </p>
          )}
          {r.status === 200 && !r.leakedFrom.length ? <p className="hint">{r.correct === false ? t('outcomeWrong') : t('noLeak')}</p> : null}
        </>
      )}
    </article>
  );
}

export function ComparePanel({ run, compare }: { run: RunSummary; compare: RunSummary }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const fix = useApp((s) => s.compare) as SwitchKey;
  const req = useApp((s) => s.selectedRequest);
  const set = useApp((s) => s.set);
  const diffs = useMemo(() => differences(run, compare), [run, compare]);
  const first = diffs[0] ?? null;
  const fmt = (n: number) => formatNumber(n, lang);
  const changed = useMemo(() => {
    const c = { rejected: 0, failed: 0, served: 0, leak: 0 };
    for (const d of diffs) c[d.withFix.leaked ? 'leak' : d.withFix.status >= 500 ? 'failed' : d.withFix.status >= 400 ? 'rejected' : 'served']++;
    return c;
  }, [diffs]);
  const fixName = t(`switch.${fix}.fix`);
  const inRange = req !== null && req < run.requests.count && req < compare.requests.count;
  return (
    <section className="compare-panel panel" aria-labelledby="compare-h" data-testid="compare-panel">
      <h2 id="compare-h">
        {t('compareTitle', { fix: fixName })} <ModelBadge />
      </h2>
      <p data-testid="divergence">
        {first ? (
          <>
            <b>{t('divergenceSentence', { id: run.requests.ids[first.req]!, a: outcomeText(first.asItHappened, t), b: outcomeText(first.withFix, t) })}</b>{' '}
            <button type="button" onClick={() => set({ time: first.t, selectedRequest: first.req, playing: false })} data-testid="divergence-go">
              {t('divergenceGo')}
            </button>
          </>
        ) : (
          t('divergenceNone')
        )}
      </p>
      {diffs.length ? (
        <p className="hint" data-testid="fix-did">
          {t('fixDid', { n: fmt(diffs.length), rejected: fmt(changed.rejected), failed: fmt(changed.failed), served: fmt(changed.served), leak: fmt(changed.leak) })}
        </p>
      ) : null}
      {inRange ? (
        <div className="compare-cards">
          <ResponseCard run={run} req={req} title={t('asItHappened')} testId="compare-main" />
          <ResponseCard run={compare} req={req} title={t('withTheFix', { fix: fixName })} testId="compare-fixed" />
        </div>
      ) : (
        <p className="hint">{t('selectRequest')}</p>
      )}
    </section>
  );
}
