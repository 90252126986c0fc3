import { memo, useEffect, useId, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { FIXED_PREFILL_CAPACITY_TOKENS, MATRIX_ROWS, type MatrixRow, type Mitigations } from '../engine/index.ts';
import { ASSUMPTIONS } from '../engine/incident/index.ts';
import { TENANT_NAMES } from '../engine/index.ts';
import { AssumptionBadge, FactBadge, ModelBadge } from './Evidence.tsx';
import { useMatrix } from './hooks.ts';
import { useT, type MessageKey } from './i18n.ts';
import type { RunSummary } from './protocol.ts';
import { useApp, type FixChoice, type Switches } from './state/store.ts';

const MITIGATIONS: (keyof Mitigations)[] = ['clearPagesOnFree', 'perReadIntegrityCheck', 'transferredLengthCheck', 'deploymentCapacityCheck'];
const FIXES: FixChoice[] = ['fixed-path', 'capacity', ...MITIGATIONS];

/** Where a switch's mechanism is stated: a fact id, or null where it is the project's model. */
const EVIDENCE: Record<string, string | null> = {
  capacityGap: 'F14',
  buggyPath: 'F17',
  clearPagesOnFree: null,
  perReadIntegrityCheck: 'F26',
  transferredLengthCheck: null,
  deploymentCapacityCheck: 'F26',
};

function Switch({ label, hint, checked, onChange, evidence }: { label: string; hint?: string; checked: boolean; onChange: (on: boolean) => void; evidence: string | null }) {
  const id = useId();
  return (
    <div className="toggle">
      <input id={id} type="checkbox" role="switch" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={id}>
        {label}
        {hint ? <span className="hint"> — {hint}</span> : null}
      </label>
      {evidence ? <FactBadge id={evidence} /> : <ModelBadge />}
    </div>
  );
}

/** A number input that commits on Enter or blur, so typing "600" does not start three replays. */
function TrafficField({ label, value, min, max, onCommit, testId, badge }: { label: string; value: number; min: number; max: number; onCommit: (n: number) => void; testId: string; badge: string }) {
  const id = useId();
  const [draft, setDraft] = useState(String(value));
  useEffect(() => setDraft(String(value)), [value]);
  const commit = () => {
    const n = Number(draft);
    if (Number.isInteger(n) && n >= min && n <= max) onCommit(n);
    else setDraft(String(value));
  };
  return (
    <div className="traffic-field">
      <label htmlFor={id}>{label}</label>
      <input id={id} type="number" inputMode="numeric" min={min} max={max} value={draft} onChange={(e) => setDraft(e.target.value)} onBlur={commit} onKeyDown={(e) => e.key === 'Enter' && commit()} data-testid={testId} />
      <AssumptionBadge id={badge} />
    </div>
  );
}

function Assumptions() {
  const t = useT();
  const scenario = useApp((s) => s.scenario);
  const requestsPerDay = useApp((s) => s.requestsPerDay);
  const tenants = useApp((s) => s.tenants);
  const set = useApp((s) => s.set);
  if (scenario !== 'incident') return null;
  return (
    <details className="assumptions">
      <summary>{t('assumptionsTitle')}</summary>
      <TrafficField label={t('requestsPerDay')} value={requestsPerDay} min={0} max={20_000} onCommit={(n) => set({ requestsPerDay: n })} testId="traffic-volume" badge="A2" />
      <TrafficField label={t('tenantCount')} value={tenants} min={1} max={TENANT_NAMES.length} onCommit={(n) => set({ tenants: n })} testId="traffic-tenants" badge="A1" />
      <ul>
        {ASSUMPTIONS.map((a) => (
          <li key={a.id}>
            <AssumptionBadge id={a.id} />
          </li>
        ))}
      </ul>
    </details>
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
    ...(c.statusCounts['403'] ? [['failed403', c.statusCounts['403'], 'count-403'] as [MessageKey, number, string]] : []),
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
        {t('matrixCaption')} <ModelBadge />
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
        <Switch label={t('capacityGap')} hint={t('capacityGapHint')} checked={capacityGap} onChange={(on) => set({ capacityGap: on })} evidence={EVIDENCE.capacityGap!} />
        <Switch label={t('buggyPath')} hint={t('buggyPathHint')} checked={rejectPath === 'buggy'} onChange={(on) => set({ rejectPath: on ? 'buggy' : 'fixed' })} evidence={EVIDENCE.buggyPath!} />
      </fieldset>
      <fieldset>
        <legend>{t('mitigations')}</legend>
        {MITIGATIONS.map((m) => (
          <Switch key={m} label={t(m)} checked={mitigations[m]} onChange={(on) => setMitigation(m, on)} evidence={EVIDENCE[m] ?? null} />
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
        {t('outcome')} <ModelBadge />
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
      <Assumptions />
      <details>
        <summary>{t('matrixTitle')}</summary>
        <MatrixTable />
      </details>
    </section>
  );
});
