/**
 * Keeps the store and the URL in step, and is the only writer of the page's history. The URL the
 * page opened on is parsed once (`openingUrl`, which the entry and the shell read too) and applied
 * when the sync first starts; back/forward reads the URL it lands on. Every change is written: a new
 * history entry for discrete changes and a change of layout (`screen`), a replaced one while the
 * time scrubs or plays, so back/forward steps between situations, not frames. A notice names what a
 * link had that was ignored.
 */
import { DEFAULT_STATE, type AppStore, type UrlState } from './store.ts';
import { parseUrl, serializeUrl, serializeUrlChecked, type IgnoredParam, type ParsedUrl } from './url.ts';
import { holdUnsettled } from './settled.ts';

/**
 * Per store: applying a URL (its change is not written back), and the next change to replace the
 * entry. The opening URL and whether it was applied are the page's (one window, one location).
 */
const syncOf = new WeakMap<AppStore, { applying: boolean; replaceOnce: boolean }>();
const sync = (store: AppStore) => {
  let s = syncOf.get(store);
  if (!s) syncOf.set(store, (s = { applying: false, replaceOnce: false }));
  return s;
};
let opening: ParsedUrl | null = null;
let opened = false;
let markOpened: () => void = () => {};
const openedOnce = new Promise<void>((done) => (markOpened = done));

/**
 * Resolves once the opening URL is in the store (the page's first mount). What writes to the store
 * from outside the page's own mount (a workshop room's presenter beat) starts after it: applied later,
 * the opening URL (no chapter, for a phone joining by `?room=`) would undo the room's chapter.
 */
export const openingApplied = (): Promise<void> => openedOnce;

/** The URL the page opened on, parsed once. */
export function openingUrl(): ParsedUrl {
  opening ??= parseUrl(window.location.search);
  return opening;
}

/** The next store change replaces the current history entry instead of adding one (automatic moves). */
export function replaceNextHistoryEntry(store: AppStore): void {
  sync(store).replaceOnce = true;
}

/** Tells the person which parameters of the link were ignored (the words are the catalogue's: i18n/linkNotice.ts). */
export type IgnoredNotice = (ignored: readonly IgnoredParam[]) => string;

function apply(store: AppStore, { state, ignored }: ParsedUrl, notice: IgnoredNotice): void {
  sync(store).applying = true;
  const patch: Partial<UrlState> = { ...DEFAULT_STATE, ...state, playing: false };
  store.getState().set(patch);
  sync(store).applying = false;
  if (ignored.length > 0) store.getState().notify(notice(ignored));
}

/**
 * Starts following the store (the page and the screen layout each while they are up). The first
 * start applies the opening URL; a later one finds the store already holding what the URL says.
 */
export function startUrlSync(store: AppStore, notice: IgnoredNotice): () => void {
  if (!opened) {
    opened = true;
    apply(store, openingUrl(), notice);
    markOpened();
  }
  // State too long for a link is kept out of it (the codec's cap), and said once per change of what is left out.
  let leftOut = '';
  const written = (s: Parameters<typeof serializeUrlChecked>[0]): string => {
    const { search, left } = serializeUrlChecked(s);
    const names = left.map((x) => (x.kind === 'not-written' ? x.name : '')).join(',');
    if (names !== leftOut) {
      leftOut = names;
      if (left.length > 0) store.getState().notify(notice(left));
    }
    return search;
  };
  window.history.replaceState(null, '', written(store.getState()) + window.location.hash);
  const onPop = () => apply(store, parseUrl(window.location.search), notice);
  window.addEventListener('popstate', onPop);
  let timer = 0;
  let pendingWrite: (() => void) | null = null;
  const addressWritten = () => {
    pendingWrite?.();
    pendingWrite = null;
  };
  const unsubscribe = store.subscribe((s, prev) => {
    const own = sync(store);
    if (own.applying) return;
    const next = written(s);
    if (next === window.location.search) return;
    // Either clock moving (the incident's or a handoff's) replaces the entry; anything else adds one.
    const onlyTime = serializeUrl({ ...s, time: prev.time, handoff: prev.handoff }) === serializeUrl(prev);
    // Inside one walkthrough chapter its steps change the views: history steps between chapters.
    const sameChapter = s.chapter !== null && s.chapter === prev.chapter;
    // Entering or leaving the screen layout is a step back can undo, whatever else holds.
    const layout = s.screen !== prev.screen;
    window.clearTimeout(timer);
    if (own.replaceOnce && !layout) {
      addressWritten();
      own.replaceOnce = false;
      window.history.replaceState(null, '', next + window.location.hash);
    } else if ((onlyTime || sameChapter) && !layout) {
      // Scrubbing: replace, at most every 150 ms, so history is not flooded.
      // The page is not at rest until the address says where it is (state/settled.ts).
      pendingWrite ??= holdUnsettled();
      timer = window.setTimeout(() => {
        window.history.replaceState(null, '', serializeUrl(store.getState()) + window.location.hash);
        addressWritten();
      }, 150);
    } else {
      addressWritten();
      window.history.pushState(null, '', next + window.location.hash);
    }
  });
  return () => {
    window.removeEventListener('popstate', onPop);
    window.clearTimeout(timer);
    addressWritten();
    unsubscribe();
  };
}
