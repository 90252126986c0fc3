/**
 * The exhaustive check of the handoff model, run in a worker, and a step-by-step player for the
 * shortest counterexamples it finds. Everything shown here is a model of the protocol, and says so.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { PROPERTIES, PROPERTY_TEXT, type CheckOutcome, type Counterexample, type PropertyId } from '../../../engine/protocol/index.ts';
import { checkProtocol } from '../../run/verifyClient.ts';
import { picture, readWords, type PageView } from './picture.ts';
import './verify.css';

type RunState = { kind: 'idle' } | { kind: 'running'; done: number; total: number } | { kind: 'done'; elapsedMs: number } | { kind: 'error'; message: string };

const PROPERTY_NAME: Record<PropertyId, string> = {
  confidentiality: 'Confidentiality',
  integrity: 'Integrity',
  exclusiveOwnership: 'Exclusive ownership',
};

interface Selection {
  configId: string;
  property: PropertyId;
}

function firstViolation(o: CheckOutcome): PropertyId | null {
  return PROPERTIES.find((p) => !o.result.verdicts[p].holds) ?? null;
}

/** The leak, when there is one: it is what the incident is about. */
function defaultProperty(o: CheckOutcome): PropertyId | null {
  return o.result.verdicts.confidentiality.holds ? firstViolation(o) : 'confidentiality';
}

function verdictText(o: CheckOutcome): string {
  if (!o.result.complete) return 'incomplete (state cap)';
  const broken = PROPERTIES.filter((p) => !o.result.verdicts[p].holds);
  return broken.length === 0 ? 'safe: no reachable state violates a property' : `violated: ${broken.map((p) => PROPERTY_NAME[p].toLowerCase()).join(', ')}`;
}

export function VerifyPanel() {
  const [run, setRun] = useState<RunState>({ kind: 'idle' });
  const [outcomes, setOutcomes] = useState<CheckOutcome[]>([]);
  const [selection, setSelection] = useState<Selection | null>(null);
  const [step, setStep] = useState(0);
  const controller = useRef<AbortController | null>(null);

  useEffect(() => () => controller.current?.abort(), []);

  const start = useCallback(() => {
    controller.current?.abort();
    const c = new AbortController();
    controller.current = c;
    setOutcomes([]);
    setSelection(null);
    setStep(0);
    setRun({ kind: 'running', done: 0, total: 0 });
    checkProtocol(({ outcome, index, total }) => {
      if (c.signal.aborted) return;
      setOutcomes((prev) => [...prev, outcome]);
      setRun({ kind: 'running', done: index + 1, total });
      // Open the first counterexample as soon as it exists: the incident's leak.
      setSelection((sel) => {
        const p = defaultProperty(outcome);
        return sel ?? (p ? { configId: outcome.config.id, property: p } : null);
      });
    }, c.signal).then(
      ({ elapsedMs }) => !c.signal.aborted && setRun({ kind: 'done', elapsedMs }),
      (e: Error) => !c.signal.aborted && setRun({ kind: 'error', message: e.message }),
    );
  }, []);

  const selected = outcomes.find((o) => o.config.id === selection?.configId) ?? null;
  const counterexample = selected && selection ? selected.result.verdicts[selection.property].counterexample : null;

  const totalStates = outcomes.reduce((n, o) => n + o.result.statesExplored, 0);
  const unexpected = outcomes.filter((o) => !o.asExpected);
  const statusText =
    run.kind === 'idle'
      ? 'Not run yet.'
      : run.kind === 'running'
        ? `Exploring: ${run.done} of ${run.total || '…'} configurations done.`
        : run.kind === 'error'
          ? `The check failed to run: ${run.message}`
          : `Done: ${outcomes.length} configurations, ${totalStates.toLocaleString('en-US')} states explored in ${Math.round(run.elapsedMs)} ms. ` +
            (unexpected.length === 0 ? 'Every verdict is the expected one.' : `Unexpected verdicts: ${unexpected.map((o) => o.config.id).join(', ')}.`);

  return (
    <section className="panel vp" aria-labelledby="vp-h">
      <h2 id="vp-h">
        Exhaustive check of the handoff protocol <span className="badge model vp-badge" title="A small state machine of the prefill → decode handoff, not SGLang itself">model</span>
      </h2>
      <p className="vp-intro">
        A <strong>model</strong> of the prefill → decode handoff: one prefill and one decode node with a few pages each, reused lowest id first,
        three requests from two tenants. Every reachable state is explored breadth-first, so each counterexample is a shortest one. Sizes are
        in pages and are not the incident's figures.
      </p>
      <ul className="vp-props" aria-label="Properties checked">
        {PROPERTIES.map((p) => (
          <li key={p}>
            <strong>{PROPERTY_NAME[p]}</strong>: {PROPERTY_TEXT[p]}.
          </li>
        ))}
      </ul>
      <p>
        <button type="button" onClick={start} disabled={run.kind === 'running'}>
          Run the check
        </button>
      </p>
      <p role="status" aria-live="polite" className="vp-status">
        {statusText}
      </p>
      {outcomes.length > 0 ? (
        <ResultsTable outcomes={outcomes} selection={selection} onPlay={(configId, property) => { setSelection({ configId, property }); setStep(0); }} />
      ) : null}
      {selected && counterexample && selection ? (
        <Player
          key={`${selection.configId}:${selection.property}`}
          outcome={selected}
          counterexample={counterexample}
          step={step}
          setStep={setStep}
          onProperty={(property) => { setSelection({ configId: selected.config.id, property }); setStep(0); }}
        />
      ) : null}
    </section>
  );
}

function ResultsTable({ outcomes, selection, onPlay }: { outcomes: CheckOutcome[]; selection: Selection | null; onPlay: (id: string, p: PropertyId) => void }) {
  return (
    <div className="vp-table-wrap">
      <table className="vp-table" aria-label="Verdicts per configuration">
        <caption>Verdicts per configuration (model)</caption>
        <thead>
          <tr>
            <th scope="col">Configuration</th>
            <th scope="col">States explored</th>
            <th scope="col">Verdict</th>
            {PROPERTIES.map((p) => (
              <th scope="col" key={p}>{PROPERTY_NAME[p]}</th>
            ))}
            <th scope="col">As expected</th>
            <th scope="col">Counterexample</th>
          </tr>
        </thead>
        <tbody>
          {outcomes.map((o) => {
            const p = defaultProperty(o);
            const current = selection?.configId === o.config.id;
            return (
              <tr key={o.config.id} aria-current={current ? 'true' : undefined} className={current ? 'vp-current' : undefined}>
                <th scope="row">
                  {o.config.title}
                  <span className="vp-note">{o.note}</span>
                </th>
                <td className="vp-num">{o.result.statesExplored.toLocaleString('en-US')}</td>
                <td>{verdictText(o)}</td>
                {PROPERTIES.map((prop) => {
                  const v = o.result.verdicts[prop];
                  return <td key={prop}>{v.holds ? '✓ holds' : `✗ fails in ${v.counterexample!.length} steps`}</td>;
                })}
                <td>{o.asExpected ? 'yes' : '✗ no'}</td>
                <td>
                  {p ? (
                    <button type="button" onClick={() => onPlay(o.config.id, p)} aria-label={`Play the counterexample of ${o.config.title}`}>
                      Play
                    </button>
                  ) : (
                    'none'
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

interface PlayerProps {
  outcome: CheckOutcome;
  counterexample: Counterexample;
  step: number;
  setStep: (n: number) => void;
  onProperty: (p: PropertyId) => void;
}

function Player({ outcome, counterexample: ce, step, setStep, onProperty }: PlayerProps) {
  const c = outcome.config;
  const n = ce.steps.length;
  const at = Math.min(Math.max(step, 0), n);
  const current = at === 0 ? null : ce.steps[at - 1]!;
  const state = current ? current.state : ce.initial;
  const pic = useMemo(() => picture(c, state, current?.read), [c, state, current]);
  const broken = PROPERTIES.filter((p) => !outcome.result.verdicts[p].holds);
  const go = (k: number) => setStep(Math.min(Math.max(k, 0), n));

  const onKey = (e: KeyboardEvent<HTMLElement>) => {
    if (e.target instanceof HTMLButtonElement && (e.key === 'Enter' || e.key === ' ')) return;
    const k = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: n }[e.key];
    if (k === undefined) return;
    e.preventDefault();
    go(k);
  };

  return (
    <section className="vp-player" aria-labelledby="vp-player-h" onKeyDown={onKey} aria-keyshortcuts="ArrowLeft ArrowRight Home End">
      <h3 id="vp-player-h">
        Counterexample (model): {c.title} — {PROPERTY_NAME[ce.property].toLowerCase()}, {n} steps
      </h3>
      {broken.length > 1 ? (
        <div role="group" aria-label="Property whose counterexample is shown" className="vp-row">
          {broken.map((p) => (
            <button type="button" key={p} aria-pressed={p === ce.property} onClick={() => onProperty(p)}>
              {PROPERTY_NAME[p]} ({outcome.result.verdicts[p].counterexample!.length} steps)
            </button>
          ))}
        </div>
      ) : null}
      <div role="group" aria-label="Step controls" className="vp-row">
        {/* aria-disabled, not disabled: a disabled button drops keyboard focus at the last step. */}
        <button type="button" onClick={() => go(0)} aria-disabled={at === 0}>First step</button>
        <button type="button" onClick={() => go(at - 1)} aria-disabled={at === 0}>Step back</button>
        <button type="button" onClick={() => go(at + 1)} aria-disabled={at === n}>Step forward</button>
        <button type="button" onClick={() => go(n)} aria-disabled={at === n}>Last step</button>
        <span className="vp-hint">or ← → Home End</span>
      </div>
      <p aria-live="polite" className="vp-step" id="vp-step">
        <strong>Step {at} of {n}.</strong> {current ? current.label : 'Initial state: every page is free and zero-filled.'}
      </p>
      {current?.violation ? (
        <p className="vp-violation">
          <strong>✗ {PROPERTY_NAME[ce.property]} broken:</strong> {current.violation}
        </p>
      ) : null}

      <div className="vp-nodes">
        <PageRow title="prefill-0 pages" pages={pic.prefill} />
        <div className="vp-messages">
          <h4>Messages in flight</h4>
          {pic.messages.length === 0 ? <p>none</p> : <ul>{pic.messages.map((m) => <li key={m}>{m}</li>)}</ul>}
        </div>
        <PageRow title="decode-0 pages" pages={pic.decode} />
      </div>

      {pic.reads.length > 0 ? (
        <div className="vp-reads">
          <h4>What decode read for {current ? c.requests[current.request]?.name : ''} (sequence = the full prompt, every reserved page)</h4>
          <ul>
            {pic.reads.map((r) => (
              <li key={r.page} className={`vp-read-${r.verdict === 'own' ? 'ok' : 'bad'}`}>
                {r.verdict === 'own' ? '✓' : '✗'} {r.page}: {r.what}
              </li>
            ))}
          </ul>
        </div>
      ) : null}

      <table className="vp-table vp-reqs" aria-label="Requests in this state">
        <thead>
          <tr>
            <th scope="col">Request</th>
            <th scope="col">Decode</th>
            <th scope="col">Prefill</th>
            <th scope="col">Answer</th>
          </tr>
        </thead>
        <tbody>
          {pic.requests.map((r) => (
            <tr key={r.name}>
              <th scope="row">{r.name} (tenant {r.tenant}, {r.pages} {r.pages === 1 ? 'page' : 'pages'})</th>
              <td>{r.decode}</td>
              <td>{r.prefill}</td>
              <td>{r.status}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h4 id="vp-steps-h">All steps</h4>
      <ol className="vp-steps" aria-labelledby="vp-steps-h">
        {ce.steps.map((s, i) => (
          <li key={i} aria-current={i + 1 === at ? 'step' : undefined}>
            <button type="button" className="vp-link" onClick={() => go(i + 1)}>
              {i + 1 === at ? '▶ ' : ''}
              {s.label}
              {s.violation ? ' ✗' : ''}
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}

function pageLabel(p: PageView): string {
  const parts = [`${p.id}: ${p.owner === 'free' ? 'free' : `held by ${p.owner}`}`, `holds ${p.content}`];
  if (p.stale) parts.push('stale');
  if (p.read) parts.push(`read now: ${readWords(p.read)}`);
  return parts.join(', ');
}

function PageRow({ title, pages }: { title: string; pages: PageView[] }) {
  return (
    <div className="vp-node">
      <h4>{title}</h4>
      <ul className="vp-pages" aria-label={title}>
        {pages.map((p) => (
          <li
            key={p.id}
            aria-label={pageLabel(p)}
            className={['vp-page', p.contentTenant ? `vp-t${p.contentTenant}` : 'vp-zero', p.read ? `vp-read vp-read-${p.read === 'own' ? 'ok' : 'bad'}` : ''].join(' ')}
          >
            <span className="vp-page-id">{p.id}</span>
            <span>owner: {p.owner}</span>
            <span>writer: {p.content}</span>
            {p.stale ? <span className="vp-tag">stale</span> : null}
            {p.read ? <span className="vp-tag">{p.read === 'own' ? '✓ read' : '✗ read'}</span> : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
