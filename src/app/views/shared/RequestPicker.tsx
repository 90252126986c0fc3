import { useMemo } from 'react';
import { useT } from '../../i18n/i18n.ts';
import { formatNumber } from '../../i18n/format.ts';
import { FLAG_LEAK_PROVENANCE, FLAG_OVER_LIMIT } from '../../../engine/run.ts';
import type { RunSummary } from '../../run/hooks.ts';
import { useApp } from '../../state/store.ts';
import { AssumptionBadge } from './Evidence.tsx';
import { senderOf } from './requestEvidence.ts';

/**
 * Leaked and over-limit requests first, then the rest (capped, so the list stays usable). In the
 * incident replay each option names the assumption that placed its sender (A6 for the researcher's
 * requests, A7 for the reproduction's), and the chosen request's sender is shown with its badge.
 * While a walkthrough question waits, the options say no status and no leak, in the trace's order:
 * how a request ended is what the questions ask.
 */
export function RequestPicker({ run }: { run: RunSummary }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const scenario = useApp((s) => s.scenario);
  const selected = useApp((s) => s.selectedRequest);
  const set = useApp((s) => s.set);
  const held = useApp((s) => s.questionOpen);
  const options = useMemo(() => {
    const idx = run.requests.ids.map((_, i) => i);
    const rank = (i: number) => (held ? 0 : run.requests.flags[i]! & FLAG_LEAK_PROVENANCE ? 0 : run.requests.flags[i]! & FLAG_OVER_LIMIT ? 1 : 2);
    return idx.sort((a, b) => rank(a) - rank(b) || a - b).slice(0, 300);
  }, [run, held]);
  const sender = selected !== null && selected < run.requests.count ? senderOf(scenario, run.requests.kind[selected]!) : null;
  return (
    <div className="picker-row">
      <label className="picker">
        {t('request')}{' '}
        <select
          value={selected ?? ''}
          onChange={(e) => {
            const req = e.target.value === '' ? null : Number(e.target.value);
            set({ selectedRequest: req, ...(req !== null ? { time: run.requests.finishedAt[req]! } : {}) });
          }}
          data-testid="request-picker"
        >
          <option value="">—</option>
          {options.map((i) => {
            const s = senderOf(scenario, run.requests.kind[i]!);
            return (
              <option key={i} value={i}>
                {t(held ? 'requestOptionHeld' : 'requestOption', { id: run.requests.ids[i]!, tenant: run.tenants[run.requests.tenant[i]!] ?? '?', tokens: formatNumber(run.requests.promptTokens[i]!, lang), status: String(run.requests.status[i]) })}
                {!held && run.requests.flags[i]! & FLAG_LEAK_PROVENANCE ? t('requestOptionLeaked') : ''}
                {s && s.assumption !== 'A2' ? ` · ${s.assumption}` : ''}
              </option>
            );
          })}
        </select>
      </label>
      {sender ? (
        <span className="hint" data-testid="request-sender">
          {t('requestSentBy')} {t(sender.label)} <AssumptionBadge id={sender.assumption} />
        </span>
      ) : null}
    </div>
  );
}
