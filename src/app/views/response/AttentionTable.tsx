/**
 * Under the trained transformer: every output token with where its attention went, by the tenant
 * who wrote the pages and that tenant's heaviest page, from the decoder's provenance. Said in text
 * (the bars repeat it in the tenants' colours), so nothing depends on colour alone.
 */
import { LEAK_SHARE_THRESHOLD, type ResponseRecord } from '../../../engine/index.ts';
import { formatNumber } from '../../i18n/format.ts';
import { useT } from '../../i18n/i18n.ts';
import type { RunSummary } from '../../run/hooks.ts';
import { useApp } from '../../state/store.ts';
import { attentionLine, percent } from '../shared/attentionText.ts';
import { tenantCss } from '../../ui/palette.ts';
import './attention.css';

export function AttentionTable({ run, response: r, words }: { run: RunSummary; response: ResponseRecord; words: string[] }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  if (!r.provenance.some((p) => p.attention)) return null;
  const m = run.model;
  return (
    <div className="attention-table" data-testid="response-attention">
      <p className="hint">
        {m ? t('modelTransformerNote', { layers: String(m.layers), heads: String(m.heads), parameters: formatNumber(m.parameters, lang) }) : null}{' '}
        {t('attnNote', { threshold: percent(LEAK_SHARE_THRESHOLD, lang) })}
      </p>
      <table>
        <caption>{t('attnTitle')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('attnWordCol')}</th>
            <th scope="col">{t('attnFromCol')}</th>
          </tr>
        </thead>
        <tbody>
          {r.tokens.map((tok, i) => {
            const a = r.provenance[i]?.attention;
            if (!a) return null;
            const leaked = r.provenance[i]!.foreignShare >= LEAK_SHARE_THRESHOLD;
            let x = 0;
            return (
              <tr key={i} data-testid="attention-row" data-foreign={r.provenance[i]!.foreignShare} className={leaked ? 'attn-leaked' : undefined}>
                <th scope="row" lang="en">
                  {words[tok] ?? String(tok)}
                  {leaked ? <span className="attn-tag">{t('attnLeakedWord')}</span> : null}
                </th>
                <td>
                  <svg className="attn-bar" viewBox="0 0 100 6" preserveAspectRatio="none" aria-hidden="true">
                    {a.tenants.map(([tenant, share], k) => {
                      const index = tenant === null ? -1 : run.tenants.indexOf(tenant);
                      const el = <rect key={k} x={x} y={0} width={share * 100} height={6} fill={index >= 0 ? tenantCss(index) : undefined} className={index >= 0 ? undefined : 'attn-zero'} />;
                      x += share * 100;
                      return el;
                    })}
                  </svg>
                  <span className="attn-text">{attentionLine(t, lang, a, r.tenant)}</span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
