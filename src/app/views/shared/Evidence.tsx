/**
 * Evidence badges. A fact badge names its id (F1…F26) and, on hover or focus, shows the fact in the
 * page's language with the report's French sentence below it, from public/facts.json. Model and
 * assumption badges label what the project made up; an assumption badge shows its text and reason
 * (engine/incident/assumptions). A background source is shown with its address, always visibly
 * (`SourceRef`), never as Cloudflare's.
 */
import { useId } from 'react';
import { useFacts } from '../../../data/useFacts.ts';
import { pick, useT } from '../../i18n/i18n.ts';
import { useApp, type Language } from '../../state/store.ts';
import { loadAssumptionTexts, useAssumptionTexts } from './assumptionTexts.ts';

/**
 * Keeps a badge's tooltip inside the window: it opens to the badge's right, moved left by as much as
 * it would pass the window's right edge (a badge near the edge of a phone's screen).
 */
function keepTipInView(badge: HTMLElement): void {
  const tip = badge.querySelector<HTMLElement>('.tip');
  if (!tip) return;
  const width = Math.min(26 * 16, window.innerWidth * 0.8);
  const left = badge.getBoundingClientRect().left;
  const over = left + width - (document.documentElement.clientWidth - 8);
  tip.style.left = over > 0 ? `${-Math.min(over, left - 8)}px` : '';
}

/** `fact`: the fact id a fact badge carries (`data-fact`: the lens on the evidence keeps it bright). */
function Tip({ label, className, testId, onShow, fact, children }: { label: string; className: string; testId?: string; onShow?: () => void; fact?: string; children: React.ReactNode }) {
  const id = useId();
  const show = (e: React.SyntheticEvent<HTMLElement>) => {
    keepTipInView(e.currentTarget);
    onShow?.();
  };
  return (
    <span className={`badge ${className} has-tip`} tabIndex={0} aria-describedby={id} data-testid={testId} data-fact={fact} onPointerEnter={show} onFocus={show}>
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
    <Tip label={id} className="fact" testId={`fact-${id}`} fact={id}>
      {fact ? (
        <>
          <b>
            {t('fact')} {id}
          </b>{' '}
          {pick(lang, fact.en, fact.fr)}
          <br />
          {lang === 'en' ? <span className="hint">{t('evidenceFrenchOriginal')} </span> : null}
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
  const assumptions = useAssumptionTexts();
  const a = assumptions?.find((x) => x.id === id);
  // The label (the id) is there at once; the text arrives after the first screen, or when asked for.
  const show = () => void loadAssumptionTexts().catch(() => undefined);
  return (
    <Tip label={`${t('assumption')} ${id}`} className="assumption" testId={`assumption-${id}`} onShow={show}>
      {!assumptions ? (
        <span className="hint">{t('textLoading')}</span>
      ) : a ? (
        <>
          {pick(lang, a.en, a.fr)}
          <br />
          <i>{pick(lang, a.reasonEn, a.reasonFr)}</i>
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
          <BackgroundWords b={b} lang={lang} />
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

/**
 * The pieces of a background entry's French text: a « quoted » passage that its English text also
 * quotes word for word is English (a pull request's title, a code comment), marked so for a reader.
 */
export function englishQuotes(fr: string, en: string): { text: string; en: boolean }[] {
  const out: { text: string; en: boolean }[] = [];
  let at = 0;
  for (const m of fr.matchAll(/«\u00a0?([^«»]+?)\u00a0?»/g)) {
    const inner = m[1]!.trim();
    if (!en.includes(inner)) continue;
    const start = m.index! + m[0].indexOf(inner);
    out.push({ text: fr.slice(at, start), en: false }, { text: inner, en: true });
    at = start + inner.length;
  }
  out.push({ text: fr.slice(at), en: false });
  return out.filter((p) => p.text !== '');
}

/** A background entry's text in the page's language, English titles quoted in French marked `lang="en"`. */
export function BackgroundWords({ b, lang }: { b: { en: string; fr: string }; lang: Language }) {
  if (lang === 'en') return <>{b.en}</>;
  return (
    <>
      {englishQuotes(b.fr, b.en).map((p, i) =>
        p.en ? (
          <span key={i} lang="en">
            {p.text}
          </span>
        ) : (
          p.text
        ),
      )}
    </>
  );
}

/** An address without its scheme, for reading: "github.com/sgl-project/sglang/pull/38704". */
export function shortUrl(url: string): string {
  return url.replace(/^https:\/\//, '').replace(/\/$/, '');
}

/** The short form of an address in a narrow column: "#38704" for a pull request or an issue, a source file's name. */
function compactUrl(url: string): string {
  const m = /\/(?:pull|issues)\/(\d+)$/.exec(url);
  if (m) return `#${m[1]}`;
  const file = /\/blob\/[^/]+\/(?:[^/]+\/)*([^/]+)$/.exec(url);
  return file ? file[1]! : shortUrl(url);
}

/**
 * A fact's words: in English, the English text and then "French original:" before the report's
 * French sentence; in French, the sentence alone. The French is always the source quoted.
 */
export function FactWords({ en, quote, lang }: { en: string; quote: string; lang: Language }) {
  const t = useT();
  return (
    <>
      {lang === 'en' ? (
        <>
          {en}
          <br />
          <span className="hint">{t('evidenceFrenchOriginal')} </span>
        </>
      ) : null}
      <q lang="fr" className="quote">
        {quote}
      </q>
    </>
  );
}

/**
 * A public source cited in running text: its badge (what it says, on hover or focus) and its address
 * as a visible link, and every further address it has (the redis-py issue beside OpenAI's post).
 * `compact` shortens the link's text (never its address) for a narrow column.
 */
export function SourceRef({ id, compact = false }: { id: string; compact?: boolean }) {
  const facts = useFacts();
  const b = facts.data?.file.background.find((x) => x.id === id);
  return (
    <span className="source-ref" data-background={id}>
      <BackgroundBadge id={id} />{' '}
      {b
        ? [b.url, ...(b.moreUrls ?? [])].map((url, i) => (
            <span key={url}>
              {i > 0 ? ' · ' : ''}
              <a href={url} rel="noreferrer" className={compact ? 'url compact' : 'url'} title={url}>
                {compact ? compactUrl(url) : shortUrl(url)}
              </a>
            </span>
          ))
        : null}
    </span>
  );
}
