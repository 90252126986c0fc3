/**
 * "Your deployment": an operator pastes their SGLang launch arguments and start-up log lines (or types
 * their numbers), reads what each prompt length gets on them, and replays one leaking request on
 * them in the stage and the microscope. The bands are engine/deployment.ts's, the parsers
 * engine/sglangInput.ts's: the same answer as `npm run check-deployment`. Loaded only when opened (or
 * when a link holds a deployment), so that the first screen does not carry it. Nothing typed leaves
 * the page: each box is read in the page's own worker (readText.ts, its progress shown for a long
 * paste), the replay in another. While any box or typed figure has a problem, the problem is shown
 * where it is and no verdict is: a wrong box would otherwise be answered on the other boxes' figures.
 */
import { useEffect, useId, useMemo, useRef, useState, type ClipboardEvent } from 'react';
import {
  REPLAY_REQUEST_ID,
  SETTINGS,
  VERSION_SWITCHES,
  deploymentBands,
  deploymentProblems,
  replayOf,
  replayedOutcome,
  sourcesOf,
  verdictOf,
  UNSTATED_BEHAVIOUR,
  type Need,
  type Band,
  type Closer,
  type Deployment,
  type Outcome,
  type Setting,
  type VersionSwitch,
} from '../../../engine/deployment.ts';
import { assembleDeployment, describeProblem, type FigureField, type InputProblem, type Origin, type ProblemKind, type TypedFigures } from '../../../engine/sglangInput.ts';
import { runKeyOf, type RunRequest } from '../../../engine/runs/index.ts';
import { formatNumber } from '../../i18n/format.ts';
import { useT } from '../../i18n/i18n.ts';
import type { MessageKey } from '../../i18n/messages.ts';
import { useMainRun, type RunSummary } from '../../run/hooks.ts';
import { useApp, useAppStore } from '../../state/store.ts';
import { BackgroundBadge, ModelBadge } from '../shared/Evidence.tsx';
import type { BoxKind, ReadProgress, ReadResult } from '../../run/readText.ts';
import { readBox } from '../../run/readTextClient.ts';
import './deployment.css';

const BOXES = ['args', 'prefill', 'decode'] as const satisfies readonly BoxKind[];
const BOX_LABEL: Record<BoxKind, MessageKey> = { args: 'depArgs', prefill: 'depPrefillLog', decode: 'depDecodeLog' };
const BOX_TESTID: Record<BoxKind, string> = { args: 'deployment-args', prefill: 'deployment-prefill-log', decode: 'deployment-decode-log' };
const BOX_ROWS: Record<BoxKind, number> = { args: 4, prefill: 3, decode: 3 };
/**
 * A text from this many characters on is not put in its box when pasted (a textarea of 10 MB takes
 * Chromium seconds to lay out, whatever reads it), and its reading shows its progress.
 */
const LARGE_TEXT = 200_000;
/** The problems the catalogue words by kind; any other (a kind newer than this list) shows the parser's English. */
const PROBLEM_TEXT: { [K in ProblemKind]?: MessageKey } = {
  'no-value': 'depProblem.no-value',
  'not-a-number': 'depProblem.not-a-number',
  'bad-mode': 'depProblem.bad-mode',
  'no-role': 'depProblem.no-role',
  'role-conflict': 'depProblem.role-conflict',
  'no-scheduler-line': 'depProblem.no-scheduler-line',
  'nothing-given': 'depProblem.nothing-given',
  'not-text': 'depProblem.not-text',
  'cannot-read': 'depProblem.cannot-read',
  'bad-json': 'depProblem.bad-json',
};

const NUMBER_FIELDS = ['contextTokens', 'prefillCapacities', 'decodeCapacities', 'pageSize', 'chunkTokens'] as const satisfies readonly FigureField[];
type NumberField = (typeof NUMBER_FIELDS)[number];
const FIELD_LABEL: Record<NumberField, MessageKey> = { contextTokens: 'depContext', prefillCapacities: 'depPrefillKv', decodeCapacities: 'depDecodeKv', pageSize: 'depPageSize', chunkTokens: 'depChunk' };
const ORIGIN_LABEL: Record<Origin | 'link', MessageKey> = { log: 'depOriginLog', args: 'depOriginArgs', typed: 'depOriginTyped', assumed: 'depOriginAssumed', link: 'depOriginLink', 'server-info': 'depOriginServerInfo' };
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

type SetReads = (f: (r: Partial<Record<BoxKind, { text: string; source: string; result: ReadResult; failed?: string }>>) => Partial<Record<BoxKind, { text: string; source: string; result: ReadResult; failed?: string }>>) => void;
type SetProgress = (f: (r: Partial<Record<BoxKind, { text: string; at: ReadProgress }>>) => Partial<Record<BoxKind, { text: string; at: ReadProgress }>>) => void;

/** Reads one box's text in the worker whenever it (or its name) changes; a newer text cancels the read before. */
function useBoxRead(kind: BoxKind, text: string, source: string, setReads: SetReads, setProgress: SetProgress): void {
  useEffect(() => {
    if (text.trim() === '') return;
    const controller = new AbortController();
    readBox(kind, text, source, (at) => setProgress((p) => ({ ...p, [kind]: { text, at } })), controller.signal).then(
      (result) => {
        setReads((r) => ({ ...r, [kind]: { text, source, result } }));
        setProgress((p) => {
          const { [kind]: _done, ...rest } = p;
          return rest;
        });
      },
      (error: unknown) => {
        if (error instanceof DOMException && error.name === 'AbortError') return;
        // The worker failed (it should not, on any text): the box says so, and counts as wrong.
        const failed = error instanceof Error ? error.message : String(error);
        setReads((r) => ({ ...r, [kind]: { text, source, result: { servers: [], problems: [], lines: 0 }, failed } }));
      },
    );
    return () => controller.abort();
  }, [kind, text, source, setReads, setProgress]);
}

/** What a problem says, in the page's language where the catalogue words its kind. */
function problemText(p: InputProblem, t: ReturnType<typeof useT>, lang: 'en' | 'fr'): string {
  const key = PROBLEM_TEXT[p.kind];
  const vars = { source: p.source, line: formatNumber(p.line, lang), field: p.field, value: p.value ?? '', message: p.message };
  return key ? t(key, vars) : t('depProblemOther', vars);
}

/** Megabytes with one decimal, in the page's language (characters count as bytes: a log is ASCII). */
function megabytes(chars: number, t: ReturnType<typeof useT>, lang: 'en' | 'fr'): string {
  return t('depMegabytes', { n: formatNumber(Math.round(chars / 100_000) / 10, lang, { minimumFractionDigits: 1, maximumFractionDigits: 1 }) });
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
  const [texts, setTexts] = useState<Record<BoxKind, string>>({ args: '', prefill: '', decode: '' });
  // Boxes whose text was pasted too long to show: held here, the box showing its size instead.
  const [aside, setAside] = useState<Partial<Record<BoxKind, boolean>>>({});
  const [reads, setReads] = useState<Partial<Record<BoxKind, { text: string; source: string; result: ReadResult; failed?: string }>>>({});
  const [progress, setProgress] = useState<Partial<Record<BoxKind, { text: string; at: ReadProgress }>>>({});
  const [edits, setEdits] = useState<Partial<Record<NumberField, string>>>(() => (held ? Object.fromEntries(NUMBER_FIELDS.map((f) => [f, display(held, f, lang)])) : {}));
  // The figures a link gave, until edited.
  const [fromLink, setFromLink] = useState<ReadonlySet<FigureField>>(() => new Set(held ? [...NUMBER_FIELDS, 'disaggregated'] : []));
  const [disaggregated, setDisaggregated] = useState<boolean | undefined>(held ? held.disaggregated : undefined);
  // SGLang's own limit and what its public history says of each behaviour, as the command line starts.
  const [rule, setRule] = useState<Deployment['rule']>(held?.rule ?? 'sglang');
  const [behaviour, setBehaviour] = useState<Deployment['behaviour']>(() => (held && deploymentProblems(held).length === 0 ? held.behaviour : { ...UNSTATED_BEHAVIOUR }));
  const [copied, setCopied] = useState(false);

  // Each box is read in the worker, its name (in the page's language) naming it in what the parser says.
  const sources: Record<BoxKind, string> = { args: t('depArgs').split(' (')[0]!, prefill: t('depPrefillLog').split(' (')[0]!, decode: t('depDecodeLog').split(' (')[0]! };
  useBoxRead('args', texts.args, sources.args, setReads, setProgress);
  useBoxRead('prefill', texts.prefill, sources.prefill, setReads, setProgress);
  useBoxRead('decode', texts.decode, sources.decode, setReads, setProgress);
  /** 'empty', 'read' (its result is this text's) or 'reading'. */
  const state = (k: BoxKind) => (texts[k].trim() === '' ? 'empty' : reads[k]?.text === texts[k] && reads[k]?.source === sources[k] ? 'read' : 'reading');
  const reading = BOXES.filter((k) => state(k) === 'reading');
  // While a box is read, its last reading stands (the answer dimmed), so that typing does not flicker.
  const shownOf = (k: BoxKind) => (state(k) === 'empty' ? null : reads[k]?.result ?? null);
  const [shownArgs, shownPrefill, shownDecode] = BOXES.map(shownOf);
  const servers = useMemo(() => [shownArgs, shownPrefill, shownDecode].flatMap((r) => r?.servers ?? []), [shownArgs, shownPrefill, shownDecode]);
  const boxProblems: Record<BoxKind, readonly InputProblem[]> = { args: shownArgs?.problems ?? [], prefill: shownPrefill?.problems ?? [], decode: shownDecode?.problems ?? [] };
  const typed = useMemo(() => readTyped(edits, disaggregated), [edits, disaggregated]);
  const assembled = useMemo(() => assembleDeployment(servers, typed.typed), [servers, typed]);
  const deployment: Deployment = useMemo(() => ({ ...assembled.deployment, rule, behaviour }), [assembled, rule, behaviour]);
  const problems = useMemo(() => deploymentProblems(deployment), [deployment]);
  // No verdict while any box or typed figure has an error: a wrong box (a prefill log in the decode
  // box, say) would otherwise be answered on the figures the other boxes and the incident give.
  const failed = (k: BoxKind) => (state(k) === 'empty' ? undefined : reads[k]?.failed);
  const wrongBoxes = BOXES.filter((k) => boxProblems[k].length > 0 || failed(k) !== undefined);
  const inputErrors = wrongBoxes.length > 0 || typed.bad.length > 0;
  const answer = useMemo(() => (!inputErrors && problems.length === 0 ? deploymentBands(deployment) : null), [deployment, problems, inputErrors]);
  // The command line's verdict: open, closed, or not to be told until a figure or a behaviour is given.
  const verdict = useMemo(() => (answer ? verdictOf(deployment, answer, assembled.missing) : null), [answer, deployment, assembled]);
  const busy = reading.length > 0;
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
  const badField = (f: NumberField) => typed.bad.find((b) => b.field === f);

  // Where the summary's links go, and where focus lands when a box swaps its textarea for a pasted text's size (or back).
  const boxRefs = useRef<Partial<Record<BoxKind, HTMLElement | null>>>({});
  const fieldRefs = useRef<Partial<Record<NumberField, HTMLInputElement | null>>>({});
  const focusNext = useRef<BoxKind | null>(null);
  useEffect(() => {
    const k = focusNext.current;
    if (k === null) return;
    focusNext.current = null;
    boxRefs.current[k]?.focus();
  });

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
        {BOXES.map((k) => (
          <TextBox
            key={k}
            kind={k}
            id={`${id}-${k}`}
            text={texts[k]}
            aside={aside[k] === true}
            problems={boxProblems[k]}
            failed={failed(k)}
            lines={reads[k]?.text === texts[k] ? reads[k]!.result.lines : progress[k]?.text === texts[k] && progress[k]!.at.parsing ? progress[k]!.at.lines : null}
            progress={state(k) === 'reading' && texts[k].length >= LARGE_TEXT ? (progress[k]?.text === texts[k] ? progress[k]!.at : { read: 0, total: texts[k].length, lines: 0, parsing: false }) : null}
            focusRef={(el) => {
              boxRefs.current[k] = el;
            }}
            onText={(text, large) => {
              setTexts((x) => ({ ...x, [k]: text }));
              setAside((a) => ({ ...a, [k]: large }));
              if (large !== (aside[k] === true)) focusNext.current = k;
            }}
          />
        ))}
      </div>

      <div className="deployment-columns">
        <fieldset className="deployment-figures">
          <legend>{t('depFigures')}</legend>
          {NUMBER_FIELDS.filter((f) => f !== 'decodeCapacities' || deployment.disaggregated).map((f) => (
            <label key={f} className="deployment-field">
              <span>{t(FIELD_LABEL[f])}</span>
              <input
                ref={(el) => {
                  fieldRefs.current[f] = el;
                }}
                type="text"
                inputMode="numeric"
                value={edits[f] ?? display(deployment, f, lang)}
                onChange={(e) => edit(f, e.target.value)}
                data-testid={`deployment-${f}`}
                aria-invalid={badField(f) ? true : undefined}
                aria-describedby={badField(f) ? `${id}-${f}-problem` : undefined}
              />
              <OriginMark origin={origin(f)} />
              {badField(f) ? (
                <span className="deployment-field-problem" id={`${id}-${f}-problem`} data-testid={`deployment-${f}-problem`}>
                  {t('depBadNumber', { field: t(FIELD_LABEL[f]), value: badField(f)!.value })}
                </span>
              ) : null}
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

      <div className={busy ? 'deployment-result busy' : 'deployment-result'} aria-busy={busy} data-testid="deployment-result">
        {inputErrors || problems.length > 0 ? (
          <div className="deployment-problems" role="status" data-testid="deployment-problems">
            {inputErrors ? (
              <>
                <p className="deployment-blocked">{t('depBlocked')}</p>
                <ul>
                  {wrongBoxes.map((k) => (
                    <li key={k}>
                      <button type="button" className="linklike" onClick={() => boxRefs.current[k]?.focus()}>
                        {failed(k) !== undefined ? t('depReadFailed', { source: sources[k], message: failed(k)! }) : boxProblems[k].map((p) => problemText(p, t, lang)).join(' · ')}
                      </button>
                    </li>
                  ))}
                  {typed.bad.map((b) => (
                    <li key={b.field}>
                      <button type="button" className="linklike" onClick={() => fieldRefs.current[b.field]?.focus()}>
                        {t('depBadNumber', { field: t(FIELD_LABEL[b.field]), value: b.value })}
                      </button>
                    </li>
                  ))}
                </ul>
              </>
            ) : (
              <>
                <b>{t('depProblems')}</b>
                <ul>
                  {problems.map((p) => (
                    <li key={p}>{p}</li>
                  ))}
                </ul>
              </>
            )}
          </div>
        ) : null}
        {answer ? (
          <div className="deployment-answer" data-testid="deployment-answer">
            <h3>
              {t('depAnswer')} <ModelBadge />
            </h3>
            <p className={answer.leaks ? 'deployment-verdict leaks' : 'deployment-verdict closed'} data-testid="deployment-verdict" data-verdict={verdict?.verdict}>
              {verdict?.verdict === 'open'
                ? t('depVerdictLeaks', { from: fmt(answer.smallestLeak!) })
                : verdict?.verdict === 'unknown'
                  ? answer.leaks
                    ? t('depVerdictMayLeak', { from: fmt(answer.smallestLeak!), needs: verdict.needs.map((n) => needLabel(n, t)).join(', ') })
                    : t('depVerdictUnknown', { needs: verdict.needs.map((n) => needLabel(n, t)).join(', ') })
                  : t('depVerdictClosed')}
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
                <button type="button" className="primary" onClick={replay} disabled={busy} data-testid="deployment-replay">
                  {t('depReplay', { tokens: fmt(replayable.promptTokens) })}
                </button>
              ) : (
                <p className="hint">{t('depReplayNone')}</p>
              )}
            </div>
          </div>
        ) : null}
      </div>
      {held ? (
        <div className="deployment-held">
          {showing ? (
            <p className="deployment-replayed" role="status" data-testid="deployment-replayed">
              {t('depReplaying', { tokens: fmt(replayOf(held!)?.promptTokens ?? 0) })}{' '}
              {replayed ? t('depReplayed', { outcome: t(`depOutcome.${replayed}` as MessageKey) + (leakedFrom.length > 0 ? ` (${t('depReplayedFrom', { tenants: leakedFrom.join(', ') })})` : '') }) : null}{' '}
              <button type="button" className="linklike" onClick={() => onShowReplay()}>
                {t('depShowReplay')}
              </button>
            </p>
          ) : null}
          <button type="button" onClick={copyLink} data-testid="deployment-copy">
            {copied ? t('depCopied') : t('depCopyLink')}
          </button>
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

/** One box of text: a textarea, or (a paste too long to show) its size and a button that clears it; under it, its reading's progress and its problems. */
function TextBox(props: {
  kind: BoxKind;
  id: string;
  text: string;
  aside: boolean;
  problems: readonly InputProblem[];
  failed: string | undefined;
  /** Lines in the text, once counted. */
  lines: number | null;
  progress: ReadProgress | null;
  focusRef: (el: HTMLElement | null) => void;
  /** A new text; `large`: pasted too long to show in the box. */
  onText: (text: string, large: boolean) => void;
}) {
  const { kind, id, text, aside, problems, failed, lines, progress, focusRef, onText } = props;
  const t = useT();
  const lang = useApp((s) => s.lang);
  const label = t(BOX_LABEL[kind]);
  const testId = BOX_TESTID[kind];
  const wrong = problems.length > 0 || failed !== undefined;
  const describedBy = [wrong ? `${id}-problems` : null, progress ? `${id}-progress` : null].filter((x) => x !== null).join(' ') || undefined;
  // A paste that would make the text too long to lay out is kept out of the textarea.
  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>) => {
    const pasted = e.clipboardData.getData('text/plain');
    const el = e.currentTarget;
    const next = el.value.slice(0, el.selectionStart) + pasted + el.value.slice(el.selectionEnd);
    if (next.length < LARGE_TEXT) return;
    e.preventDefault();
    onText(next, true);
  };
  const size = megabytes(text.length, t, lang);
  return (
    <div className={wrong ? 'deployment-box wrong' : 'deployment-box'}>
      {aside ? (
        <span className="deployment-box-label" id={`${id}-label`}>
          {label}
        </span>
      ) : (
        <label className="deployment-box-label" id={`${id}-label`} htmlFor={`${id}-text`}>
          {label}
        </label>
      )}
      {aside ? (
        <div ref={focusRef} className="deployment-pasted" role="group" tabIndex={-1} aria-labelledby={`${id}-label`} aria-describedby={describedBy} data-testid={`${testId}-pasted`}>
          <span>
            {lines === null ? t('depPasted', { size }) : t('depPastedLines', { size, lines: formatNumber(lines, lang) })} {t('depPastedNote')}
          </span>
          <button type="button" onClick={() => onText('', false)} data-testid={`${testId}-clear`}>
            {t('depPastedClear')}
          </button>
        </div>
      ) : (
        <textarea
          ref={focusRef}
          id={`${id}-text`}
          rows={BOX_ROWS[kind]}
          spellCheck={false}
          value={text}
          onChange={(e) => onText(e.target.value, false)}
          onPaste={onPaste}
          aria-invalid={wrong ? true : undefined}
          aria-describedby={describedBy}
          data-testid={testId}
        />
      )}
      {progress ? <ReadingProgress id={`${id}-progress`} label={label.split(' (')[0]!} progress={progress} /> : null}
      {wrong ? (
        <ul className="deployment-box-problems" id={`${id}-problems`} data-testid={`${testId}-problems`}>
          {failed !== undefined ? <li>{t('depReadFailed', { source: label.split(' (')[0]!, message: failed })}</li> : null}
          {problems.map((p) => (
            <li key={describeProblem(p)}>{problemText(p, t, lang)}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** A long text's reading: lines and megabytes walked of the whole, then the figures being read (no measure of that: one call). */
function ReadingProgress({ id, label, progress }: { id: string; label: string; progress: ReadProgress }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const lines = formatNumber(progress.lines, lang);
  return (
    <div className="deployment-reading" data-testid="deployment-reading">
      {progress.parsing ? (
        <progress aria-label={t('depReadingLabel', { source: label })} aria-describedby={id} />
      ) : (
        <progress aria-label={t('depReadingLabel', { source: label })} aria-describedby={id} max={progress.total} value={progress.read} />
      )}
      <span id={id}>{progress.parsing ? t('depReadingFigures', { lines }) : t('depReadingLines', { lines, read: megabytes(progress.read, t, lang), total: megabytes(progress.total, t, lang) })}</span>
    </div>
  );
}

function OriginMark({ origin }: { origin: Origin | 'link' }) {
  const t = useT();
  return <span className={`deployment-origin origin-${origin}`}>{t(ORIGIN_LABEL[origin])}</span>;
}

/** What the verdict still needs, in the page's words (the command line names its flags). */
function needLabel(n: Need, t: ReturnType<typeof useT>): string {
  if (n.kind === 'behaviour') return t(SWITCH_LABEL[n.key]);
  if (n.kind === 'figure') return n.field === 'disaggregated' ? t('depNeedRoles') : t(FIELD_LABEL[n.field]);
  return t(n.kind === 'margin' ? 'depNeedMargin' : 'depNeedTruncate');
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
