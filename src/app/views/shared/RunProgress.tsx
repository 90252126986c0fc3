/** A small progress line for a run being computed: a native <progress> plus the simulated date reached. */
import type { RunProgress as Progress } from '../../../engine/index.ts';
import { isoAt } from '../../../engine/incident/index.ts';

export function RunProgress({ progress, label }: { progress: Progress | null; label: string }) {
  const fraction = progress?.fraction ?? 0;
  const reached = progress ? isoAt(Math.max(0, progress.simulatedT)).slice(0, 16).replace('T', ' ') : '';
  return (
    <div className="replay-progress" data-testid="replay-progress">
      <label>
        {label}
        <progress max={1} value={fraction} aria-valuetext={`${Math.round(fraction * 100)}%`} />
      </label>
      <span aria-live="polite">
        {Math.round(fraction * 100)}%{reached ? ` · ${reached} UTC` : ''}
        {progress?.phase === 'fixed' ? ' · fixed deployment' : ''}
      </span>
    </div>
  );
}
