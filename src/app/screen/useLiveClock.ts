/**
 * Clock time for the live screen, from the one frame clock (state/clock.ts): the timestamp of the
 * frame on which something began, and the current frame's timestamp while a movement lasts. No
 * timer of its own: when nothing moves, no task is registered and nothing re-renders.
 */
import { useEffect, useState } from 'react';
import { everyFrame, onNextFrame } from '../state/clock.ts';

/**
 * The frame timestamp at which `key` last changed (null until that frame has run), and the
 * milliseconds since, followed frame by frame for `durationMs`, then held at `durationMs`.
 */
export function useSinceChange(key: string | null, durationMs: number): { started: boolean; elapsedMs: number } {
  const [start, setStart] = useState<{ key: string; at: number } | null>(null);
  const [now, setNow] = useState(0);
  useEffect(() => {
    if (key === null) return;
    let live = true;
    onNextFrame(`live-since:${key}`, (at) => {
      if (!live) return;
      setStart({ key, at });
      setNow(at);
    });
    return () => {
      live = false;
    };
  }, [key]);
  const current = start !== null && start.key === key ? start : null;
  useEffect(() => {
    if (!current) return;
    return everyFrame((t) => {
      setNow(t);
      return t - current.at < durationMs;
    });
  }, [current, durationMs]);
  if (!current) return { started: false, elapsedMs: 0 };
  return { started: true, elapsedMs: Math.min(durationMs, Math.max(0, now - current.at)) };
}
