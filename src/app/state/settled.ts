/**
 * The page says when it is at rest: `data-settled="true"` on the root element once nothing is
 * loading (runs, lazy views, text, fonts), nothing plays (the walkthrough's chapter, the incident's
 * clock, the handoff's) and the page has kept its scroll, its height and the place of the part the
 * walkthrough points at over several frames; `"false"` from the first change after. A test (or the
 * recorder, or a person's tool) waits for that state instead of guessing with timeouts: a picture
 * taken then is the picture a person sees once the page stops moving, on a fast machine or a loaded one.
 *
 * It watches on the one frame clock (state/clock.ts), only while the page is not settled: any change
 * to the document, a resize, a scroll, a pending load or an element that says it is busy
 * (`aria-busy="true"`, a walkthrough `data-status="running"`, `data-playing="true"`) starts it again.
 */
import { everyFrame } from './clock.ts';

/** Frames in a row with the same layout and nothing pending, before the page counts as settled. */
const STABLE_FRAMES = 5;
/**
 * After the last load ends, frame time that must pass too: React shows a suspended view's content no
 * sooner than 300 ms after its fallback appeared, so a lazy view that has arrived may still be due.
 */
const AFTER_LOAD_MS = 400;

let pending = 0;
/** performance.now() when the last pending load ended. */
let lastLoadEnded = -Infinity;
const wake = new Set<() => void>();

/** Counts `promise` as something the page is still loading until it settles (either way). */
export function trackPending<T>(promise: Promise<T>): Promise<T> {
  pending++;
  for (const f of wake) f();
  const done = () => {
    pending--;
    lastLoadEnded = performance.now();
    for (const f of wake) f();
  };
  promise.then(done, done);
  return promise;
}

/** Holds the page unsettled until the returned function is called (a start that waits for idle time). */
export function holdUnsettled(): () => void {
  let release: () => void = () => undefined;
  void trackPending(new Promise<void>((r) => (release = r)));
  return release;
}

/** What else the page is waiting for (the query client's runs in flight, say): a count, 0 when idle. */
export type BusyProbe = () => number;

/** Elements that declare work in progress. */
const BUSY_SELECTOR = '[aria-busy="true"], [data-status="running"], [data-playing="true"]';

/** The part the walkthrough points at, from its outline rule (Walkthrough.tsx), or null. */
function pointedRect(doc: Document): string {
  const id = doc.body?.dataset.walkHighlight;
  if (!id) return '';
  const rule = doc.getElementById('walk-highlight')?.textContent ?? '';
  const selector = rule.slice(0, rule.indexOf(' {')).trim();
  const el = selector ? doc.querySelector(selector) : null;
  // Pointed at but not on the page (its view replaced while its run computes): not settled.
  if (!el) return 'missing';
  const r = el.getBoundingClientRect();
  return `${Math.round(r.left)},${Math.round(r.top)},${Math.round(r.width)},${Math.round(r.height)}`;
}

/**
 * Starts the watch on `doc` (the page's document); returns its stop. `busy` adds what the DOM cannot
 * show (runs fetching in the query client).
 */
export function watchSettled(doc: Document, busy: BusyProbe): () => void {
  const root = doc.documentElement;
  const win = doc.defaultView!;
  let stable = 0;
  let last = '';
  let stopFrames: (() => void) | null = null;

  const signature = (): string | null => {
    if (pending > 0 || busy() > 0) return null;
    if (doc.fonts && doc.fonts.status !== 'loaded') return null;
    if (doc.querySelector(BUSY_SELECTOR)) return null;
    const pointed = pointedRect(doc);
    if (pointed === 'missing') return null;
    return `${Math.round(win.scrollX)},${Math.round(win.scrollY)},${root.scrollHeight},${root.scrollWidth},${win.innerWidth}x${win.innerHeight}|${pointed}`;
  };

  const frame = (time: number): boolean => {
    const now = signature();
    if (now === null || now !== last) {
      stable = 0;
      last = now ?? '';
      return true;
    }
    stable++;
    if (stable < STABLE_FRAMES || time - lastLoadEnded < AFTER_LOAD_MS) return true;
    root.dataset.settled = 'true';
    stopFrames = null;
    return false;
  };

  const unsettle = () => {
    if (root.dataset.settled !== 'false') root.dataset.settled = 'false';
    stable = 0;
    if (!stopFrames) stopFrames = everyFrame(frame);
  };
  wake.add(unsettle);

  const mutations = new MutationObserver((records) => {
    // Its own attribute is no change of the page.
    if (records.every((r) => r.type === 'attributes' && r.target === root && r.attributeName === 'data-settled')) return;
    unsettle();
  });
  mutations.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
  const resize = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(unsettle);
  resize?.observe(root);
  win.addEventListener('scroll', unsettle, { passive: true });
  win.addEventListener('resize', unsettle);
  doc.fonts?.addEventListener?.('loadingdone', unsettle);
  unsettle();
  return () => {
    wake.delete(unsettle);
    mutations.disconnect();
    resize?.disconnect();
    win.removeEventListener('scroll', unsettle);
    win.removeEventListener('resize', unsettle);
    doc.fonts?.removeEventListener?.('loadingdone', unsettle);
    stopFrames?.();
    delete root.dataset.settled;
  };
}

/** Wakes the watch from outside the DOM (a store change, a query that started or ended). */
export function unsettle(): void {
  for (const f of wake) f();
}
