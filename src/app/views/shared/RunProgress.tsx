/** A small progress line for a run being computed: a native <progress> plus the simulated date reached. */
import { useProgress, type ProgressFeed } from '../../run/hooks.ts';
import { formatNumber, formatUtc } from '../../i18n/format.ts';
import { useT } from '../../i18n/i18n.ts';
import { useApp } from '../../state/store.ts';
import { ModelBadge } from './Evidence.tsx';

export function RunProgress({ feed, label, startEpochMs }: { feed: ProgressFeed; label: string; startEpochMs: number }) {
  const t = useT();
  const progress = useProgress(feed);
  const lang = useApp((s) => s.lang);
  const fraction = progress?.fraction ?? 0;
  const percent = formatNumber(fraction, lang, { style: 'percent', maximumFractionDigits: 0 });
  // Before the worker's first report there is no simulated time to show, and a file has none.
  const starting = progress === null || progress.phase === '' || progress.phase === 'started';
  const timed = !starting && progress.phase !== 'file' && progress.simulatedT >= 0;
  const reached = timed ? formatUtc(startEpochMs + progress.simulatedT, lang, { seconds: false }) : '';
  return (
    <div className="replay-progress" data-testid="replay-progress">
      <label>
        {label}
        <progress max={1} value={fraction} aria-valuetext={percent} />
      </label>
      <span className="replay-progress-status" aria-live="polite">
        {percent}
        {reached ? ` · ${t('progressReached', { time: reached })}` : ''}
        {progress?.phase === 'file' ? ` · ${t('progressFile')}` : starting ? ` · ${t('progressStarting')}` : ''}
        {progress?.phase === 'fixed' ? ` · ${t('progressFixed')}` : ''}
      </span>{' '}
      <ModelBadge />
    </div>
  );
}
