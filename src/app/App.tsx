import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { ADVERTISED_CONTEXT_TOKENS, INCIDENT_PREFILL_CAPACITY_TOKENS, type Mitigations } from '../engine/index.ts';
import { callEngine } from './engineClient.ts';
import { DecodeBackendPanel } from './gpu/DecodeBackendPanel.tsx';
import type { SimulationSummary } from './protocol.ts';
import { overridesOf, useSwitches } from './store.ts';

const fmt = (n: number) => n.toLocaleString('en-US');

const MITIGATION_LABELS: Record<keyof Mitigations, string> = {
  clearPagesOnFree: 'Clear pages on free',
  perReadIntegrityCheck: 'Per-read integrity check on decode',
  transferredLengthCheck: 'Transferred-length check on decode',
  deploymentCapacityCheck: 'Deployment capacity check',
};

function Toggle({ label, checked, onChange, hint }: { label: string; checked: boolean; onChange: (on: boolean) => void; hint?: string }) {
  const id = useId();
  return (
    <div className="toggle">
      <input id={id} type="checkbox" role="switch" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      <label htmlFor={id}>
        {label}
        {hint ? <span className="hint"> {hint}</span> : null}
      </label>
    </div>
  );
}

function Controls() {
  const s = useSwitches(useShallow((st) => ({ capacityGap: st.capacityGap, rejectPath: st.rejectPath, mitigations: st.mitigations })));
  const setCapacityGap = useSwitches((st) => st.setCapacityGap);
  const setRejectPath = useSwitches((st) => st.setRejectPath);
  const setMitigation = useSwitches((st) => st.setMitigation);
  return (
    <section aria-labelledby="controls-h" className="panel">
      <h2 id="controls-h">Defects and mitigations</h2>
      <fieldset>
        <legend>Defects</legend>
        <Toggle
          label="Capacity gap"
          hint={`(advertised ${fmt(ADVERTISED_CONTEXT_TOKENS)} tokens, prefill cache ${fmt(INCIDENT_PREFILL_CAPACITY_TOKENS)} — F14)`}
          checked={s.capacityGap}
          onChange={setCapacityGap}
        />
        <Toggle
          label="Buggy reject path"
          hint="(rejected request forwarded with a one-token placeholder — F17)"
          checked={s.rejectPath === 'buggy'}
          onChange={(on) => setRejectPath(on ? 'buggy' : 'fixed')}
        />
      </fieldset>
      <fieldset>
        <legend>Mitigations</legend>
        {(Object.keys(MITIGATION_LABELS) as (keyof Mitigations)[]).map((name) => (
          <Toggle key={name} label={MITIGATION_LABELS[name]} checked={s.mitigations[name]} onChange={(on) => setMitigation(name, on)} />
        ))}
      </fieldset>
    </section>
  );
}

function Outcome() {
  const switches = useSwitches(useShallow((st) => ({ capacityGap: st.capacityGap, rejectPath: st.rejectPath, mitigations: st.mitigations })));
  const overrides = overridesOf(switches);
  const query = useQuery({
    queryKey: ['simulate', 'demo', overrides],
    queryFn: async (): Promise<SimulationSummary> => {
      const r = await callEngine({ kind: 'simulate', scenario: 'demo', overrides });
      if (r.kind !== 'simulated') throw new Error('unexpected engine reply');
      return r.summary;
    },
  });
  return (
    <section aria-labelledby="outcome-h" className="panel" aria-busy={query.isFetching}>
      <h2 id="outcome-h">
        Outcome <span className="badge model" title="Simulated by the Stale Pages engine on a built-in demo trace">model</span>
      </h2>
      {query.isPending ? <p role="status">Simulating…</p> : null}
      {query.isError ? <p role="alert" className="error">The engine could not run this configuration: {query.error.message}</p> : null}
      {query.data ? <Summary summary={query.data} /> : null}
    </section>
  );
}

function Summary({ summary }: { summary: SimulationSummary }) {
  const c = summary.counters;
  return (
    <div data-testid="outcome-summary">
      <p className="trace-name">{summary.traceName}</p>
      <dl className="counters">
        <div><dt>Requests</dt><dd data-testid="count-requests">{c.requests}</dd></div>
        <div><dt>Answered 200</dt><dd data-testid="count-served">{c.served}</dd></div>
        <div><dt>Rejected 400</dt><dd data-testid="count-rejected">{c.rejected}</dd></div>
        <div><dt>Failed closed 500</dt><dd data-testid="count-errors">{c.errors}</dd></div>
        <div><dt>Leaked (provenance)</dt><dd data-testid="count-leaked">{c.leaked}</dd></div>
        <div><dt>Leaked (canary scan)</dt><dd data-testid="count-canary">{c.canaryLeaks}</dd></div>
        <div><dt>Wrong output</dt><dd data-testid="count-wrong">{c.integrityFailures}</dd></div>
        <div><dt>Pages read stale</dt><dd>{fmt(c.pagesReadStale)}</dd></div>
      </dl>
      {summary.leaks.length > 0 ? (
        <ul className="leaks" aria-label="Leaked responses">
          {summary.leaks.map((l) => (
            <li key={l.id} data-testid="leak">
              <p>
                <strong>{l.id}</strong>: tenant <b>{l.tenant}</b> sent {fmt(l.promptTokens)} tokens; prefill computed {fmt(l.computedTokens)}; HTTP {l.status}.
                The answer drew on the KV of <b>{l.dataOf.join(', ')}</b>
                {l.canaries.length ? <> and carries the canary markers of <b>{l.canaries.join(', ')}</b></> : null}.
              </p>
              <blockquote className="response">{l.text}</blockquote>
              {l.expectedText ? <p className="expected">Over its own prompt the model would have said: <q>{l.expectedText}</q></p> : null}
            </li>
          ))}
        </ul>
      ) : (
        <p data-testid="no-leak">No response drew on another tenant's KV.</p>
      )}
      <p className="meta">
        {summary.events} events, log hash <code data-testid="log-hash">{summary.eventLogHash}</code>, simulated in {summary.elapsedMs.toFixed(0)} ms in a Web Worker.
      </p>
    </div>
  );
}

export function App() {
  return (
    <>
      <header className="site-header">
        <h1>Stale Pages</h1>
        <p>
          From 27 Aug to 9 Sep 2026, 155 responses of GLM 5.3 on Workers AI carried fragments of other customers' requests <span className="badge fact" title="Fact F2">F2</span>.
          Flip the two defects and the fixes below; the engine re-runs a small trace and the outcome follows from what sits in the KV pages.
        </p>
      </header>
      <main className="layout">
        <Controls />
        <Outcome />
        <DecodeBackendPanel />
      </main>
    </>
  );
}
