/**
 * Keeps the store and the URL in step: reads the URL at start-up and on back/forward (notices name
 * what was ignored), writes it on every change — a new history entry for discrete changes, a replaced
 * one while the time scrubs or plays, so back/forward steps between situations, not frames.
 */
import { translate } from './i18n.ts';
import { DEFAULT_STATE, useApp, type AppState } from './state/store.ts';
import { parseUrlState, serializeUrlState } from './state/urlState.ts';

let applying = false;
let replaceOnce = false;

/** The next store change replaces the current history entry instead of adding one (automatic moves). */
export function replaceNextHistoryEntry(): void {
  replaceOnce = true;
}

function applyFromLocation(): void {
  const { state, ignored } = parseUrlState(window.location.search);
  applying = true;
  const current = useApp.getState();
  const patch: Partial<AppState> = { ...DEFAULT_STATE, notices: current.notices, ...state, playing: false };
  useApp.getState().set(patch);
  applying = false;
  if (ignored.length > 0) useApp.getState().notify(translate(useApp.getState().lang, 'ignoredInLink', { list: ignored.join('; ') }));
}

/** Diagnostic flags that carry no state but must survive the rewrite of the query. */
function withFlags(search: string): string {
  return new URLSearchParams(window.location.search).has('bench') ? `${search}&bench` : search;
}

export function startUrlSync(): () => void {
  applyFromLocation();
  window.history.replaceState(null, '', withFlags(serializeUrlState(useApp.getState())) + window.location.hash);
  const onPop = () => applyFromLocation();
  window.addEventListener('popstate', onPop);
  let timer = 0;
  const unsubscribe = useApp.subscribe((s, prev) => {
    if (applying) return;
    const next = withFlags(serializeUrlState(s));
    if (next === window.location.search) return;
    const onlyTime = serializeUrlState({ ...s, time: prev.time }) === serializeUrlState(prev);
    // Inside one walkthrough chapter its steps change the views: history steps between chapters.
    const sameChapter = s.chapter !== null && s.chapter === prev.chapter;
    if (replaceOnce) {
      replaceOnce = false;
      window.history.replaceState(null, '', next + window.location.hash);
    } else if (onlyTime || sameChapter) {
      // Scrubbing: replace, at most every 150 ms, so history is not flooded.
      window.clearTimeout(timer);
      timer = window.setTimeout(() => window.history.replaceState(null, '', withFlags(serializeUrlState(useApp.getState())) + window.location.hash), 150);
    } else {
      window.history.pushState(null, '', next + window.location.hash);
    }
  });
  return () => {
    window.removeEventListener('popstate', onPop);
    unsubscribe();
  };
}
