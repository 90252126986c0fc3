/**
 * "Your request": drag a probe request's prompt length across the prefill KV cache's capacity and
 * watch it flip from served to leaking. The probe is the demo's trace (three tenants warm the
 * pools) with your prompt in place of the over-long one, run through the same worker and the same
 * run path as every run, under the switches as they are now. Debounced while dragging; a run a newer
 * length supersedes is cancelled (react-query drops it, its worker is terminated).
 */
import { useEffect, useId, useMemo, useState } from 'react';
import { overridesOf } from '../../../engine/switches.ts';
import { PROBE_ID, PROBE_SCALES, probeRequest, type ProbeScale } from '../../../engine/runs/probe.ts';
import { formatNumber, formatOffsetSeconds } from '../../i18n/format.ts';
import { momentOf, scriptOf } from '../../moment/moment.ts';
import type { RequestDetail, RunSummary } from '../../run/summary.ts';
import { stepSentence } from '../stage/StageView.tsx';
import { useT } from '../../i18n/i18n.ts';
import { useRequestDetail, useRunRequest } from '../../run/hooks.ts';
import { useApp } from '../../state/store.ts';
import { FactBadge, ModelBadge } from '../shared/Evidence.tsx';

const DEBOUNCE_MS = 150;

export type ProbeOutcome = 'pending' | 'served' | 'leaking' | 'refused' | 'error';

/**
 * `after`: the main run; the probe waits for it, so that the two never share the CPU at first load.
 * `paused`: the main run is being computed again (a switch flipped); the probe's run for the new
 * switches starts once the main one is there, not beside it (on two cores the two halved each other).
 */
export function Probe({ after, paused = false }: { after: unknown; paused?: boolean }) {
  const kind = useApp((s) => (s.scenario === 'microscope' ? 'microscope' : 'demo'));
  return <ProbeAt key={kind} after={paused ? null : after} scale={PROBE_SCALES[kind]} />;
}

/**
 * The probe's handoff, step by step: the stage's own step list (the moment's script, each step's
 * sentence as the stage's list says it), of the probe's run at its handoff's end, so the words and
 * counts are those the stage would show for this request.
 */
function ProbeSteps({ run, req, detail }: { run: RunSummary; req: number; detail: RequestDetail }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const moment = useMemo(() => momentOf({ run, req, detail, time: run.endMs, handoff: scriptOf(detail).total, reducedMotion: true }), [run, req, detail]);
  const events = detail.events;
  return (
    <ol>
      {moment.script.steps.map((step, i) => (
        <li key={i} data-step={step.id}>
          <span className="hint">{formatOffsetSeconds(events[step.event]!.t - events[0]!.t, lang)}</span> {stepSentence(step, moment, t, lang)}
        </li>
      ))}
    </ol>
  );
}

function ProbeAt({ after, scale }: { after: unknown; scale: ProbeScale }) {
  // The limits of the slider and the typed length: this scale's.
  const { min: MIN, max: MAX } = scale;
  const t = useT();
  const lang = useApp((s) => s.lang);
  const switches = useApp((s) => s.switches);
  // A walkthrough question waits: what a prompt gets (what prefill computed, the status, whose KV) would answer it.
  const held = useApp((s) => s.questionOpen || s.questionAhead);
  const fmt = (n: number) => formatNumber(n, lang);
  const id = useId();
  const [draft, setDraft] = useState(scale.initial);
  const [tokens, setTokens] = useState(scale.initial);
  const [typed, setTyped] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** Its handoff's steps are worked out only while someone reads them. */
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const h = window.setTimeout(() => setTokens(draft), DEBOUNCE_MS);
    return () => window.clearTimeout(h);
  }, [draft]);
  const request = useMemo(() => (after ? probeRequest(tokens, overridesOf(switches), scale.kind) : null), [tokens, switches, after, scale.kind]);
  const run = useRunRequest(request);
  const probe = run.data ? run.data.requests.ids.indexOf(PROBE_ID) : -1;
  // Its events whatever its status: the outcome reads the answer of a 200, the handoff below every step.
  const detail = useRequestDetail(run.data, probe >= 0 ? probe : null);
  const r = detail.data?.response;
  const status = run.data && probe >= 0 ? run.data.requests.status[probe]! : null;
  const stale = run.progress !== null || draft !== tokens;
  let outcome: ProbeOutcome = 'pending';
  // A deployment the capacity check refused serves nothing: the probe's request has no status at all.
  const deploymentRefused = run.data?.refused != null;
  if (run.isError) outcome = 'error';
  else if (!stale && (deploymentRefused || (status !== null && status !== 200))) outcome = 'refused';
  else if (!stale && r) outcome = r.leakedFrom.length > 0 ? 'leaking' : 'served';

  const commitTyped = () => {
    if (typed === null) return;
    const n = Number(typed.replace(/[\s,.\u202f\u00a0]/g, ''));
    if (!Number.isInteger(n) || n < MIN || n > MAX) {
      setError(t('probeBadLength', { value: typed, min: fmt(MIN), max: fmt(MAX) }));
      return;
    }
    setError(null);
    setTyped(null);
    setDraft(n);
    setTokens(n);
  };
  return (
    <section className="probe" aria-labelledby={`${id}-h`} data-testid="probe">
      <h3 id={`${id}-h`}>
        {t('probeTitle')} <ModelBadge /> <span className="hint">{t(scale.kind === 'microscope' ? 'modelTransformer' : 'modelCompressed')}</span>
      </h3>
      {/* Its own request, not the one the first screen tells: said before any number of it. */}
      <p className="probe-intro hint" data-testid="probe-intro">
        {t(scale.kind === 'microscope' ? 'probeIntroMicroscope' : 'probeIntro', { id: PROBE_ID })}
      </p>
      <div className="probe-row">
        <label htmlFor={`${id}-range`} className="visually-hidden">
          {t('probeLength')}
        </label>
        <input
          id={`${id}-range`}
          type="range"
          min={MIN}
          max={MAX}
          step={1}
          value={draft}
          onChange={(e) => setDraft(Number(e.target.value))}
          aria-valuetext={`${fmt(draft)} ${t('tokens')}`}
          data-testid="probe-range"
          list={`${id}-marks`}
        />
        <datalist id={`${id}-marks`}>
          <option value={scale.capacity} />
          <option value={scale.advertised} />
        </datalist>
        <label className="probe-number">
          <span className="visually-hidden">{t('probeLength')}</span>
          <input
            type="text"
            inputMode="numeric"
            value={typed ?? String(draft)}
            onChange={(e) => setTyped(e.target.value)}
            onBlur={commitTyped}
            onKeyDown={(e) => e.key === 'Enter' && commitTyped()}
            aria-invalid={error ? true : undefined}
            data-testid="probe-tokens"
            size={9}
          />{' '}
          {t('tokens')}
        </label>
      </div>
      <p className="probe-marks hint">
        {t('probeMarks', { capacity: fmt(scale.capacity), advertised: fmt(scale.advertised) })} {scale.kind === 'demo' ? <FactBadge id="F14" /> : <ModelBadge />}
      </p>
      {error ? (
        <p className="alert" role="alert" data-testid="probe-error">
          {error}
        </p>
      ) : null}
      <p className={`probe-outcome outcome-${outcome}`} data-testid="probe-outcome" data-outcome={outcome} data-tokens={tokens} data-held={held || undefined} aria-live="polite" aria-busy={after && outcome === 'pending' ? true : undefined}>
        {!after
          ? t('probeWaiting')
          : held && outcome !== 'error'
          ? t('probeHeld')
          : outcome === 'pending'
          ? t('probePending', { tokens: fmt(draft) })
          : outcome === 'error'
            ? (run.error?.message ?? '')
            : outcome === 'refused'
              ? deploymentRefused
                ? t('probeDeploymentRefused', { tokens: fmt(tokens) })
                : t('probeRefused', { id: PROBE_ID, status: String(status), tokens: fmt(tokens) })
              : outcome === 'leaking'
                ? t('probeLeaking', { id: PROBE_ID, tokens: fmt(tokens), computed: fmt(r!.computedTokens), tenants: r!.leakedFrom.join(', ') })
                : t('probeServed', { id: PROBE_ID, tokens: fmt(tokens), computed: fmt(r!.computedTokens) })}
      </p>
      {/* Its own handoff, from its own run's events: what happened to this request, not to the one told above.
          Its line is there from the start (closed), held or not, so that the views below stay put when the run lands. */}
      {after && !deploymentRefused && outcome !== 'error' ? (
        <details className="probe-handoff" data-testid="probe-handoff" onToggle={(e) => setOpen(e.currentTarget.open)}>
          <summary>{t('probeHandoff', { id: PROBE_ID })}</summary>
          {held ? (
            <p className="hint">{t('probeHeld')}</p>
          ) : !stale && run.data && detail.data && outcome !== 'pending' ? (
            open ? <ProbeSteps run={run.data} req={probe} detail={detail.data} /> : null
          ) : (
            <p className="hint">{t('probePending', { tokens: fmt(draft) })}</p>
          )}
        </details>
      ) : null}
    </section>
  );
}
