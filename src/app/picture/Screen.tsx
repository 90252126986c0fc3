/**
 * The stage layout for a screen (a room, a recording): no app chrome, one panel at full width
 * (ScreenPicture), type that reads at 720p, the chapter's title and one evidence line above it, one
 * caption at a time in its own band below it (never over the picture), a predict panel beside the
 * picture during a predict beat, and full-screen cards: the title, each chapter's title, the end
 * with the fixes and the sources. What it shows comes from the store's `screenFrame`, which the
 * video renderer sets frame by frame (render/driver.ts); every movement here is a function of
 * that frame number.
 */
import { useLayoutEffect, type CSSProperties, type ReactNode } from 'react';
import { useFacts } from '../../data/useFacts.ts';
import type { FactIndex } from '../../data/facts.ts';
import { pick, useT } from '../i18n/i18n.ts';
import { formatUtcDayRange } from '../i18n/format.ts';
import { WINDOW_LAST_DAY_ISO, WINDOW_START_ISO } from '../../engine/incident/index.ts';
import { useApp, type Language, type ScreenFrame } from '../state/store.ts';
import { highlightSelector, setPageRules, type HighlightId } from '../views/shared/highlight.ts';
import { CHAPTERS } from '../walkthrough/chapters/index.ts';
import { shownTitle } from '../walkthrough/chapters/spoilers.ts';
import { SceneLine } from './SceneLine.tsx';
import type { Chapter } from '../walkthrough/chapters/chapter.ts';
import { ScreenPicture } from './ScreenPicture.tsx';
import { RoomTally } from './RoomTally.tsx';
import { CAPTION_BAND_PX } from './captionBand.ts';
import './screen.css';

const L = (x: { en: string; fr: string }, lang: Language) => pick(lang, x.en, x.fr);

/** The facts the end card states: the two fixes, by id. */
export const END_FACTS = ['F23', 'F24'] as const;

/** The facts a chapter rests on: its paragraphs' evidence, then the ids its captions cite in their words ("… (F6)"), which the video says aloud. */
function factIdsOf(ch: Chapter): string[] {
  const cited = ch.steps.flatMap((s) => ('caption' in s ? [...s.caption.en.matchAll(/\b(F\d+)\b/g)].map((m) => m[1]!) : []));
  return [...new Set([...ch.paragraphs.flatMap((p) => ('facts' in p.evidence ? p.evidence.facts : [])), ...cited])];
}

/** Longer than the video's cues (which split at 84 characters): a live caption is a step's whole text, set smaller to stay in its band. */
const LONG_CAPTION = 100;

function Caption({ cue, frame }: { cue: NonNullable<ScreenFrame['cue']>; frame: number }) {
  // Words light up as the narration reaches them (by characters, over the cue's spoken frames).
  const words = cue.text.split(' ');
  const total = cue.text.length;
  const said = cue.spoken > 0 ? Math.min(1, frame / cue.spoken) * total : total;
  let acc = 0;
  return (
    <p className={cue.text.length > LONG_CAPTION ? 'screen-caption long' : 'screen-caption'} data-testid="screen-caption" data-cue={cue.key}>
      {words.map((w, i) => {
        const lit = acc < said;
        acc += w.length + 1;
        return (
          <span key={i} className={lit ? 'said' : 'ahead'}>
            {w}
            {i < words.length - 1 ? ' ' : ''}
          </span>
        );
      })}
    </p>
  );
}

function PredictPanel({ ch, beat, lang }: { ch: Chapter; beat: NonNullable<ScreenFrame['beat']>; lang: Language }) {
  const t = useT();
  const cp = ch.checkpoint!;
  // In a workshop room (the presenter's page): how many answered, then the room's split in place of the list.
  const inRoom = useApp((s) => s.roomView?.role === 'presenter');
  const question = `ch:${CHAPTERS.indexOf(ch) + 1}`;
  const roomSplit = useApp((s) => s.roomView?.revealed[question] !== undefined);
  const labels = cp.options.map((o) => L(o.label, lang));
  return (
    <aside className={`screen-predict${beat.revealed ? ' revealed' : ''}`} data-testid="screen-predict">
      <p className="predict-q">
        <b>{t('screenPredict')}</b> {L(cp.question, lang)}
      </p>
      {inRoom && roomSplit && beat.revealed ? null : <ol>
        {cp.options.map((o) => (
          <li key={o.id} className={beat.revealed ? (o.id === cp.answer ? 'right' : 'wrong') : ''}>
            {beat.revealed && o.id === cp.answer ? '✓ ' : ''}
            {L(o.label, lang)}
          </li>
        ))}
      </ol>}
      {inRoom ? <RoomTally big question={question} options={labels} correct={cp.options.findIndex((o) => o.id === cp.answer)} /> : null}
      {!beat.revealed ? (
        <div className="countdown" aria-label={t('screenCountdown', { s: String(beat.secondsLeft) })}>
          <span className="countdown-n">{beat.secondsLeft}</span>
          <span className="countdown-bar">
            <span style={{ width: `${Math.max(0, 100 * (1 - beat.elapsed))}%` }} />
          </span>
        </div>
      ) : null}
    </aside>
  );
}

function TitleCard({ lang }: { lang: Language }) {
  const t = useT();
  const facts = useFacts();
  const f2 = facts.data?.byId.get('F2');
  return (
    <div className="screen-card title" data-testid="screen-card" data-card="title">
      <h1>{t('title')}</h1>
      {/* The title card is where the room's questions before the talk are open: it asks, it does not tell. */}
      <p className="card-sub">{t('taglineAsked')}</p>
      {f2 ? (
        <p className="card-fact">
          {pick(lang, f2.en, f2.fr)} <span className="card-id">F2</span>
        </p>
      ) : null}
      <p className="card-range">{formatUtcDayRange(WINDOW_START_ISO.slice(0, 10), WINDOW_LAST_DAY_ISO, lang)}</p>
    </div>
  );
}

/**
 * A chapter's name in the talk and the video, the same on its card, in its header all through it, in
 * the narration and in the chapter files (render/schedule.ts): a title that would answer the chapter's
 * own question is its question-shaped form (the questions before it are revealed by then).
 */
function titleOnScreen(n: number, lang: Language): string {
  return L(shownTitle(n, (k) => k < n), lang);
}

function ChapterCard({ n, lang }: { n: number; lang: Language }) {
  const t = useT();
  return (
    <div className="screen-card chapter" data-testid="screen-card" data-card={`chapter-${n}`}>
      <p className="card-n">{t('screenChapter', { n: String(n) })}</p>
      <h1>{titleOnScreen(n, lang)}</h1>
      <SceneLine chapter={n} className="card-scene" testId="card-scene" />
    </div>
  );
}

/** The end card's text (also what the narration says), from the facts file with its ids. */
export function endFactsOf(facts: FactIndex, lang: Language): { id: string; text: string; quote: string }[] {
  return END_FACTS.map((id) => {
    const f = facts.byId.get(id)!;
    return { id, text: pick(lang, f.en, f.fr), quote: f.quote };
  });
}

/** A fact on a card: its words, its id, and in the English video the article's French sentence under it. */
function CardFact({ id, text, quote, lang }: { id: string; text: string; quote: string; lang: Language }) {
  return (
    <>
      {text} <span className="card-id">{id}</span>
      {lang === 'en' ? (
        <q lang="fr" className="card-quote">
          {quote}
        </q>
      ) : null}
    </>
  );
}

function EndCard({ lang }: { lang: Language }) {
  const t = useT();
  const facts = useFacts();
  if (!facts.data) return <div className="screen-card end" />;
  const fixes = endFactsOf(facts.data, lang);
  const file = facts.data.file;
  // When the analysis was published (F3), with the article's sentence under it in English.
  const published = facts.data.byId.get('F3');
  const background = ['B1', 'B4', 'B9', 'B10'].map((id) => file.background.find((b) => b.id === id)).filter((b) => b !== undefined);
  return (
    <div className="screen-card end" data-testid="screen-card" data-card="end">
      <h1>{t('screenFixes')}</h1>
      <ul className="card-fixes">
        {fixes.map((f) => (
          <li key={f.id}>
            <CardFact {...f} lang={lang} />
          </li>
        ))}
      </ul>
      <h2>{t('walkSources')}</h2>
      <p className="card-source">{t('screenSourceArticle', { title: file.source.title })}</p>
      {published ? (
        <p className="card-source" data-testid="card-published">
          <CardFact id="F3" text={pick(lang, published.en, published.fr)} quote={published.quote} lang={lang} />
        </p>
      ) : null}
      <ul className="card-background">
        {background.map((b) => (
          <li key={b.id}>
            <b>{b.id}</b> {b.url}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * What a highlight outlines on the screen: the part of the view it names and, in the transfer's
 * list, the steps the caption speaks of (several steps share one instant, so "the current step"
 * alone would point at the last of them).
 */
const STEP_EVENTS: Partial<Record<string, string[]>> = {
  steps: ['abort-marked'],
  'computed-tokens': ['prefill-compute'],
  'block-table': ['decode-reserve'],
  'done-message': ['kv-transfer', 'transfer-done'],
  'transfer-status': ['reject'],
};

/** The list of steps itself is never outlined on the screen: the steps the caption names are. */
export function highlightSelectors(highlight: string): string[] {
  const steps = (STEP_EVENTS[highlight] ?? []).map((e) => `.screen .steps li[data-event="${e}"]`);
  return [highlight === 'steps' ? '.screen .no-such-part' : `.screen ${highlightSelector(highlight as HighlightId)}`, ...steps];
}

/** The outline's width plus its offset: the room a highlighted part needs around it. */
const OUTLINE_PX = 8;

/** An element's top within a scrolling ancestor's content (independent of the current scroll). */
function offsetIn(el: HTMLElement, scroller: HTMLElement): number {
  return el.getBoundingClientRect().top - scroller.getBoundingClientRect().top + scroller.scrollTop;
}

/**
 * How far the picture scrolls: not at all while the part pointed at (with its outline) fits; else
 * just far enough to show its foot, moved up to where a part begins — a node's grid with its name,
 * or else the first element that starts below the minimum — so nothing is cut off at the top edge.
 */
function pictureScroll(view: HTMLElement, pointed: HTMLElement | null): number {
  view.scrollTop = 0;
  if (!pointed) return 0;
  const box = view.getBoundingClientRect();
  const need = pointed.getBoundingClientRect().bottom + OUTLINE_PX - box.bottom;
  if (need <= 0) return 0;
  const grid = pointed.closest<HTMLElement>('.node-grid');
  if (grid) return Math.max(0, offsetIn(grid, view) - OUTLINE_PX);
  const limit = offsetIn(pointed, view) - OUTLINE_PX;
  let best = limit;
  for (const el of view.querySelectorAll<HTMLElement>('*')) {
    const top = offsetIn(el, view) - 4;
    if (top >= need && top < best && !el.contains(pointed)) best = top;
  }
  return Math.max(0, Math.min(best, limit));
}

/**
 * The outline on what the chapter points at: a rule, so it follows re-renders. Steady: motion on the
 * screen is the mechanism's, never decoration.
 */
function useHighlightRule(highlight: string | null, frame: number) {
  useLayoutEffect(() => {
    const selectors = highlight ? highlightSelectors(highlight) : [];
    setPageRules('screen-highlight', selectors.length ? `${selectors.join(', ')} { outline: 5px solid var(--focus) !important; outline-offset: 3px; }` : '');
    // The transfer's steps the caption speaks of (else its current step) stay in the middle of the
    // list; only the list scrolls (scrollIntoView would also scroll the picture, cutting off tops).
    const step = selectors.slice(1).map((sel) => document.querySelector<HTMLElement>(sel)).find((el) => el) ?? document.querySelector<HTMLElement>('.screen .steps li.current');
    const list = step?.closest<HTMLElement>('.steps');
    if (step && list) list.scrollTop = Math.max(0, offsetIn(step, list) - (list.clientHeight - step.offsetHeight) / 2);
    // The picture scrolls only when what is pointed at would be out of it, and then puts its top,
    // outline included, at the top: never a part cut in half at the top edge.
    const view = document.querySelector<HTMLElement>('.screen .screen-view');
    if (!view) return;
    const place = () => {
      const pointed = selectors[0] ? document.querySelector<HTMLElement>(selectors[0]) : null;
      view.scrollTop = pictureScroll(view, pointed && view.contains(pointed) ? pointed : null);
    };
    place();
    // A picture that sizes itself after mounting (the stage measures its width first) changes what
    // fits: place it again once it has, so the scroll depends on the frame's final layout alone, not on
    // whether the picture was already on screen in the frame rendered before.
    const ro = new ResizeObserver(place);
    for (const child of view.children) ro.observe(child);
    return () => ro.disconnect();
  }, [highlight, frame]);
}

/**
 * A card moves while it is up: its text rises into place over its first half second, then drifts
 * slowly larger, and a line along its foot fills with the scene's time (a still card reads as a
 * frozen video).
 */
function cardMotion(frame: ScreenFrame): { style: CSSProperties; progress: number } {
  const rise = Math.min(1, frame.sceneFrame / 15);
  const eased = 1 - (1 - rise) ** 3;
  const progress = frame.sceneFrames > 0 ? frame.sceneFrame / frame.sceneFrames : 1;
  return { style: { transform: `translateY(${((1 - eased) * 28).toFixed(2)}px) scale(${(1 + 0.035 * progress).toFixed(4)})`, opacity: (0.25 + 0.75 * eased).toFixed(3) }, progress };
}

function Card({ frame, children }: { frame: ScreenFrame; children: ReactNode }) {
  const { style, progress } = cardMotion(frame);
  return (
    <div className="screen-card-box">
      <div className="screen-card-move" style={style}>
        {children}
      </div>
      <span className="screen-card-line" style={{ width: `${(progress * 100).toFixed(2)}%` }} />
    </div>
  );
}

export function Screen({ frame }: { frame: ScreenFrame }) {
  const t = useT();
  const lang = useApp((s) => s.lang);
  useHighlightRule(frame.scene === 'body' ? frame.highlight : null, frame.sceneFrame);
  const ch = frame.chapter ? CHAPTERS[frame.chapter - 1] : undefined;
  const facts = ch ? factIdsOf(ch) : [];
  return (
    <div className="screen" style={{ '--screen-band-h': `${CAPTION_BAND_PX}px` } as CSSProperties} data-testid="screen" data-scene={frame.scene} data-frame={frame.frame} data-highlight={frame.highlight ?? ''} lang={lang}>
      {frame.scene === 'title' ? (
        <Card frame={frame}>
          <TitleCard lang={lang} />
        </Card>
      ) : null}
      {frame.scene === 'card' && frame.chapter ? (
        <Card frame={frame}>
          <ChapterCard n={frame.chapter} lang={lang} />
        </Card>
      ) : null}
      {frame.scene === 'end' ? (
        <Card frame={frame}>
          <EndCard lang={lang} />
        </Card>
      ) : null}
      {frame.scene === 'body' && ch ? (
        <>
          <header className="screen-top">
            <span className="screen-title">
              {/* The card's name all through the chapter: a header that changed at the reveal named one chapter two ways. */}
              <b>{frame.chapter}</b> {titleOnScreen(frame.chapter!, lang)}
            </span>
            <span className="screen-evidence">{facts.length ? `${t('screenEvidenceFacts', { ids: facts.join(', ') })} · ` : ''}{t('screenEvidenceModel')}</span>
          </header>
          <div className={`screen-main${frame.beat ? ' with-predict' : ''}`}>
            <div className="screen-picture-box">
              <ScreenPicture />
            </div>
            {frame.beat && ch.checkpoint ? <PredictPanel ch={ch} beat={frame.beat} lang={lang} /> : null}
          </div>
          <div className="screen-band" aria-live="polite">{frame.cue ? <Caption cue={frame.cue} frame={frame.cue.elapsed} /> : null}</div>
        </>
      ) : null}
    </div>
  );
}

