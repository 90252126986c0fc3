import { Suspense, lazy, memo, useEffect, useId, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { DEFECTS, MATRIX_ROWS, MECHANISMS, MITIGATIONS, SWITCHES, SWITCH_KEYS, TENANT_NAMES, type MatrixRow, type Switch as SwitchSpec, type SwitchEvidence, type Switches } from '../../../engine/index.ts';
import { ASSUMPTIONS } from '../../../engine/incident/index.ts';
import { Tx, useT } from '../../i18n/i18n.ts';
import { fetchSwitchAhead, type RunSummary } from '../../run/hooks.ts';
import { useApp, type SwitchKey, useAppStore } from '../../state/store.ts';
import { highlightable } from '../shared/highlight.ts';
import { AssumptionBadge, FactBadge, ModelBadge, SourceRef } from '../shared/Evidence.tsx';
import { EVIDENCE_ID, focusEvidence } from '../shared/EvidencePanel.tsx';
import { describeDeploymentRefused } from '../shared/engineText.ts';
import { formatNumber } from '../../i18n/format.ts';
import { useMomentOutcomes } from '../shared/useMoment.ts';
import { counterCells } from './counterCells.ts';
import type { Counters as RunCounters } from '../../../engine/index.ts';
import { trackPending } from '../../state/settled.ts';

function EvidenceBadge({ evidence }: { evidence: SwitchEvidence }) {
  if ('fact' in evidence) return <FactBadge id={evidence.fact} />;
  if ('facts' in evidence) return <>{evidence.facts.map((id) => <FactBadge key={id} id={id} />)}</>;
  if ('background' in evidence) return <SourceRef id={evidence.background} compact />;
  return <ModelBadge />;
}

function Switch({ spec }: { spec: SwitchSpec }) {
  const t = useT();
  const id = useId();
  const checked = useApp((s) => s.switches[spec.key]);
  const setSwitch = useApp((s) => s.setSwitch);
  const store = useAppStore();
  const ahead = () => fetchSwitchAhead(store.getState(), spec.key);
  return (
    <div className="toggle" onPointerEnter={ahead} onFocus={ahead}>
      <input id={id} type="checkbox" role="switch" checked={checked} onChange={(e) => setSwitch(spec.key, e.target.checked)} data-switch={spec.key} />
      <label htmlFor={id}>
        {t(`switch.${spec.key}.label`)}
        <span className="hint"> — {t(`switch.${spec.key}.hint`)}</span>
      </label>
      <EvidenceBadge evidence={spec.evidence} />
    </div>
  );
}


// The matrix runs its own workers' results into a table only when it is opened.
const OutcomeMatrix = lazy(() => trackPending(import('./OutcomeMatrix.tsx')).then((m) => ({ default: m.OutcomeMatrix })));
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
      <ul className="assumption-badges">
        {ASSUMPTIONS.map((a) => (
          <li key={a.id}>
            <AssumptionBadge id={a.id} />
          </li>
        ))}
      </ul>
      <p>
        <a
          href={`#${EVIDENCE_ID}`}
          onClick={(e) => {
            e.preventDefault();
            focusEvidence();
          }}
        >
          {t('assumptionsAll')}
        </a>
      </p>
    </details>
  );
}

/** `now`: the counts as of the moment (the main run's tiles), each beside the whole run's; null: the whole run's alone. */
function Counters({ run, label, now = null }: { run: RunSummary; label: 'main' | 'compare'; now?: RunCounters | null }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const c = run.counters;
  if (run.refused) {
    const detail = describeDeploymentRefused(run.refused, t, lang);
    return (
      <p className="alert" role="alert" data-testid="refused">
        {t('refused')} — {detail ?? <span lang="en">{run.refused}</span>} <FactBadge id="F14" />
      </p>
    );
  }
  const cells = counterCells(c, now);
  return (
    <dl className="counters" aria-label={t(label === 'main' ? 'countersMain' : 'countersCompare')} {...(label === 'main' ? highlightable('counters') : {})}>
      {cells.map(({ key, value, shown, testId }) => (
        <div key={key} className={key === 'leaked' && (shown ?? value) > 0 ? 'bad' : ''}>
          <dt>
            {t(key)}
            {key === 'failed403' ? (
              <>
                {' '}
                <AssumptionBadge id="A8" />
              </>
            ) : null}
          </dt>
          {shown === null ? (
            <dd data-testid={label === 'main' ? testId : `${testId}-compare`}>{formatNumber(value, lang)}</dd>
          ) : (
            <dd>
              <span data-testid={`${testId}-now`}>{formatNumber(shown, lang)}</span>{' '}
              <span className="tile-total">
                <Tx k="tileOfTotal" vars={{ total: <span data-testid={testId}>{formatNumber(value, lang)}</span> }} />
              </span>
            </dd>
          )}
        </div>
      ))}
    </dl>
  );
}

/** The main run's tiles, as of the moment's engine time (`useMomentOutcomes`). */
function MainCounters({ run }: { run: RunSummary }) {
  const now = useMomentOutcomes(run);
  return <Counters run={run} label="main" now={now} />;
}

export const Controls = memo(function Controls({ run, compare }: { run: RunSummary | undefined; compare: RunSummary | undefined }) {
  const t = useT();
  const compareFix = useApp((s) => s.compare);
  const set = useApp((s) => s.set);
  const [matrixOpened, setMatrixOpened] = useState(false);
  return (
    <section className="controls panel" aria-labelledby="controls-h">
      <h2 id="controls-h">{t('controlsTitle')}</h2>
      <fieldset {...highlightable('defects')}>
        <legend>{t('defects')}</legend>
        {(DEFECTS as readonly SwitchSpec[]).map((d) => (
          <Switch key={d.key} spec={d} />
        ))}
      </fieldset>
      <fieldset>
        <legend>{t('mitigations')}</legend>
        {(MITIGATIONS as readonly SwitchSpec[]).map((m) => (
          <Switch key={m.key} spec={m} />
        ))}
      </fieldset>
      <fieldset>
        <legend>{t('mechanisms')}</legend>
        {(MECHANISMS as readonly SwitchSpec[]).map((m) => (
          <Switch key={m.key} spec={m} />
        ))}
      </fieldset>
      <label className="compare">
        {t('compareWith')}{' '}
        <select value={compareFix ?? ''} onChange={(e) => set({ compare: (e.target.value || null) as SwitchKey | null })} data-testid="compare-select">
          <option value="">{t('compareNone')}</option>
          {(SWITCHES as readonly SwitchSpec[]).map((f) => (
            <option key={f.key} value={f.key}>
              {t(`switch.${f.key}.fix`)}
            </option>
          ))}
        </select>
      </label>
      {/* As of the moment (the stage's and the counter's instant), each beside the whole run's total: a tile never contradicts a step still pending. */}
      <h3 data-testid="outcome-heading">
        {t('outcomeByInstant')} <ModelBadge />
      </h3>
      {run ? <MainCounters run={run} /> : <p role="status">{t('loading')}</p>}
      {run && !run.refused ? (
        <p className="hint" data-testid="canary-note">
          {t('canaryNote')} <AssumptionBadge id="A12" />
        </p>
      ) : null}
      {compareFix && compare ? (
        <>
          <h3>
            {t('laneCompare')}: {t(`switch.${compareFix}.fix`)}
          </h3>
          <Counters run={compare} label="compare" />
        </>
      ) : null}
      <Assumptions />
      {/* The matrix (a dozen runs in a worker) is measured once its section is first opened, not on
          every page load behind two closed disclosures: it cost each load seconds of a core. */}
      <details className="matrix-section" onToggle={(e) => e.currentTarget.open && setMatrixOpened(true)}>
        <summary>{t('matrixTitle')}</summary>
        {matrixOpened ? (
          <Suspense fallback={null}>
            <OutcomeMatrix />
          </Suspense>
        ) : null}
      </details>
    </section>
  );
});
