/**
 * Keeps the store and the URL in step: reads the URL at start-up and on back/forward (a notice
 * names what was ignored), writes it on every change — a new history entry for discrete changes, a
 * replaced one while the time scrubs or plays, so back/forward steps between situations, not frames.
 */
import { DEFAULT_STATE, type AppStore, type UrlState } from './store.ts';
import { parseUrl, serializeUrl } from './url.ts';

let applying = false;
let replaceOnce = false;

/** The next store change replaces the current history entry instead of adding one (automatic moves). */
export function replaceNextHistoryEntry(): void {
  replaceOnce = true;
}

/** Tells the person which parameters of the link were ignored (the text is the caller's: it is translated). */
type IgnoredNotice = (ignored: string[]) => string;

function applyFromLocation(store: AppStore, notice: IgnoredNotice): void {
  const { state, ignored } = parseUrl(window.location.search);
  applying = true;
  const patch: Partial<UrlState> = { ...DEFAULT_STATE, ...state, playing: false };
  store.getState().set(patch);
  applying = false;
  if (ignored.length > 0) store.getState().notify(notice(ignored));
}

export function startUrlSync(store: AppStore, notice: IgnoredNotice): () => void {
  applyFromLocation(store, notice);
  window.history.replaceState(null, '', serializeUrl(store.getState()) + window.location.hash);
  const onPop = () => applyFromLocation(store, notice);
  window.addEventListener('popstate', onPop);
  let timer = 0;
  const unsubscribe = store.subscribe((s, prev) => {
    if (applying) return;
    const next = serializeUrl(s);
    if (next === window.location.search) return;
    // Either clock moving (the incident's or a handoff's) replaces the entry; anything else adds one.
    const onlyTime = serializeUrl({ ...s, time: prev.time, handoff: prev.handoff }) === serializeUrl(prev);
    // Inside one walkthrough chapter its steps change the views: history steps between chapters.
    const sameChapter = s.chapter !== null && s.chapter === prev.chapter;
    if (replaceOnce) {
      replaceOnce = false;
      window.history.replaceState(null, '', next + window.location.hash);
    } else if (onlyTime || sameChapter) {
      // Scrubbing: replace, at most every 150 ms, so history is not flooded.
      window.clearTimeout(timer);
      timer = window.setTimeout(() => window.history.replaceState(null, '', serializeUrl(store.getState()) + window.location.hash), 150);
    } else {
      window.history.pushState(null, '', next + window.location.hash);
    }
  });
  return () => {
    window.removeEventListener('popstate', onPop);
    unsubscribe();
  };
}
