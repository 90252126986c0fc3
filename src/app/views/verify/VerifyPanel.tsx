/**
 * The exhaustive check of the handoff model, run in a worker, and a step-by-step player for the
 * shortest counterexamples it finds. Everything shown here is a model of the protocol, and says so.
 */
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { DECODE_NODE, PREFILL_NODE, PROPERTIES, checkedConfig, type CheckOutcome, type CheckedConfigId, type Counterexample, type PropertyId } from '../../../engine/protocol/index.ts';
import { checkProtocol } from '../../run/verifyClient.ts';
import { useT, type Translate } from '../../i18n/i18n.ts';
import { formatMs, formatNumber, type Lang } from '../../i18n/format.ts';
import { useApp } from '../../state/store.ts';
import { ModelBadge, SourceRef } from '../shared/Evidence.tsx';
import { picture, readWords, type PageView } from './picture.ts';
import { describeStep, describeViolation } from './stepText.ts';
import './verify.css';


/** A configuration's title or note: the catalogue's entries for them derive from CHECKED_CONFIGS. */
const configText = (id: string, part: 'title' | 'note', t: Translate): string => t(`vpConfig.${id as CheckedConfigId}.${part}`);

/** The public sources a configuration's note names (a pull request of SGLang), shown with their addresses. */
const configSources = (id: string): readonly string[] => checkedConfig(id)?.sources ?? [];

type RunState = { kind: 'idle' } | { kind: 'running'; done: number; total: number } | { kind: 'done'; elapsedMs: number } | { kind: 'error'; message: string };

const propertyName = (p: PropertyId, t: Translate) => t(`prop.${p}`);

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

function verdictText(o: CheckOutcome, t: Translate): string {
  if (!o.result.complete) return t('vpIncomplete');
  const broken = PROPERTIES.filter((p) => !o.result.verdicts[p].holds);
  return broken.length === 0 ? t('vpSafe') : t('vpViolated', { props: broken.map((p) => propertyName(p, t).toLowerCase()).join(', ') });
}

export function VerifyPanel() {
  const t = useT();
  const lang = useApp((s) => s.lang);
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
      ? t('vpIdle')
      : run.kind === 'running'
        ? t('vpRunning', { done: formatNumber(run.done, lang), total: run.total ? formatNumber(run.total, lang) : '…' })
        : run.kind === 'error'
          ? t('vpError', { message: run.message })
          : `${t('vpDone', { configs: formatNumber(outcomes.length, lang), states: formatNumber(totalStates, lang), ms: formatMs(Math.round(run.elapsedMs), lang) })} ` +
            (unexpected.length === 0 ? t('vpAllExpected') : t('vpUnexpected', { ids: unexpected.map((o) => o.config.id).join(', ') }));

  return (
    <section className="panel vp" aria-labelledby="vp-h" data-testid="verify-panel">
      <h2 id="vp-h">
        {t('vpTitle')} <ModelBadge title={t('vpModelTip')} />
      </h2>
      <p className="vp-intro">{t('vpIntro')}</p>
      <ul className="vp-props" aria-label={t('vpProps')}>
        {PROPERTIES.map((p) => (
          <li key={p}>
            <strong>{propertyName(p, t)}</strong>
            {t('vpPropLine', { name: '', text: t(`propText.${p}`) })}
          </li>
        ))}
      </ul>
      <p>
        <button type="button" onClick={start} disabled={run.kind === 'running'}>
          {t('vpRun')}
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
  const t = useT();
  const lang = useApp((s) => s.lang);
  return (
    <div className="vp-table-wrap">
      <table className="vp-table" aria-label={t('vpTableLabel')}>
        <caption>{t('vpTableCaption')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('vpColConfig')}</th>
            <th scope="col">{t('vpColStates')}</th>
            <th scope="col">{t('vpColVerdict')}</th>
            {PROPERTIES.map((p) => (
              <th scope="col" key={p}>{propertyName(p, t)}</th>
            ))}
            <th scope="col">{t('vpColExpected')}</th>
            <th scope="col">{t('vpColCounterexample')}</th>
          </tr>
        </thead>
        <tbody>
          {outcomes.map((o) => {
            const p = defaultProperty(o);
            const current = selection?.configId === o.config.id;
            return (
              <tr key={o.config.id} aria-current={current ? 'true' : undefined} className={current ? 'vp-current' : undefined}>
                <th scope="row">
                  {configText(o.config.id, 'title', t)}
                  <span className="vp-note">
                    {configText(o.config.id, 'note', t)}
                    {configSources(o.config.id).map((id) => (
                      <span key={id}>
                        {' '}
                        <SourceRef id={id} compact />
                      </span>
                    ))}
                  </span>
                </th>
                <td className="vp-num">{formatNumber(o.result.statesExplored, lang)}</td>
                <td>{verdictText(o, t)}</td>
                {PROPERTIES.map((prop) => {
                  const v = o.result.verdicts[prop];
                  return <td key={prop}>{v.holds ? t('vpHolds') : t('vpFails', { n: formatNumber(v.counterexample!.length, lang) })}</td>;
                })}
                <td>{o.asExpected ? t('vpYes') : t('vpNo')}</td>
                <td>
                  {p ? (
                    <button type="button" onClick={() => onPlay(o.config.id, p)} aria-label={t('vpPlayLabel', { config: configText(o.config.id, 'title', t) })}>
                      {t('vpPlay')}
                    </button>
                  ) : (
                    t('vpNone')
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
  const t = useT();
  const lang = useApp((s) => s.lang);
  const c = outcome.config;
  const title = configText(c.id, 'title', t);
  const stepText = (i: number) => describeStep(c, i === 0 ? ce.initial : ce.steps[i - 1]!.state, ce.steps[i]!, t);
  const n = ce.steps.length;
  const at = Math.min(Math.max(step, 0), n);
  const current = at === 0 ? null : ce.steps[at - 1]!;
  const state = current ? current.state : ce.initial;
  const pic = useMemo(() => picture(c, state, current?.read, t), [c, state, current, t]);
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
        {t('vpPlayerTitle', { config: title, property: propertyName(ce.property, t).toLowerCase(), n: formatNumber(n, lang) })}
      </h3>
      {broken.length > 1 ? (
        <div role="group" aria-label={t('vpPropertyGroup')} className="vp-row">
          {broken.map((p) => (
            <button type="button" key={p} aria-pressed={p === ce.property} onClick={() => onProperty(p)}>
              {t('vpPropertySteps', { property: propertyName(p, t), n: formatNumber(outcome.result.verdicts[p].counterexample!.length, lang) })}
            </button>
          ))}
        </div>
      ) : null}
      <div role="group" aria-label={t('vpStepControls')} className="vp-row">
        {/* aria-disabled, not disabled: a disabled button drops keyboard focus at the last step. */}
        <button type="button" onClick={() => go(0)} aria-disabled={at === 0}>{t('vpFirst')}</button>
        <button type="button" onClick={() => go(at - 1)} aria-disabled={at === 0}>{t('vpBack')}</button>
        <button type="button" onClick={() => go(at + 1)} aria-disabled={at === n}>{t('vpForward')}</button>
        <button type="button" onClick={() => go(n)} aria-disabled={at === n}>{t('vpLast')}</button>
        <span className="vp-hint">{t('vpKeys')}</span>
      </div>
      <p aria-live="polite" className="vp-step" id="vp-step">
        <strong>{t('vpStepOf', { n: formatNumber(at, lang), count: formatNumber(n, lang) })}</strong> {current ? stepText(at - 1) : t('vpInitial')}
      </p>
      {current?.violation ? (
        <p className="vp-violation">
          <strong>{t('vpBroken', { property: propertyName(ce.property, t) })}</strong> {describeViolation(c, ce.property, current, ce.initial, t) ?? current.violation}
        </p>
      ) : null}

      <div className="vp-nodes">
        <PageRow title={t('vpNodePages', { node: PREFILL_NODE })} pages={pic.prefill} lang={lang} />
        <div className="vp-messages">
          <h4>{t('vpMessages')}</h4>
          {pic.messages.length === 0 ? <p>{t('vpNone')}</p> : <ul>{pic.messages.map((m) => <li key={m}>{m}</li>)}</ul>}
        </div>
        <PageRow title={t('vpNodePages', { node: DECODE_NODE })} pages={pic.decode} lang={lang} />
      </div>

      {pic.reads.length > 0 ? (
        <div className="vp-reads">
          <h4>{t('vpReads', { request: current ? (c.requests[current.request]?.name ?? '') : '' })}</h4>
          <ul>
            {pic.reads.map((r) => (
              <li key={r.page} className={`vp-read-${r.verdict === 'own' ? 'ok' : 'bad'}`}>
                {r.verdict === 'own' ? '✓' : '✗'} {t('pv.item', { page: r.page, what: r.what })}
              </li>
            ))}
          </ul>
        </div>
      ) : null}

      <table className="vp-table vp-reqs" aria-label={t('vpRequests')}>
        <thead>
          <tr>
            <th scope="col">{t('vpColRequest')}</th>
            <th scope="col">{t('vpColDecode')}</th>
            <th scope="col">{t('vpColPrefill')}</th>
            <th scope="col">{t('vpColAnswer')}</th>
          </tr>
        </thead>
        <tbody>
          {pic.requests.map((r) => (
            <tr key={r.name}>
              <th scope="row">{t('vpRequestRow', { name: r.name, tenant: String(r.tenant), pages: t(r.pages === 1 ? 'ps.page' : 'ps.pages', { n: String(r.pages) }) })}</th>
              <td>{r.decode}</td>
              <td>{r.prefill}</td>
              <td>{r.status}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h4 id="vp-steps-h">{t('vpAllSteps')}</h4>
      <ol className="vp-steps" aria-labelledby="vp-steps-h">
        {ce.steps.map((s, i) => (
          <li key={i} aria-current={i + 1 === at ? 'step' : undefined}>
            <button type="button" className="vp-link" onClick={() => go(i + 1)}>
              {i + 1 === at ? '▶ ' : ''}
              {stepText(i)}
              {s.violation ? ' ✗' : ''}
            </button>
          </li>
        ))}
      </ol>
    </section>
  );
}

function pageLabel(p: PageView, t: Translate, lang: Lang): string {
  const free = p.ownerTenant === null;
  const parts = [`${p.id}${lang === 'fr' ? '\u00a0:' : ':'} ${free ? p.owner : t('pv.heldBy', { who: p.owner })}`, t('pv.holds', { what: p.content })];
  if (p.stale) parts.push(t('vpStaleTag'));
  if (p.read) parts.push(t('pv.readNow', { what: readWords(p.read, t) }));
  return parts.join(', ');
}

function PageRow({ title, pages, lang }: { title: string; pages: PageView[]; lang: Lang }) {
  const t = useT();
  return (
    <div className="vp-node">
      <h4>{title}</h4>
      <ul className="vp-pages" aria-label={title}>
        {pages.map((p) => (
          <li
            key={p.id}
            aria-label={pageLabel(p, t, lang)}
            className={['vp-page', p.contentTenant ? `vp-t${p.contentTenant}` : 'vp-zero', p.read ? `vp-read vp-read-${p.read === 'own' ? 'ok' : 'bad'}` : ''].join(' ')}
          >
            <span className="vp-page-id">{p.id}</span>
            <span>{t('vpOwner', { owner: p.owner })}</span>
            <span>{t('vpWriter', { writer: p.content })}</span>
            {p.stale ? <span className="vp-tag">{t('vpStaleTag')}</span> : null}
            {p.read ? <span className="vp-tag">{t(p.read === 'own' ? 'vpReadOk' : 'vpReadBad')}</span> : null}
          </li>
        ))}
      </ul>
    </div>
  );
}
