import { memo, useId } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { FIXED_PREFILL_CAPACITY_TOKENS, MATRIX_ROWS, type MatrixRow, type Mitigations } from '../engine/index.ts';
import { useMatrix } from './hooks.ts';
import { useT, type MessageKey } from './i18n.ts';
import type { RunSummary } from './protocol.ts';
import { useApp, type FixChoice, type Switches } from './state/store.ts';

const MITIGATIONS: (keyof Mitigations)[] = ['clearPagesOnFree', 'perReadIntegrityCheck', 'transferredLengthCheck', 'deploymentCapacityCheck'];
const FIXES: FixChoice[] = ['fixed-path', 'capacity', ...MITIGATIONS];

function Switch({ label, hint, checked, onChange }: { label: string; hint?: string; checked: boolean; onChange: (on: boolean) => void }) {
  const id = useId();
  return (
    <div className="toggle">
      <input id={id} type="checkbox" role="switch" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={id}>
        {label}
        {hint ? <span className="hint"> — {hint}</span> : null}
      </label>
    </div>
  );
}

/** Which matrix row the switches correspond to (null when the combination is not a row). */
export function matrixRowOf(s: Switches): MatrixRow | null {
  const m = s.mitigations;
  const on = MITIGATIONS.filter((k) => m[k]);
  return (
    MATRIX_ROWS.find((row) => {
      const o = row.overrides;
      const gap = o.prefillCapacityTokens !== FIXED_PREFILL_CAPACITY_TOKENS;
      const path = o.rejectPath ?? 'buggy';
      const rowOn = MITIGATIONS.filter((k) => o.mitigations?.[k]);
      return gap === s.capacityGap && path === s.rejectPath && rowOn.join() === on.join();
    }) ?? null
  );
}

function Counters({ run, label }: { run: RunSummary; label: string }) {
  const t = useT();
  const c = run.counters;
  if (run.refused) return <p className="alert" role="alert" data-testid="refused">{t('refused')}: {run.refused}</p>;
  const cells: [MessageKey, number, string][] = [
    ['requests', c.requests, 'count-requests'],
    ['answered200', c.served, 'count-served'],
    ['rejected400', c.rejected, 'count-rejected'],
    ['failed500', c.errors, 'count-errors'],
    ['leaked', c.leaked, 'count-leaked'],
    ['canaryFound', c.canaryLeaks, 'count-canary'],
    ['wrongOutput', c.integrityFailures, 'count-wrong'],
  ];
  return (
    <dl className="counters" aria-label={label}>
      {cells.map(([key, value, testId]) => (
        <div key={key} className={key === 'leaked' && value > 0 ? 'bad' : ''}>
          <dt>{t(key)}</dt>
          <dd data-testid={label === 'main' ? testId : `${testId}-compare`}>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function MatrixTable() {
  const t = useT();
  const matrix = useMatrix();
  const switches = useApp(useShallow((s) => ({ capacityGap: s.capacityGap, rejectPath: s.rejectPath, mitigations: s.mitigations })));
  const currentRow = matrixRowOf(switches);
  if (!matrix.data) return <p role="status">{t('loading')}</p>;
  return (
    <table className="matrix" data-testid="matrix">
      <caption>
        {t('matrixCaption')} <span className="badge model">{t('model')}</span>
      </caption>
      <thead>
        <tr>
          <th scope="col">{t('controlsTitle')}</th>
          <th scope="col">{t('matrixMeasured')}</th>
        </tr>
      </thead>
      <tbody>
        {matrix.data.rows.map((r) => {
          const current = currentRow?.label === r.label;
          return (
            <tr key={r.label} className={current ? 'current' : ''} aria-current={current ? 'true' : undefined}>
              <th scope="row">
                {current ? <span aria-label={t('current')}>▶ </span> : null}
                {r.label}
              </th>
              <td>
                {r.refused
                  ? t('refused')
                  : `${r.served}×200 ${r.rejected400}×400 ${r.errors500}×500 · ${t('leaked').toLowerCase()} ${r.leaked} · ${t('wrongOutput').toLowerCase()} ${r.wrongOutput}`}
                {r.matches ? ' ✓' : ' ✗'}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

export const Controls = memo(function Controls({ run, compare }: { run: RunSummary | undefined; compare: RunSummary | undefined }) {
  const t = useT();
  const capacityGap = useApp((s) => s.capacityGap);
  const rejectPath = useApp((s) => s.rejectPath);
  const mitigations = useApp((s) => s.mitigations);
  const compareFix = useApp((s) => s.compare);
  const set = useApp((s) => s.set);
  const setMitigation = useApp((s) => s.setMitigation);
  return (
    <section className="controls panel" aria-labelledby="controls-h">
      <h2 id="controls-h">{t('controlsTitle')}</h2>
      <fieldset>
        <legend>{t('defects')}</legend>
        <Switch label={t('capacityGap')} hint={t('capacityGapHint')} checked={capacityGap} onChange={(on) => set({ capacityGap: on })} />
        <Switch label={t('buggyPath')} hint={t('buggyPathHint')} checked={rejectPath === 'buggy'} onChange={(on) => set({ rejectPath: on ? 'buggy' : 'fixed' })} />
      </fieldset>
      <fieldset>
        <legend>{t('mitigations')}</legend>
        {MITIGATIONS.map((m) => (
          <Switch key={m} label={t(m)} checked={mitigations[m]} onChange={(on) => setMitigation(m, on)} />
        ))}
      </fieldset>
      <label className="compare">
        {t('compareWith')}{' '}
        <select value={compareFix ?? ''} onChange={(e) => set({ compare: (e.target.value || null) as FixChoice | null })} data-testid="compare-select">
          <option value="">{t('compareNone')}</option>
          {FIXES.map((f) => (
            <option key={f} value={f}>
              {t(f)}
            </option>
          ))}
        </select>
      </label>
      <h3>
        {t('outcome')} <span className="badge model">{t('model')}</span>
      </h3>
      {run ? <Counters run={run} label="main" /> : <p role="status">{t('loading')}</p>}
      {compareFix && compare ? (
        <>
          <h3>
            {t('laneCompare')}: {t(compareFix)}
          </h3>
          <Counters run={compare} label="compare" />
        </>
      ) : null}
      <details>
        <summary>{t('matrixTitle')}</summary>
        <MatrixTable />
      </details>
    </section>
  );
});
