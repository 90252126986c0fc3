/**
 * Playback of the handoff clock, on the one frame clock: it advances the store's `handoff` by the
 * frame's real time × the handoff speed until the handoff's end, then stops. Nothing else moves it
 * while it plays; the incident's clock is not touched.
 */
import { everyFrame } from './clock.ts';
import type { AppStore } from './store.ts';

/** Each store's playing handoff (a page has one store; a test or a second instance its own). */
const stops = new WeakMap<AppStore, () => void>();

/** Plays the selected request's handoff (of `total` seconds) from where its clock is; from the start when at the end. */
export function playHandoff(store: AppStore, total: number, from?: number): void {
  stops.get(store)?.();
  const s = store.getState();
  const start = from ?? (s.handoff === null || s.handoff >= total ? 0 : s.handoff);
  store.setState({ handoff: start, handoffPlaying: true, handoffPlayAsked: false });
  const stop = everyFrame((_now, dt) => {
    const st = store.getState();
    if (!st.handoffPlaying || st.handoff === null) {
      stops.delete(store);
      return false;
    }
    const h = st.handoff + (dt / 1000) * st.handoffSpeed;
    if (h >= total) {
      store.setState({ handoff: total, handoffPlaying: false });
      stops.delete(store);
      return false;
    }
    store.setState({ handoff: h });
    return true;
  });
  stops.set(store, stop);
}

/**
 * Play pressed while the picture is prepared (its run or request still being computed): kept, and
 * played by the controls once they are ready; a second press takes it back.
 */
export function askHandoffPlay(store: AppStore): void {
  store.setState({ handoffPlayAsked: !store.getState().handoffPlayAsked });
}

export function pauseHandoff(store: AppStore): void {
  stops.get(store)?.();
  stops.delete(store);
  store.setState({ handoffPlaying: false });
}

/** Puts the handoff clock at `h` seconds, paused. */
export function seekHandoff(store: AppStore, h: number): void {
  pauseHandoff(store);
  store.setState({ handoff: Math.max(0, h) });
}
