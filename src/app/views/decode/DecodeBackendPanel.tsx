/**
 * Which backend runs the decode attention (WebGPU or the JS engine), a full-size decode over the
 * warm pool, and a side-by-side comparison of both backends on the same inputs.
 */
import { useEffect, useId, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { type AdapterSummary, type BackendName } from '../../../gpu/backend.ts';
import type { BackendStatus, CompareReport, DecodeRunResult } from '../../../gpu/reports.ts';
import { FULL_CONTEXT_TOKENS } from '../../../gpu/workload.ts';
import { callDecode } from '../../run/decodeClient.ts';
import { useApp, useAppStore, type AppStore, type DecodeBusy } from '../../state/store.ts';
import { Tx, useT, type Translate } from '../../i18n/i18n.ts';
import { formatMs, formatNumber, formatScientific, type Lang } from '../../i18n/format.ts';
import { ModelBadge } from '../shared/Evidence.tsx';
import './decodePanel.css';

const BACKEND_LABEL = { webgpu: 'backendWebgpu', js: 'backendJs' } as const satisfies Record<BackendName, string>;
const SMALL_CONTEXT_TOKENS = 65_536;

/** The adapter in words (the vendor's own names stay as the browser gives them). */
function adapterText(a: AdapterSummary | null | undefined, t: Translate): string {
  if (!a) return t('adapterNone');
  const name = [a.vendor, a.architecture].filter(Boolean).join(' / ') || t('adapterUnnamed');
  return `${name}${a.description ? ` (${a.description})` : ''}${a.isFallbackAdapter ? t('adapterSoftware') : ''}`;
}

/**
 * A comparison row's input in the page's language. The worker names each case in English
 * (gpu/workload.ts); the French page rebuilds the name from it. Unknown shapes are shown as they came.
 */
function caseLabel(label: string, seqLen: number, t: Translate, lang: Lang): string {
  if (lang === 'en') return label;
  const tokens = formatNumber(seqLen, lang);
  if (/^warm pool, /.test(label)) return t('compareWarmCase', { tokens });
  const m = /^random( spread)? #(\d+): [\d,]+ tokens, V=(\d+), page (\d+)$/.exec(label);
  if (!m) return label;
  return t(m[1] ? 'compareSpreadCase' : 'compareRandomCase', { index: m[2]!, tokens, vocab: m[3]!, page: m[4]! });
}
const DECODE_STEPS = 24;
const COMPARE_CASES = 12;
const COMPARE_SEED = 'compare-v1';

let started: Promise<void> | null = null;

/** Starts the worker once per page (StrictMode mounts twice); its statuses land in the store. */
function useBackendWorker() {
  const store = useAppStore();
  useEffect(() => {
    if (started) return;
    const { backend, gpuFault, bench, setDecode } = store.getState();
    started = callDecode(store, 'init', { preferred: backend, fault: gpuFault })
      .then(() => setDecode({ busy: null }))
      .catch((e: Error) => setDecode({ busy: null, error: e.message }));
    if (bench) exposeBenchHook(store);
  }, [store]);
}

/** `?bench`: lets bench/webgpu.bench.ts drive the worker from Playwright. Not present otherwise. */
function exposeBenchHook(store: AppStore) {
  (window as unknown as Record<string, unknown>).stalePagesDecodeBench = async (sizes: number[], reps: number) => (await callDecode(store, 'bench', { sizes, reps })).report;
}

async function act<T>(store: AppStore, busy: Exclude<DecodeBusy, null | 'starting'>, f: () => Promise<T>): Promise<T | undefined> {
  const { setDecode } = store.getState();
  setDecode({ busy, error: null });
  try {
    return await f();
  } catch (e) {
    setDecode({ error: e instanceof Error ? e.message : String(e) });
    return undefined;
  } finally {
    setDecode({ busy: null });
  }
}

export function DecodeBackendPanel() {
  useBackendWorker();
  const t = useT();
  const { status, busy, error } = useApp(useShallow((s) => ({ status: s.decode.status, busy: s.decode.busy, error: s.decode.error })));
  return (
    <section aria-labelledby="decode-backend-h" className="panel decode-panel" aria-busy={busy !== null} data-testid="decode-panel">
      <h2 id="decode-backend-h">
        {t('decodeTitle')} <ModelBadge title={t('decodeModelTip')} />
      </h2>
      <p className="hint">{t('decodeIntro')}</p>
      <BackendStatusView status={status} starting={busy === 'starting'} />
      <BackendChooser status={status} disabled={busy !== null} />
      <RunDecode disabled={busy !== null} running={busy === 'running'} />
      <CompareBackends disabled={busy !== null} comparing={busy === 'comparing'} />
      {error ? (
        <p role="alert" className="error" lang="en">
          {error}
        </p>
      ) : null}
    </section>
  );
}

/** The browser's own words in a fallback notice (after "unavailable:" or "stopped:"), for the French page. */
function browserReason(message: string): string | null {
  return /(?:unavailable|stopped): (.*?)(?:; the JS engine|\. The (?:request|JS engine))/.exec(message)?.[1] ?? null;
}

function BackendStatusView({ status, starting }: { status: BackendStatus | null; starting: boolean }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const notice = status?.notice ?? null;
  const reason = notice ? browserReason(notice.message) : null;
  return (
    <>
      <div role="status" data-testid="backend-notice" className={notice ? 'notice' : 'notice empty'}>
        {notice ? (
          <>
            <strong>{t('decodeFallback')}</strong>{' '}
            {lang === 'en' ? (
              notice.message
            ) : (
              <>
                {t(`notice.${notice.kind}`)}
                {reason ? (
                  <>
                    {' '}
                    {t('decodeBrowserMessage')} <code lang="en">{reason}</code>
                  </>
                ) : null}
              </>
            )}
          </>
        ) : null}
      </div>
      <dl className="backend-facts">
        <div>
          <dt>{t('backendRunning')}</dt>
          <dd data-testid="backend-running">{starting || !status ? t('backendStarting') : t(BACKEND_LABEL[status.running])}</dd>
        </div>
        <div>
          <dt>{t('backendAdapter')}</dt>
          <dd data-testid="backend-adapter">{status?.running === 'webgpu' ? adapterText(status.adapter, t) : t('backendNoAdapter')}</dd>
        </div>
        {status?.fault ? (
          <div>
            <dt>{t('backendTestFault')}</dt>
            <dd>
              <code>gpu-fault={status.fault}</code>
            </dd>
          </div>
        ) : null}
      </dl>
    </>
  );
}

function BackendChooser({ status, disabled }: { status: BackendStatus | null; disabled: boolean }) {
  const t = useT();
  const name = useId();
  const [requested, setRequested] = useState<BackendName | null>(null);
  const store = useAppStore();
  const choose = (preferred: BackendName) => {
    setRequested(preferred);
    store.getState().set({ backend: preferred });
    return act(store, 'switching', async () => {
      await callDecode(store, 'switch', { preferred });
    }).finally(() => setRequested(null));
  };
  // While switching the radios show the choice; then the running backend, which after a fallback
  // is the JS engine whatever was asked (the notice says why).
  const current = requested ?? status?.running ?? 'webgpu';
  return (
    <fieldset className="backend-choice">
      <legend>{t('backendLegend')}</legend>
      {(['webgpu', 'js'] as const).map((b) => (
        <label key={b}>
          <input type="radio" name={name} value={b} checked={current === b} disabled={disabled} onChange={() => void choose(b)} />
          {t(b === 'webgpu' ? 'backendWebgpuOption' : 'backendJsOption')}
        </label>
      ))}
    </fieldset>
  );
}

function RunDecode({ disabled, running }: { disabled: boolean; running: boolean }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const id = useId();
  const [tokens, setTokens] = useState(FULL_CONTEXT_TOKENS);
  const run = useApp((s) => s.decode.run);
  const store = useAppStore();
  const go = () =>
    act(store, 'running', async () => {
      const r = await callDecode(store, 'run', { contextTokens: tokens, steps: DECODE_STEPS });
      store.getState().setDecode({ run: r.result });
    });
  return (
    <div className="run-decode">
      <div className="row">
        <label htmlFor={id}>{t('decodeContext')}</label>
        <select id={id} value={tokens} onChange={(e) => setTokens(Number(e.target.value))}>
          <option value={SMALL_CONTEXT_TOKENS}>{t('decodeContextTokens', { tokens: formatNumber(SMALL_CONTEXT_TOKENS, lang) })}</option>
          <option value={FULL_CONTEXT_TOKENS}>{t('decodeContextTokens', { tokens: formatNumber(FULL_CONTEXT_TOKENS, lang) })}</option>
        </select>
        <button type="button" onClick={() => void go()} disabled={disabled}>
          {running ? t('decodeRunning') : t('decodeRun', { steps: formatNumber(DECODE_STEPS, lang) })}
        </button>
      </div>
      {run ? <RunView run={run} /> : null}
    </div>
  );
}

function RunView({ run }: { run: DecodeRunResult }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const foreign = run.tokens.filter((x) => x.foreign).length;
  const sources = [...new Set(run.tokens.filter((x) => x.foreign).map((x) => x.source))];
  return (
    <div data-testid="decode-result" className="decode-result">
      <p>
        <Tx
          k="decodeResult"
          vars={{
            backend: <span data-testid="decode-result-backend">{t(BACKEND_LABEL[run.backend])}</span>,
            fellBack: run.fellBack ? t('decodeFellBack') : '',
            count: formatNumber(run.tokens.length, lang),
            tenant: <b>{run.tenant}</b>,
            context: formatNumber(run.contextTokens, lang),
            ms: <span data-testid="decode-result-ms">{formatMs(run.ms, lang)}</span>,
          }}
        />
      </p>
      <blockquote className="response" data-testid="decode-result-text" lang="en">
        {run.text}
      </blockquote>
      <p className="meta">{t('decodeForeign', { foreign: formatNumber(foreign, lang), count: formatNumber(run.tokens.length, lang), sources: sources.length ? ` (${sources.join(', ')})` : '' })}</p>
    </div>
  );
}

function CompareBackends({ disabled, comparing }: { disabled: boolean; comparing: boolean }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const report = useApp((s) => s.decode.compare);
  const store = useAppStore();
  const go = () =>
    act(store, 'comparing', async () => {
      const r = await callDecode(store, 'compare', { cases: COMPARE_CASES, seed: COMPARE_SEED });
      store.getState().setDecode({ compare: r.report });
    });
  return (
    <div className="compare">
      <button type="button" onClick={() => void go()} disabled={disabled}>
        {comparing ? t('compareRunning') : t('compareRun')}
      </button>{' '}
      <span className="hint">
        <Tx
          k="compareHint"
          vars={{ small: formatNumber(SMALL_CONTEXT_TOKENS, lang), full: formatNumber(FULL_CONTEXT_TOKENS, lang), cases: formatNumber(COMPARE_CASES + 1, lang), seed: <code>{COMPARE_SEED}</code> }}
        />
      </span>
      {report ? <CompareView report={report} /> : null}
    </div>
  );
}

function CompareView({ report }: { report: CompareReport }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  if (report.unavailable) {
    return (
      <p data-testid="compare-summary" className="error">
        <Tx k="compareNothing" vars={{ reason: <span lang="en">{report.unavailable}</span> }} />
      </p>
    );
  }
  const ok = (r: CompareReport['rows'][number]) => r.tokensEqual && r.provenanceEqual && r.maxRelativeDiff <= report.tolerance;
  const agreeing = report.rows.filter(ok).length;
  const maxDiff = Math.max(0, ...report.rows.map((r) => r.maxRelativeDiff));
  const yes = (b: boolean) => t(b ? 'yes' : 'no');
  return (
    <>
      <p data-testid="compare-summary">
        <b>{t(agreeing === report.rows.length ? 'compareAllAgree' : 'compareDisagree')}</b>
        {lang === 'fr' ? '\u00a0: ' : ': '}
        <Tx
          k="compareSummary"
          vars={{
            agreeing: formatNumber(agreeing, lang),
            count: formatNumber(report.rows.length, lang),
            // The machine-readable value stays in the element's data, for tests and tools.
            diff: (
              <span data-testid="compare-max-diff" data-value={maxDiff}>
                {formatScientific(maxDiff, lang, 2)}
              </span>
            ),
            tolerance: formatScientific(report.tolerance, lang, 0),
            adapter: adapterText(report.adapter, t),
          }}
        />
      </p>
      <div className="table-wrap" tabIndex={0} role="region" aria-label={t('compareRegion')}>
        <table data-testid="compare-table">
          <caption className="visually-hidden">{t('compareCaption')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('compareInput')}</th>
              <th scope="col">{t('compareSteps')}</th>
              <th scope="col">{t('compareTokensEqual')}</th>
              <th scope="col">{t('compareProvenanceEqual')}</th>
              <th scope="col">{t('compareMaxDiff')}</th>
              <th scope="col">JS</th>
              <th scope="col">WebGPU</th>
            </tr>
          </thead>
          <tbody>
            {report.rows.map((r) => (
              <tr key={r.label} data-agrees={ok(r) ? 'yes' : 'no'} className={ok(r) ? '' : 'bad'}>
                <th scope="row">
                  {caseLabel(r.label, r.seqLen, t, lang)}
                  {r.error ? (
                    <span className="error" lang="en">
                      {' '}
                      — {r.error}
                    </span>
                  ) : null}
                </th>
                <td>{formatNumber(r.steps, lang)}</td>
                <td>{yes(r.tokensEqual)}</td>
                <td>{yes(r.provenanceEqual)}</td>
                <td>{Number.isFinite(r.maxRelativeDiff) ? formatScientific(r.maxRelativeDiff, lang, 2) : '—'}</td>
                <td>{formatMs(r.jsMs, lang)}</td>
                <td>{formatMs(r.webgpuMs, lang)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
