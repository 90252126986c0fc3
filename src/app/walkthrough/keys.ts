/**
 * A presenter's keys, one map, one meaning wherever focus is: in the walkthrough, in presenter mode and
 * on the screen layout, → / Page Down / Space / Enter go forward, ← / Page Up go back (a clicker sends
 * Page Down and Page Up; on the page's timeline slider those keys would otherwise move the time), and a
 * clicker's "." or B blanks the screen, as reveal.js maps them. Presenting, only a field that takes
 * typed text keeps them; a reader keeps Space and Enter for the control with focus. Outside the
 * walkthrough nothing here listens, so the slider keeps its own keys.
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
  if (tag === 'TEXTAREA' || (el as HTMLElement).isContentEditable) return true;
  return tag === 'INPUT' && TEXT_INPUTS.has((el as HTMLInputElement).type);
}

/** Space and Enter activate it, the arrows and Page keys change its value: a reader's keys stay with it. */
function ownsKeys(el: Element): boolean {
  const tag = el.tagName;
  if (tag === 'BUTTON' || tag === 'SUMMARY' || tag === 'A' || tag === 'SELECT' || tag === 'OPTION') return true;
  const role = el.getAttribute('role');
  if (role === 'button' || role === 'checkbox' || role === 'radio' || role === 'switch' || role === 'option') return true;
  return tag === 'INPUT' && ['checkbox', 'radio', 'button', 'submit'].includes((el as HTMLInputElement).type);
}

/**
 * The presenter's meaning of a key event in the walkthrough, or null when it belongs to the element
 * with focus. Read at the document, in the capture phase, before the element's own handler.
 *
 * Presenting (presenter mode, a room's presenter, the screen layout: `presenting`), the one key map
 * holds wherever focus is, a button, a select or an option included: a clicker's Space or Page Down
 * on the "Presenter mode" button, the language button or the stage's request picker goes forward and
 * never activates or changes that control (answering is 1–4 or a click). Only a field that takes
 * typed text keeps its keys. A reader who is not presenting keeps Space and Enter for the control
 * with focus, and a select its keys, except at a question (`atQuestion`), where the forward keys are
 * the walkthrough's wherever focus is.
 */
export function walkthroughKeyOf(e: KeyLike & { target: EventTarget | null }, atQuestion = false, presenting = false): PresenterKey | null {
  const k = presenterKeyOf(e);
  if (k === null) return null;
  const el = e.target as Element | null;
  if (!el || !('tagName' in el)) return k;
  if (takesText(el)) return null;
  if (presenting) return k;
  const select = el.tagName === 'SELECT' || el.tagName === 'OPTION';
  if (atQuestion && k === 'next') return k;
  if (select) return null;
  if ((e.key === ' ' || e.key === 'Enter') && ownsKeys(el)) return null;
  // Enter is the screen layout's; in the page it belongs to what has focus.
  if (e.key === 'Enter') return null;
  return k;
}
