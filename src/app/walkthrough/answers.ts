/**
 * The walkthrough's answers, kept for the tab's session (sessionStorage, keyed by the page's path),
 * so that a reload shows each question as it was left: the option chosen, revealed. The URL keeps the
 * situation, not the room's answers (a link shared mid-talk must not answer for its reader).
 * Storage refused (a private window, a sandbox) keeps them for the page's life only.
 */
import { CHAPTERS } from './chapters/index.ts';

/** A chosen option id, or null when revealed without an answer. */
export type Answer = string | null;

const keyOf = (path: string) => `stale-pages.answers:${path}`;

/**
 * Reads answers from their stored text: only chapters that ask a question, with one of its options
 * (or none); anything else (an older page's, a hand-edited value) is dropped, never shown.
 */
export function parseAnswers(text: string | null): Map<number, Answer> {
  const out = new Map<number, Answer>();
  if (!text) return out;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return out;
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return out;
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    const n = Number(k);
    const cp = Number.isInteger(n) ? CHAPTERS[n - 1]?.checkpoint : undefined;
    if (!cp) continue;
    if (v === null || (typeof v === 'string' && cp.options.some((o) => o.id === v))) out.set(n, v);
  }
  return out;
}

export function serializeAnswers(answers: ReadonlyMap<number, Answer>): string {
  return JSON.stringify(Object.fromEntries([...answers].sort(([a], [b]) => a - b)));
}

const storage = (): Storage | null => {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
};

/** The answers this tab gave on this page. */
export function loadAnswers(path = window.location.pathname): Map<number, Answer> {
  try {
    return parseAnswers(storage()?.getItem(keyOf(path)) ?? null);
  } catch {
    return new Map();
  }
}

export function saveAnswers(answers: ReadonlyMap<number, Answer>, path = window.location.pathname): void {
  try {
    storage()?.setItem(keyOf(path), serializeAnswers(answers));
  } catch {
    // Storage full or refused: the answers last as long as the page.
  }
}
