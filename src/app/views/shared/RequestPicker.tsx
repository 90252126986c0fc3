import { useMemo } from 'react';
import { useT } from '../../i18n/i18n.ts';
import { FLAG_LEAK_PROVENANCE, FLAG_OVER_LIMIT } from '../../../engine/index.ts';
import type { RunSummary } from '../../run/hooks.ts';
import { useApp } from '../../state/store.ts';

/** Leaked and over-limit requests first, then the rest (capped, so the list stays usable). */
export function RequestPicker({ run }: { run: RunSummary }) {
  const t = useT();
  const selected = useApp((s) => s.selectedRequest);
  const set = useApp((s) => s.set);
  const options = useMemo(() => {
    const idx = run.requests.ids.map((_, i) => i);
    const rank = (i: number) => (run.requests.flags[i]! & FLAG_LEAK_PROVENANCE ? 0 : run.requests.flags[i]! & FLAG_OVER_LIMIT ? 1 : 2);
    return idx.sort((a, b) => rank(a) - rank(b) || a - b).slice(0, 300);
  }, [run]);
  return (
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
        {options.map((i) => (
          <option key={i} value={i}>
            {run.requests.ids[i]} · {run.tenants[run.requests.tenant[i]!]} · {run.requests.promptTokens[i]!.toLocaleString('en-US')} {t('tokens')} · {run.requests.status[i]}
            {run.requests.flags[i]! & FLAG_LEAK_PROVENANCE ? ` · ⚠ ${t('leaked')}` : ''}
          </option>
        ))}
      </select>
    </label>
  );
}
