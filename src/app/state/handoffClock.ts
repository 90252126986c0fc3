/**
 * Playback of the handoff clock, on the one frame clock: it advances the store's `handoff` by the
 * frame's real time × the handoff speed until the handoff's end, then stops. Nothing else moves it
 * while it plays; the incident's clock is not touched.
 */
import { everyFrame } from './clock.ts';
import { useApp } from './store.ts';

let stop: (() => void) | null = null;

/** Plays the selected request's handoff (of `total` seconds) from where its clock is; from the start when at the end. */
export function playHandoff(total: number, from?: number): void {
  stop?.();
  const s = useApp.getState();
  const start = from ?? (s.handoff === null || s.handoff >= total ? 0 : s.handoff);
  useApp.setState({ handoff: start, handoffPlaying: true });
  stop = everyFrame((_now, dt) => {
    const st = useApp.getState();
    if (!st.handoffPlaying || st.handoff === null) {
      stop = null;
      return false;
    }
    const h = st.handoff + (dt / 1000) * st.handoffSpeed;
    if (h >= total) {
      useApp.setState({ handoff: total, handoffPlaying: false });
      stop = null;
      return false;
    }
    useApp.setState({ handoff: h });
    return true;
  });
}

export function pauseHandoff(): void {
  stop?.();
  stop = null;
  useApp.setState({ handoffPlaying: false });
}

/** Puts the handoff clock at `h` seconds, paused. */
export function seekHandoff(h: number): void {
  pauseHandoff();
  useApp.setState({ handoff: Math.max(0, h) });
}
