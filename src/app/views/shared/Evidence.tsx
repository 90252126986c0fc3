/**
 * Evidence badges. A fact badge names its id (F1…F26) and, on hover or focus, shows the report's
 * French sentence and its translation, from public/facts.json. Model and assumption badges label
 * what the project made up; an assumption badge shows its text and reason (engine/incident/assumptions).
 */
import { useId } from 'react';
import { ASSUMPTIONS } from '../../../engine/incident/index.ts';
import { useFacts } from '../../../data/useFacts.ts';
import { useT } from '../../i18n/i18n.ts';
import { useApp } from '../../state/store.ts';

function Tip({ label, className, testId, children }: { label: string; className: string; testId?: string; children: React.ReactNode }) {
  const id = useId();
  return (
    <span className={`badge ${className} has-tip`} tabIndex={0} aria-describedby={id} data-testid={testId}>
      {label}
      <span role="tooltip" id={id} className="tip">
        {children}
      </span>
    </span>
  );
}

export function FactBadge({ id }: { id: string }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const facts = useFacts();
  const fact = facts.data?.byId.get(id);
  return (
    <Tip label={id} className="fact" testId={`fact-${id}`}>
      {fact ? (
        <>
          <b>
            {t('fact')} {id}
          </b>{' '}
          {lang === 'fr' ? fact.fr : fact.en}
          <br />
          <q lang="fr" className="quote">
            {fact.quote}
          </q>
        </>
      ) : facts.isError ? (
        t('factsUnavailable')
      ) : (
        t('loading')
      )}
    </Tip>
  );
}

export function AssumptionBadge({ id }: { id: string }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const a = ASSUMPTIONS.find((x) => x.id === id);
  return (
    <Tip label={`${t('assumption')} ${id}`} className="assumption" testId={`assumption-${id}`}>
      {a ? (
        <>
          {lang === 'fr' ? a.fr : a.en}
          <br />
          <i>{lang === 'fr' ? a.reasonFr : a.reasonEn}</i>
        </>
      ) : (
        id
      )}
    </Tip>
  );
}

export function ModelBadge({ title }: { title?: string }) {
  const t = useT();
  return (
    <Tip label={t('model')} className="model">
      {title ?? t('modelTip')}
    </Tip>
  );
}

/** A public source (never Cloudflare's report): its id, what it says, and its address. */
export function BackgroundBadge({ id }: { id: string }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  const facts = useFacts();
  const b = facts.data?.file.background.find((x) => x.id === id);
  return (
    <Tip label={id} className="background" testId={`background-${id}`}>
      {b ? (
        <>
          <b>
            {t('walkBackground')} {id}
          </b>{' '}
          {lang === 'fr' ? b.fr : b.en}
          <br />
          <span className="url">{b.url}</span>
        </>
      ) : facts.isError ? (
        t('factsUnavailable')
      ) : (
        t('loading')
      )}
    </Tip>
  );
}
