/**
 * A presenter's keys, one meaning wherever focus is: in the walkthrough, in presenter mode and on the
 * screen layout, → / Page Down / Space go forward and ← / Page Up go back (a clicker sends Page Down
 * and Page Up; on the page's timeline slider those keys would otherwise move the time). Only a field
 * that takes typed text keeps them, and Space stays with a control it activates (a button, a box).
 * Outside the walkthrough nothing here listens, so the slider keeps its own keys.
 */

/** What a key asks for, or null when the presenter does not use it. */
export type PresenterKey = 'next' | 'prev' | 'blank' | 'leave' | 'fullscreen' | 'notes' | { option: number };

type KeyLike = Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey'>;

export function presenterKeyOf(e: KeyLike): PresenterKey | null {
  if (e.ctrlKey || e.metaKey || e.altKey) return null;
  const k = e.key;
  if (k === 'ArrowRight' || k === 'PageDown' || k === ' ' || k === 'Enter') return 'next';
  if (k === 'ArrowLeft' || k === 'PageUp') return 'prev';
  if (k === 'b' || k === 'B' || k === '.') return 'blank';
  if (k === 'Escape') return 'leave';
  if (k === 'f' || k === 'F') return 'fullscreen';
  if (k === 'n' || k === 'N') return 'notes';
  if (/^[1-9]$/.test(k)) return { option: Number(k) };
  return null;
}

const TEXT_INPUTS = new Set(['text', 'search', 'email', 'url', 'tel', 'password', 'number']);

/** The element takes typed text: every key stays with it. */
function takesText(el: Element): boolean {
  const tag = el.tagName;
  if (tag === 'TEXTAREA' || tag === 'SELECT' || (el as HTMLElement).isContentEditable) return true;
  return tag === 'INPUT' && TEXT_INPUTS.has((el as HTMLInputElement).type);
}

/** Space and Enter activate it: they stay with it. */
function activatedBySpace(el: Element): boolean {
  const tag = el.tagName;
  if (tag === 'BUTTON' || tag === 'SUMMARY' || tag === 'A') return true;
  const role = el.getAttribute('role');
  if (role === 'button' || role === 'checkbox' || role === 'radio' || role === 'switch') return true;
  return tag === 'INPUT' && ['checkbox', 'radio', 'button', 'submit'].includes((el as HTMLInputElement).type);
}

/**
 * The presenter's meaning of a key event in the walkthrough, or null when it belongs to the element
 * with focus. Read in the capture phase, before the element's own handler. While the chapter's
 * question waits (`atQuestion`), the forward keys (→, Page Down, Space, Enter) are the presenter's
 * wherever focus is: a clicker's Space on a focused option must reveal, never choose that option
 * (answering is 1–4 or a click).
 */
export function walkthroughKeyOf(e: KeyLike & { target: EventTarget | null }, atQuestion = false): PresenterKey | null {
  const k = presenterKeyOf(e);
  if (k === null) return null;
  const el = e.target as Element | null;
  if (!el || !('tagName' in el)) return k;
  if (takesText(el)) return null;
  if (atQuestion && k === 'next') return k;
  if ((e.key === ' ' || e.key === 'Enter') && activatedBySpace(el)) return null;
  // Enter is the screen layout's; in the page it belongs to what has focus.
  if (e.key === 'Enter') return null;
  return k;
}
