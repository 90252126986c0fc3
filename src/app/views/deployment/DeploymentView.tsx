/**
 * "Your deployment": an operator pastes their SGLang launch arguments and start-up log lines (or types
 * their numbers), reads what each prompt length gets on them, and replays one leaking request on
 * them in the stage and the microscope. The bands are engine/deployment.ts's, the parsers
 * engine/sglangInput.ts's: the same answer as `npm run check-deployment`. Loaded only when opened (or
 * when a link holds a deployment), so that the first screen does not carry it. Nothing typed leaves
 * the page: the replay runs in the page's own worker.
 */
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import {
  REPLAY_REQUEST_ID,
  SETTINGS,
  VERSION_SWITCHES,
  deploymentBands,
  deploymentProblems,
  replayOf,
  replayedOutcome,
  sourcesOf,
  type Band,
  type Closer,
  type Deployment,
  type Outcome,
  type Setting,
  type VersionSwitch,
} from '../../../engine/deployment.ts';
import { assembleDeployment, describeProblem, parseLaunchArgs, parseStartupLog, type FigureField, type Origin, type TypedFigures } from '../../../engine/sglangInput.ts';
import { runKeyOf, type RunRequest } from '../../../engine/runs/index.ts';
import { formatNumber } from '../../i18n/format.ts';
import { useT } from '../../i18n/i18n.ts';
import type { MessageKey } from '../../i18n/messages.ts';
import { useMainRun, type RunSummary } from '../../run/hooks.ts';
import { useApp, useAppStore } from '../../state/store.ts';
import { BackgroundBadge, ModelBadge } from '../shared/Evidence.tsx';
import './deployment.css';

const NUMBER_FIELDS = ['contextTokens', 'prefillCapacities', 'decodeCapacities', 'pageSize', 'chunkTokens'] as const satisfies readonly FigureField[];
type NumberField = (typeof NUMBER_FIELDS)[number];
const FIELD_LABEL: Record<NumberField, MessageKey> = { contextTokens: 'depContext', prefillCapacities: 'depPrefillKv', decodeCapacities: 'depDecodeKv', pageSize: 'depPageSize', chunkTokens: 'depChunk' };
const ORIGIN_LABEL: Record<Origin | 'link', MessageKey> = { log: 'depOriginLog', args: 'depOriginArgs', typed: 'depOriginTyped', assumed: 'depOriginAssumed', link: 'depOriginLink' };
const SETTING_LABEL: Record<Setting, MessageKey> = { incident: 'depSettingIncident', fixed: 'depSettingFixed', unknown: 'depSettingUnknown' };

/** The replay request the store runs for a deployment (the one run path's custom run), or `none`. */
export function replayRequestOf(d: Deployment): RunRequest | 'none' {
  const r = replayOf(d);
  return r ? { scenario: 'custom', overrides: r.overrides, trace: r.trace } : 'none';
}

/** What the typed figures hold, and each field that is not a whole number. */
function readTyped(edits: Partial<Record<NumberField, string>>, disaggregated: boolean | undefined): { typed: TypedFigures; bad: { field: NumberField; value: string }[] } {
  const typed: TypedFigures = {};
  const bad: { field: NumberField; value: string }[] = [];
  const num = (raw: string) => {
    const s = raw.replace(/[\s,._\u202f\u00a0]/g, '');
    return /^\d{1,9}$/.test(s) ? Number(s) : null;
  };
  for (const f of NUMBER_FIELDS) {
    const raw = edits[f];
    if (raw === undefined) continue;
    if (f === 'prefillCapacities' || f === 'decodeCapacities') {
      // One server per `;`: a comma or a space may group a number's thousands.
      const values = raw.split(';').filter((x) => x.trim() !== '').map(num);
      if (values.length === 0 || values.some((x) => x === null)) bad.push({ field: f, value: raw });
      else typed[f] = values as number[];
    } else {
      const n = num(raw);
      if (n === null) bad.push({ field: f, value: raw });
      else typed[f] = n;
    }
  }
  if (disaggregated !== undefined) typed.disaggregated = disaggregated;
  return { typed, bad };
}

function display(d: Deployment, f: NumberField, lang: 'en' | 'fr'): string {
  const v = d[f];
  return Array.isArray(v) ? v.map((x) => formatNumber(x, lang)).join(' ; ') : formatNumber(v, lang);
}

/**
 * `onShowReplay`: show the stage on the replayed request; given the replay's run when it has just
 * arrived after Replay (the page then opens it as it opens any run's story, just after the answer).
 */
export function DeploymentView({ onClose, onShowReplay }: { onClose: () => void; onShowReplay: (arrived?: RunSummary) => void }) {
  const t = useT();
  const id = useId();
  const lang = useApp((s) => s.lang);
  const store = useAppStore();
  const set = useApp((s) => s.set);
  const held = useApp((s) => s.deployment);
  const replayRequest = useApp((s) => s.deploymentReplay);
  const fmt = (n: number) => formatNumber(n, lang);

  // The form starts from a link's deployment when there is one (its figures then count as typed).
  const [args, setArgs] = useState('');
  const [prefillLog, setPrefillLog] = useState('');
  const [decodeLog, setDecodeLog] = useState('');
  const [edits, setEdits] = useState<Partial<Record<NumberField, string>>>(() => (held ? Object.fromEntries(NUMBER_FIELDS.map((f) => [f, display(held, f, lang)])) : {}));
  // The figures a link gave, until edited.
  const [fromLink, setFromLink] = useState<ReadonlySet<FigureField>>(() => new Set(held ? [...NUMBER_FIELDS, 'disaggregated'] : []));
  const [disaggregated, setDisaggregated] = useState<boolean | undefined>(held ? held.disaggregated : undefined);
  const [rule, setRule] = useState<Deployment['rule']>(held?.rule ?? 'report');
  const [behaviour, setBehaviour] = useState<Deployment['behaviour']>(() => (held && deploymentProblems(held).length === 0 ? held.behaviour : { buggyRejectPath: 'incident', retireWithoutSend: 'incident', transferredLengthCheck: 'incident', clearPagesOnFree: 'incident' }));
  const [copied, setCopied] = useState(false);

  const parsed = useMemo(() => {
    const texts = [
      args.trim() ? parseLaunchArgs(args, t('depArgs').split(' (')[0]!) : null,
      prefillLog.trim() ? parseStartupLog(prefillLog, t('depPrefillLog').split(' (')[0]!, 'prefill') : null,
      decodeLog.trim() ? parseStartupLog(decodeLog, t('depDecodeLog'), 'decode') : null,
    ].filter((x) => x !== null);
    return { servers: texts.flatMap((x) => x.servers), problems: texts.flatMap((x) => x.problems) };
  }, [args, prefillLog, decodeLog, t]);
  const typed = useMemo(() => readTyped(edits, disaggregated), [edits, disaggregated]);
  const assembled = useMemo(() => assembleDeployment(parsed.servers, typed.typed), [parsed, typed]);
  const deployment: Deployment = useMemo(() => ({ ...assembled.deployment, rule, behaviour }), [assembled, rule, behaviour]);
  const problems = useMemo(() => deploymentProblems(deployment), [deployment]);
  const answer = useMemo(() => (problems.length === 0 && typed.bad.length === 0 ? deploymentBands(deployment) : null), [deployment, problems, typed]);
  const replayable = useMemo(() => (answer ? replayOf(deployment) : null), [answer, deployment]);

  // A deployment held by the store (a link, or Replay): build its run once this module is here.
  useEffect(() => {
    if (!held) return;
    const bad = deploymentProblems(held);
    if (bad.length > 0) {
      store.getState().notify(t('depLinkBad', { problems: bad.join('; ') }));
      set({ deployment: null, deploymentReplay: null });
      return;
    }
    set({ deploymentReplay: replayRequestOf(held) });
  }, [held, set, store, t]);

  // Choosing a scenario while a deployment is replayed leaves the deployment: the scenario's run shows.
  const scenario = useApp((s) => s.scenario);
  const scenarioShown = useRef(scenario);
  useEffect(() => {
    if (scenario === scenarioShown.current) return;
    scenarioShown.current = scenario;
    if (store.getState().deployment) set({ deployment: null, deploymentReplay: null, selectedRequest: null });
  }, [scenario, set, store]);

  // After Replay: select the replayed request once its run is there, and show it on the stage.
  const main = useMainRun();
  const selectOnArrival = useRef(false);
  const run = main.data;
  const replayRun = run && replayRequest && replayRequest !== 'none' && run.runKey === runKeyOf(replayRequest) ? run : null;
  const replayed = replayRun ? replayedOutcome({ refused: replayRun.phases.find((p) => p.refused)?.refused ?? null, requests: replayRun.requests, requestIds: replayRun.requests.ids }) : null;
  const leakedFrom = replayRun?.leaks.find((l) => l.id === REPLAY_REQUEST_ID)?.dataOf ?? [];
  useEffect(() => {
    if (!replayRun || !selectOnArrival.current) return;
    selectOnArrival.current = false;
    onShowReplay(replayRun);
  }, [replayRun, onShowReplay]);

  const replay = () => {
    selectOnArrival.current = true;
    set({ deployment, deploymentReplay: null, compare: null, chapter: null });
  };
  const leave = () => {
    set({ deployment: null, deploymentReplay: null, selectedRequest: null });
    onClose();
  };
  const copyLink = () => {
    void navigator.clipboard?.writeText(window.location.href).then(() => setCopied(true), () => setCopied(false));
  };
  const edit = (f: FigureField, value: string | null) => {
    if (value !== null) setEdits((e) => ({ ...e, [f]: value }));
    setFromLink((s) => new Set([...s].filter((x) => x !== f)));
  };
  const origin = (f: FigureField): Origin | 'link' => (fromLink.has(f) ? 'link' : edits[f as NumberField] !== undefined || (f === 'disaggregated' && disaggregated !== undefined) ? 'typed' : assembled.origins[f]);
  const showing = held !== null && replayRequest !== null && replayRequest !== 'none';

  return (
    <section className="deployment panel" aria-labelledby={`${id}-h`} data-testid="deployment">
      <div className="deployment-head">
        <h2 id={`${id}-h`} tabIndex={-1}>
          {t('depTitle')}
        </h2>
        {held ? (
          <button type="button" onClick={leave} data-testid="deployment-leave">
            {t('depLeave')}
          </button>
        ) : (
          <button type="button" onClick={onClose} data-testid="deployment-close">
            {t('depClose')}
          </button>
        )}
      </div>
      <p className="hint">{t('depIntro')}</p>
      <div className="deployment-texts">
        <label>
          <span>{t('depArgs')}</span>
          <textarea rows={4} spellCheck={false} value={args} onChange={(e) => setArgs(e.target.value)} data-testid="deployment-args" />
        </label>
        <label>
          <span>{t('depPrefillLog')}</span>
          <textarea rows={3} spellCheck={false} value={prefillLog} onChange={(e) => setPrefillLog(e.target.value)} data-testid="deployment-prefill-log" />
        </label>
        <label>
          <span>{t('depDecodeLog')}</span>
          <textarea rows={3} spellCheck={false} value={decodeLog} onChange={(e) => setDecodeLog(e.target.value)} data-testid="deployment-decode-log" />
        </label>
      </div>
      {parsed.problems.length > 0 || typed.bad.length > 0 || problems.length > 0 ? (
        <div role="alert" className="deployment-problems" data-testid="deployment-problems">
          <b>{t('depProblems')}</b>
          <ul>
            {parsed.problems.map((p) => (
              <li key={describeProblem(p)}>{t(`depProblem.${p.kind}` as MessageKey, { source: p.source, line: formatNumber(p.line, lang), field: p.field, value: p.value ?? '' })}</li>
            ))}
            {typed.bad.map((b) => (
              <li key={b.field}>{t('depBadNumber', { field: t(FIELD_LABEL[b.field]), value: b.value })}</li>
            ))}
            {typed.bad.length === 0 ? problems.map((p) => <li key={p}>{p}</li>) : null}
          </ul>
        </div>
      ) : null}

      <div className="deployment-columns">
        <fieldset className="deployment-figures">
          <legend>{t('depFigures')}</legend>
          {NUMBER_FIELDS.filter((f) => f !== 'decodeCapacities' || deployment.disaggregated).map((f) => (
            <label key={f} className="deployment-field">
              <span>{t(FIELD_LABEL[f])}</span>
              <input type="text" inputMode="numeric" value={edits[f] ?? display(deployment, f, lang)} onChange={(e) => edit(f, e.target.value)} data-testid={`deployment-${f}`} aria-invalid={typed.bad.some((b) => b.field === f) || undefined} />
              <OriginMark origin={origin(f)} />
            </label>
          ))}
          <label className="deployment-check">
            <input type="checkbox" checked={deployment.disaggregated} onChange={(e) => {
                setDisaggregated(e.target.checked);
                edit('disaggregated', null);
              }} data-testid="deployment-disaggregated" />
            <span>{t('depDisaggregated')}</span>
            <OriginMark origin={origin('disaggregated')} />
          </label>
        </fieldset>
        <fieldset className="deployment-behaviours">
          <legend>{t('depBehaviours')}</legend>
          {VERSION_SWITCHES.map((k) => (
            <BehaviourRow key={k} k={k} value={behaviour[k]} onChange={(v) => setBehaviour((b) => ({ ...b, [k]: v }))} />
          ))}
          <label className="deployment-field">
            <span>{t('depRule')}</span>
            <select value={rule} onChange={(e) => setRule(e.target.value as Deployment['rule'])} data-testid="deployment-rule">
              <option value="report">{t('depRuleReport')}</option>
              <option value="sglang">{t('depRuleSglang')}</option>
            </select>
          </label>
        </fieldset>
      </div>

      {answer ? (
        <div className="deployment-answer" data-testid="deployment-answer">
          <h3>
            {t('depAnswer')} <ModelBadge />
          </h3>
          <p className={answer.leaks ? 'deployment-verdict leaks' : 'deployment-verdict closed'} data-testid="deployment-verdict">
            {answer.leaks ? t('depVerdictLeaks', { from: fmt(answer.smallestLeak!) }) : t('depVerdictClosed')}
          </p>
          {answer.routes.map((r, ri) => (
            <div key={ri} className="deployment-route">
              {answer.routes.length > 1 ? <h4>{t('depRoute', { prefill: fmt(r.route.prefillCapacity), decode: fmt(r.route.decodeCapacity) })}</h4> : null}
              <table className="deployment-bands" data-testid="deployment-bands">
                <thead>
                  <tr>
                    <th scope="col">{t('depRange')}</th>
                    <th scope="col">{t('depGets')}</th>
                    <th scope="col">{t('depWhyCol')}</th>
                  </tr>
                </thead>
                <tbody>
                  {r.bands.map((b) => (
                    <BandRow key={b.from} band={b} deployment={deployment} limit={r.limits.prefill} />
                  ))}
                </tbody>
              </table>
            </div>
          ))}
          {answer.leaks ? <p className="deployment-smallest">{t('depSmallest', { tokens: fmt(answer.smallestLeak!) })}</p> : null}
          <div className="deployment-actions">
            {replayable ? (
              <button type="button" className="primary" onClick={replay} data-testid="deployment-replay">
                {t('depReplay', { tokens: fmt(replayable.promptTokens) })}
              </button>
            ) : (
              <p className="hint">{t('depReplayNone')}</p>
            )}
            {held ? (
              <button type="button" onClick={copyLink} data-testid="deployment-copy">
                {copied ? t('depCopied') : t('depCopyLink')}
              </button>
            ) : null}
          </div>
          {showing ? (
            <p className="deployment-replayed" role="status" data-testid="deployment-replayed">
              {t('depReplaying', { tokens: fmt(replayOf(held!)?.promptTokens ?? 0) })}{' '}
              {replayed ? t('depReplayed', { outcome: t(`depOutcome.${replayed}` as MessageKey) + (leakedFrom.length > 0 ? ` (${t('depReplayedFrom', { tenants: leakedFrom.join(', ') })})` : '') }) : null}{' '}
              <button type="button" className="linklike" onClick={() => onShowReplay()}>
                {t('depShowReplay')}
              </button>
            </p>
          ) : null}
        </div>
      ) : null}
      {assembled.notes.length > 0 ? (
        <ul className="deployment-notes hint">
          {assembled.notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      ) : null}
      <details className="deployment-limits" open>
        <summary>{t('depLimitsTitle')}</summary>
        <ul>
          {(['depLimit1', 'depLimit2', 'depLimit3', 'depLimit4', 'depLimit5'] as const).map((k) => (
            <li key={k}>{t(k)}</li>
          ))}
        </ul>
        <p className="hint">
          <code>{t('depCli')}</code>
        </p>
      </details>
    </section>
  );
}

function OriginMark({ origin }: { origin: Origin | 'link' }) {
  const t = useT();
  return <span className={`deployment-origin origin-${origin}`}>{t(ORIGIN_LABEL[origin])}</span>;
}

const SWITCH_LABEL: Record<VersionSwitch, MessageKey> = {
  buggyRejectPath: 'switch.buggyRejectPath.label' as MessageKey,
  retireWithoutSend: 'switch.retireWithoutSend.label' as MessageKey,
  transferredLengthCheck: 'switch.transferredLengthCheck.label' as MessageKey,
  clearPagesOnFree: 'switch.clearPagesOnFree.label' as MessageKey,
};

function BehaviourRow({ k, value, onChange }: { k: VersionSwitch; value: Setting; onChange: (v: Setting) => void }) {
  const t = useT();
  const sources = sourcesOf(k);
  return (
    <label className="deployment-field">
      <span>
        {t(SWITCH_LABEL[k])}{' '}
        <span className="hint">
          {sources.length > 0 ? (
            <>
              {t('depChangedBy')}{' '}
              {sources.map((s) => (
                <BackgroundBadge key={s} id={s} />
              ))}
            </>
          ) : (
            t('depNoSource')
          )}
        </span>
      </span>
      <select value={value} onChange={(e) => onChange(e.target.value as Setting)} data-testid={`deployment-${k}`}>
        {SETTINGS.map((s) => (
          <option key={s} value={s}>
            {t(SETTING_LABEL[s])}
          </option>
        ))}
      </select>
    </label>
  );
}

function BandRow({ band, deployment, limit }: { band: Band; deployment: Deployment; limit: number }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const fmt = (n: number) => formatNumber(n, lang);
  const leaks = band.outcomes.includes('leaked');
  const outcome = (o: Outcome) => t(`depOutcome.${o}` as MessageKey);
  const unknown = VERSION_SWITCHES.filter((k) => deployment.behaviour[k] === 'unknown');
  return (
    <tr className={leaks ? 'band-leaks' : `band-${band.outcomes[0]}`} data-outcome={band.outcomes.join(' ')}>
      <td className="num">{band.to === null ? t('depRangeOpen', { from: fmt(band.from) }) : `${fmt(band.from)} – ${fmt(band.to)}`}</td>
      <td>
        {band.outcomes.length === 1 ? (
          outcome(band.outcomes[0]!)
        ) : (
          <ul className="band-when">
            {band.when.map((w, i) => (
              <li key={i}>{t('depWhen', { settings: unknown.map((k) => `${t(SWITCH_LABEL[k])} ${t(w.behaviour[k] === 'fixed' ? 'depSettingFixed' : 'depSettingIncident')}`).join(', '), outcome: outcome(w.outcome) })}</li>
            ))}
          </ul>
        )}
      </td>
      <td>
        {t(`depCause.${band.cause}` as MessageKey, { limit: fmt(limit) })}
        {leaks ? (
          <>
            <p className="band-why">{t('depWhy', { limit: fmt(limit), context: fmt(deployment.contextTokens), pages: fmt(Math.ceil(band.from / deployment.pageSize)) })}</p>
            <p className="band-closers">
              {t('depClosedBy')}{' '}
              {band.closedBy.map((c, i) => (
                <span key={i} className="band-closer">
                  <CloserText c={c} />
                  {i + 1 < band.closedBy.length ? ' · ' : ''}
                </span>
              ))}
            </p>
          </>
        ) : null}
      </td>
    </tr>
  );
}

function CloserText({ c }: { c: Closer }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  if (c.kind === 'prefill-capacity') return <>{t('depCloseCapacity', { tokens: formatNumber(c.atLeast, lang) })}</>;
  if (c.kind === 'context') return <>{t('depCloseContext', { tokens: formatNumber(c.atMost, lang) })}</>;
  return (
    <>
      {t(`switch.${c.key}.fix` as MessageKey)} ({t(`depOutcome.${c.outcome}` as MessageKey)}
      {c.sources.length > 0 ? (
        <>
          {'; '}
          {c.sources.map((s) => (
            <BackgroundBadge key={s} id={s} />
          ))}
        </>
      ) : null}
      )
    </>
  );
}
