/**
 * Where the probe sits on the first screen. The probe itself (Probe.tsx: its controls and its own
 * run) waits for the main run anyway, so its code loads only then, with the rest of what the first
 * screen does not need at once; until it is there the slot shows the probe's title and what it
 * waits for, as the probe itself does before the main run.
 */
import { Suspense, lazy, useId } from 'react';
import { withLaterText } from '../../i18n/catalogue.ts';
import { useT } from '../../i18n/i18n.ts';
import { ModelBadge } from '../shared/Evidence.tsx';

const Probe = lazy(() => withLaterText(() => import('./Probe.tsx')).then((m) => ({ default: m.Probe })));

function ProbeWaiting() {
  const t = useT();
  const id = useId();
  return (
    <section className="probe" aria-labelledby={`${id}-h`} data-testid="probe-waiting">
      <h3 id={`${id}-h`}>
        {t('probeTitle')} <ModelBadge />
      </h3>
      <p className="probe-outcome hint">{t('probeWaiting')}</p>
    </section>
  );
}

/**
 * `after`: the main run, once the first screen is drawn; the probe loads and runs after it.
 * `paused`: the main run is being computed (a switch flipped): the probe's own run waits for it.
 */
export function ProbeSlot({ after, paused = false }: { after: unknown; paused?: boolean }) {
  if (!after) return <ProbeWaiting />;
  return (
    <Suspense fallback={<ProbeWaiting />}>
      <Probe after={after} paused={paused} />
    </Suspense>
  );
}
