/**
 * Which backend runs the decode attention (WebGPU or the JS engine), a full-size decode over the
 * warm pool, and a side-by-side comparison of both backends on the same inputs.
 */
import { useEffect, useId, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { describeAdapter, type BackendName } from '../../../gpu/backend.ts';
import type { BackendStatus, CompareReport, DecodeRunResult } from '../../../gpu/reports.ts';
import { FULL_CONTEXT_TOKENS } from '../../../gpu/workload.ts';
import { callDecode } from '../../run/decodeClient.ts';
import { useApp, type DecodeBusy } from '../../state/store.ts';
import './decodePanel.css';

const fmt = (n: number) => n.toLocaleString('en-US');
const ms = (n: number) => (Number.isFinite(n) ? `${n < 10 ? n.toFixed(1) : n.toFixed(0)} ms` : '—');
const BACKEND_LABEL: Record<BackendName, string> = { webgpu: 'WebGPU', js: 'JS engine' };
const DECODE_STEPS = 24;
const COMPARE_CASES = 12;
const COMPARE_SEED = 'compare-v1';

let started: Promise<void> | null = null;

/** Starts the worker once per page (StrictMode mounts twice); its statuses land in the store. */
function useBackendWorker() {
  useEffect(() => {
    if (started) return;
    const { backend, gpuFault, bench, setDecode } = useApp.getState();
    started = callDecode('init', { preferred: backend, fault: gpuFault })
      .then(() => setDecode({ busy: null }))
      .catch((e: Error) => setDecode({ busy: null, error: e.message }));
    if (bench) exposeBenchHook();
  }, []);
}

/** `?bench`: lets bench/webgpu.bench.ts drive the worker from Playwright. Not present otherwise. */
function exposeBenchHook() {
  (window as unknown as Record<string, unknown>).stalePagesDecodeBench = async (sizes: number[], reps: number) => (await callDecode('bench', { sizes, reps })).report;
}

async function act<T>(busy: Exclude<DecodeBusy, null | 'starting'>, f: () => Promise<T>): Promise<T | undefined> {
  const { setDecode } = useApp.getState();
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
  const { status, busy, error } = useApp(useShallow((s) => ({ status: s.decode.status, busy: s.decode.busy, error: s.decode.error })));
  return (
    <section aria-labelledby="decode-backend-h" className="panel decode-panel" aria-busy={busy !== null}>
      <h2 id="decode-backend-h">
        Decode backend <span className="badge model" title="The engine's toy decode model, run on this device">model</span>
      </h2>
      <p className="hint">
        Decode reads every slot its block table points to. That pass runs as WebGPU compute shaders when this browser has an adapter, and in the
        JS engine otherwise; both must give the same tokens and the same provenance.
      </p>
      <BackendStatusView status={status} starting={busy === 'starting'} />
      <BackendChooser status={status} disabled={busy !== null} />
      <RunDecode disabled={busy !== null} running={busy === 'running'} />
      <CompareBackends disabled={busy !== null} comparing={busy === 'comparing'} />
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : null}
    </section>
  );
}

function BackendStatusView({ status, starting }: { status: BackendStatus | null; starting: boolean }) {
  return (
    <>
      <div role="status" data-testid="backend-notice" className={status?.notice ? 'notice' : 'notice empty'}>
        {status?.notice ? (
          <>
            <strong>Fallback:</strong> {status.notice.message}
          </>
        ) : null}
      </div>
      <dl className="backend-facts">
        <div>
          <dt>Running</dt>
          <dd data-testid="backend-running">{starting || !status ? 'starting…' : BACKEND_LABEL[status.running]}</dd>
        </div>
        <div>
          <dt>Adapter</dt>
          <dd data-testid="backend-adapter">{status?.running === 'webgpu' ? describeAdapter(status.adapter) : 'none (CPU, JS engine)'}</dd>
        </div>
        {status?.fault ? (
          <div>
            <dt>Test fault</dt>
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
  const name = useId();
  const [requested, setRequested] = useState<BackendName | null>(null);
  const choose = (preferred: BackendName) => {
    setRequested(preferred);
    useApp.getState().set({ backend: preferred });
    return act('switching', async () => {
      await callDecode('switch', { preferred });
    }).finally(() => setRequested(null));
  };
  // While switching the radios show the choice; then the running backend, which after a fallback
  // is the JS engine whatever was asked (the notice says why).
  const current = requested ?? status?.running ?? 'webgpu';
  return (
    <fieldset className="backend-choice">
      <legend>Backend</legend>
      {(['webgpu', 'js'] as const).map((b) => (
        <label key={b}>
          <input type="radio" name={name} value={b} checked={current === b} disabled={disabled} onChange={() => void choose(b)} />
          {b === 'webgpu' ? 'WebGPU (compute shaders)' : 'JS engine (CPU)'}
        </label>
      ))}
    </fieldset>
  );
}

function RunDecode({ disabled, running }: { disabled: boolean; running: boolean }) {
  const id = useId();
  const [tokens, setTokens] = useState(FULL_CONTEXT_TOKENS);
  const run = useApp((s) => s.decode.run);
  const go = () =>
    act('running', async () => {
      const r = await callDecode('run', { contextTokens: tokens, steps: DECODE_STEPS });
      useApp.getState().setDecode({ run: r.result });
    });
  return (
    <div className="run-decode">
      <div className="row">
        <label htmlFor={id}>Context</label>
        <select id={id} value={tokens} onChange={(e) => setTokens(Number(e.target.value))}>
          <option value={65_536}>65,536 tokens</option>
          <option value={FULL_CONTEXT_TOKENS}>{FULL_CONTEXT_TOKENS.toLocaleString('en-US')} tokens</option>
        </select>
        <button type="button" onClick={() => void go()} disabled={disabled}>
          {running ? 'Decoding…' : `Decode ${DECODE_STEPS} tokens`}
        </button>
      </div>
      {run ? <RunView run={run} /> : null}
    </div>
  );
}

function RunView({ run }: { run: DecodeRunResult }) {
  const foreign = run.tokens.filter((t) => t.foreign).length;
  const sources = [...new Set(run.tokens.filter((t) => t.foreign).map((t) => t.source))];
  return (
    <div data-testid="decode-result" className="decode-result">
      <p>
        <span data-testid="decode-result-backend">{BACKEND_LABEL[run.backend]}</span>
        {run.fellBack ? ' (started on WebGPU, finished on the JS engine)' : ''} decoded {run.tokens.length} tokens for tenant <b>{run.tenant}</b> over a{' '}
        {fmt(run.contextTokens)}-token block table in <span data-testid="decode-result-ms">{ms(run.ms)}</span>.
      </p>
      <blockquote className="response" data-testid="decode-result-text">
        {run.text}
      </blockquote>
      <p className="meta">
        {foreign} of {run.tokens.length} tokens drew most on other tenants' stale pages{sources.length ? ` (${sources.join(', ')})` : ''}.
      </p>
    </div>
  );
}

function CompareBackends({ disabled, comparing }: { disabled: boolean; comparing: boolean }) {
  const report = useApp((s) => s.decode.compare);
  const go = () =>
    act('comparing', async () => {
      const r = await callDecode('compare', { cases: COMPARE_CASES, seed: COMPARE_SEED });
      useApp.getState().setDecode({ compare: r.report });
    });
  return (
    <div className="compare">
      <button type="button" onClick={() => void go()} disabled={disabled}>
        {comparing ? 'Comparing…' : 'Compare backends'}
      </button>{' '}
      <span className="hint">
        the warm pool at 65,536 and {FULL_CONTEXT_TOKENS.toLocaleString('en-US')} tokens, and {COMPARE_CASES + 1} random contexts (seed <code>{COMPARE_SEED}</code>)
      </span>
      {report ? <CompareView report={report} /> : null}
    </div>
  );
}

function CompareView({ report }: { report: CompareReport }) {
  if (report.unavailable) {
    return (
      <p data-testid="compare-summary" className="error">
        Nothing to compare: {report.unavailable}
      </p>
    );
  }
  const ok = (r: CompareReport['rows'][number]) => r.tokensEqual && r.provenanceEqual && r.maxRelativeDiff <= report.tolerance;
  const agreeing = report.rows.filter(ok).length;
  const maxDiff = Math.max(0, ...report.rows.map((r) => r.maxRelativeDiff));
  const yes = (b: boolean) => (b ? '✓ yes' : '✗ no');
  return (
    <>
      <p data-testid="compare-summary">
        <b>{agreeing === report.rows.length ? 'All agree' : 'Disagreement'}</b>: {agreeing} of {report.rows.length} inputs agree; max relative score difference{' '}
        <span data-testid="compare-max-diff">{maxDiff.toExponential(2)}</span> (tolerance {report.tolerance.toExponential(0)}); WebGPU on {describeAdapter(report.adapter)}.
      </p>
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Backend comparison">
        <table data-testid="compare-table">
          <caption className="visually-hidden">JS engine versus WebGPU on the same inputs</caption>
          <thead>
            <tr>
              <th scope="col">Input</th>
              <th scope="col">Steps</th>
              <th scope="col">Tokens equal</th>
              <th scope="col">Provenance equal</th>
              <th scope="col">Max rel. score diff</th>
              <th scope="col">JS</th>
              <th scope="col">WebGPU</th>
            </tr>
          </thead>
          <tbody>
            {report.rows.map((r) => (
              <tr key={r.label} data-agrees={ok(r) ? 'yes' : 'no'} className={ok(r) ? '' : 'bad'}>
                <th scope="row">
                  {r.label}
                  {r.error ? <span className="error"> — {r.error}</span> : null}
                </th>
                <td>{r.steps}</td>
                <td>{yes(r.tokensEqual)}</td>
                <td>{yes(r.provenanceEqual)}</td>
                <td>{Number.isFinite(r.maxRelativeDiff) ? r.maxRelativeDiff.toExponential(2) : '—'}</td>
                <td>{ms(r.jsMs)}</td>
                <td>{ms(r.webgpuMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
