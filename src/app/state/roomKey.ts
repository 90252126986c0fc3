/**
 * The presenter key off the wall: a room's presenter opens the page with `#key=…` in its fragment (never
 * in the query string). The page reads it once, keeps it for the tab (sessionStorage, per room, so a
 * reload still presents) and takes it out of the address bar at once (history.replaceState, no new
 * entry), so that a window shown on a projector never shows it. The links the presenter copies from
 * the page (the screen layout's) carry it again (`presenterFragment`).
 */
import { keyFromHash } from './room.ts';

const stored = (room: string) => `stale-pages:room-key:${room}`;

/** Reads the key from the address's fragment (or the tab's, once taken), removes it from the address, and returns it as a fragment (`#key=…`, or ''). */
export function takeRoomKey(room: string): string {
  const params = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  const fromAddress = keyFromHash(window.location.hash);
  if (params.has('key')) {
    params.delete('key');
    const rest = params.toString();
    window.history.replaceState(window.history.state, '', `${window.location.pathname}${window.location.search}${rest ? `#${rest}` : ''}`);
  }
  let key = fromAddress;
  try {
    if (key) window.sessionStorage.setItem(stored(room), key);
    else key = window.sessionStorage.getItem(stored(room));
  } catch {
    // Storage refused (a private window's settings): the key lives as long as the page.
  }
  if (key) kept = { room, key };
  return key ? `#key=${key}` : '';
}

let kept: { room: string; key: string } | null = null;

/** The fragment a link the presenter copies carries in `room` (`#key=…`), or '' for anyone else. */
export function presenterFragment(room: string | null): string {
  return room !== null && kept !== null && kept.room === room ? `#key=${kept.key}` : '';
}
