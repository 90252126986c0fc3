/**
 * "What the report says / what we assume / what the report does not say": every fact F1–F26 (in the page's
 * language, with the report's French sentence beside it), every assumption (A1…) with its reason,
 * every item N1–N9 the report leaves open with the assumptions that model it, and the public
 * background with addresses. Always in the page (id `evidence`), so a keyboard, a skip link, the
 * header's button and the walkthrough's last chapter all reach it.
 */
import { Suspense, lazy, useSyncExternalStore } from 'react';
import { withLaterText } from '../../i18n/catalogue.ts';
import { useT } from '../../i18n/i18n.ts';
import './evidence.css';

// The lists load once the first screen is drawn (`load`), or as soon as the panel is asked for.
const EvidenceLists = lazy(() => withLaterText(() => import('./EvidenceLists.tsx')).then((m) => ({ default: m.EvidenceLists })));

export const EVIDENCE_ID = 'evidence';

let asked = false;
const askedListeners = new Set<() => void>();
const subscribeAsked = (listener: () => void) => {
  askedListeners.add(listener);
  return () => askedListeners.delete(listener);
};

/** Moves focus to the panel's heading (for the header's button and the walkthrough's link). */
export function focusEvidence(): void {
  if (!asked) {
    asked = true;
    for (const listener of askedListeners) listener();
  }
  const h = document.getElementById(`${EVIDENCE_ID}-h`);
  h?.scrollIntoView?.({ block: 'start' });
  h?.focus();
}

export function EvidencePanel({ load }: { load: boolean }) {
  const t = useT();
  const wanted = useSyncExternalStore(subscribeAsked, () => asked);
  const loading = <p className="hint">{t('textLoading')}</p>;
  return (
    <section className="evidence panel" id={EVIDENCE_ID} aria-labelledby={`${EVIDENCE_ID}-h`} data-testid="evidence-panel">
      <h2 id={`${EVIDENCE_ID}-h`} tabIndex={-1}>
        {t('evidenceTitle')}
      </h2>
      {load || wanted ? (
        <Suspense fallback={loading}>
          <EvidenceLists />
        </Suspense>
      ) : (
        loading
      )}
    </section>
  );
}
