/**
 * What the Explore drawer holds: the switches, counters, assumptions and matrix (Controls) and the
 * exports. Its own module so that it loads when the drawer is first shown, not with the first screen.
 */
import type { RefObject } from 'react';
import { useT } from '../../i18n/i18n.ts';
import type { RunSummary } from '../../run/hooks.ts';
import { useApp, useAppStore } from '../../state/store.ts';
import { Controls } from '../controls/Controls.tsx';
import { exportLeaks, exportPng, exportSvg } from '../cluster/exportView.ts';

export function ExploreContents({ run, compare, viewRoot }: { run: RunSummary | undefined; compare: RunSummary | undefined; viewRoot: RefObject<HTMLDivElement | null> }) {
  const store = useAppStore();
  const t = useT();
  const view = useApp((s) => s.view);
  return (
    <>
      <Controls run={run} compare={compare} />
      {run && !run.refused ? (
        <div className="export" role="group" aria-label={t('export')}>
          <button type="button" onClick={() => viewRoot.current && exportPng(viewRoot.current, 'stale-pages-cluster')} disabled={view !== 'cluster'}>
            {t('exportPng')}
          </button>
          <button
            type="button"
            onClick={() => {
              exportSvg(run.seek(store.getState().time), 900, run.traceName, 'stale-pages-cluster');
            }}
            disabled={view !== 'cluster'}
          >
            {t('exportSvg')}
          </button>
          <button type="button" onClick={() => exportLeaks(run, 'csv', 'stale-pages-leaks')} data-testid="export-csv">
            {t('exportCsv')}
          </button>
          <button type="button" onClick={() => exportLeaks(run, 'json', 'stale-pages-leaks')}>
            {t('exportJson')}
          </button>
        </div>
      ) : null}
    </>
  );
}
