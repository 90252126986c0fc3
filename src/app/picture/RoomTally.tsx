/**
 * A workshop room's answers to one question, for the presenter's panel and the screen layout: how many
 * answered so far, and once the presenter reveals it, how the room split, each option's bar beside
 * its count, the right answer marked in words and a sign as well as its colour (theme tokens).
 */
import { useEffect, useRef } from 'react';
import { useT } from '../i18n/i18n.ts';
import './room.css';
import { revealedCounts } from '../state/room.ts';
import { useApp } from '../state/store.ts';

export interface RoomTallyProps {
  /** The room's key for the question (`ch:3`, `pre:0`). */
  question: string;
  /** The options' labels in the page's language. */
  options: readonly string[];
  /** The right option's index. */
  correct: number;
  /** Larger type for the screen layout. */
  big?: boolean;
  /** Hide the question's count line (a quiz shows one line for its three). */
  hideCount?: boolean;
  /** Brought into view (its scrolling box's, the window's) when the split shows: the presenter's panel, so the room's answer is on screen by keys alone. */
  bringIntoView?: boolean;
}

export function RoomTally({ question, options, correct, big, hideCount, bringIntoView }: RoomTallyProps) {
  const t = useT();
  const count = useApp((s) => s.roomView?.counts[question] ?? 0);
  const open = useApp((s) => s.roomView !== null && s.roomView.open !== null && (s.roomView.open === question || question.startsWith(`${s.roomView.open}:`)));
  // The store's own array (a selector that made a new one on every call would never settle).
  const revealed = useApp((s) => s.roomView?.revealed[question]);
  const dist = revealed ? revealedCounts({ revealed: { [question]: revealed } }, question, options.length) : null;
  const total = dist ? dist.reduce((a, b) => a + b, 0) : 0;
  const max = dist ? Math.max(1, ...dist) : 1;
  const bars = useRef<HTMLOListElement>(null);
  const shown = dist !== null;
  useEffect(() => {
    if (!shown || !bringIntoView) return;
    const bring = () => bars.current?.scrollIntoView?.({ block: 'nearest' });
    bring();
    // A window that changes size (the projector plugged in, presenter mode's zoom) keeps it there.
    window.addEventListener('resize', bring);
    return () => window.removeEventListener('resize', bring);
  }, [shown, bringIntoView]);
  return (
    <div className={`room-tally${big ? ' big' : ''}`} data-testid="room-tally" data-question={question} data-count={count} data-revealed={dist ? dist.join(',') : ''}>
      {hideCount ? null : (
        <p className="room-count" aria-live="polite" data-testid="room-count">
          <b>{t('roomAnswered', { n: String(count) })}</b> {dist ? null : open ? t('roomOpenNow') : t('roomClosedNow')}
        </p>
      )}
      {dist ? (
        <ol ref={bars} className="room-bars" aria-label={t('roomDistribution')} data-testid="room-distribution">
          {options.map((label, i) => {
            const n = dist[i] ?? 0;
            const right = i === correct;
            const share = total > 0 ? Math.round((n / total) * 100) : 0;
            return (
              <li key={i} className={right ? 'right' : undefined} data-testid="room-bar" data-count={n} data-right={right ? 'true' : 'false'}>
                <span className="room-bar-label">
                  {right ? <b>✓ {label} <span className="room-right-word">({t('roomRightAnswer')})</span></b> : label}
                </span>
                <span className="room-bar-track" aria-hidden="true">
                  <span className="room-bar-fill" style={{ width: `${(n / max) * 100}%` }} />
                </span>
                <span className="room-bar-n">{t('roomBarCount', { n: String(n), share: String(share) })}</span>
              </li>
            );
          })}
        </ol>
      ) : null}
    </div>
  );
}
