/**
 * The Explore drawer: the defects and fixes, the comparison, the outcome counters, the assumptions,
 * the matrix and the exports, one key (E) or one button away from the first screen. A non-modal
 * dialog in the page's flow (the page stays usable around it): opening moves focus into it, Tab
 * stays inside while it is open, Escape closes it and focus returns to where it was. While a
 * walkthrough step points at something inside it (the switches, the counters), it is shown too.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useT } from '../../i18n/i18n.ts';
import { useApp } from '../../state/store.ts';
import { highlightSelector, type HighlightId } from '../shared/highlight.ts';

export const EXPLORE_ID = 'explore-drawer';
export const EXPLORE_KEY = 'e';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])';

/** The E shortcut, anywhere but in a field; toggles the drawer. */
export function useExploreKey(toggle: () => void): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() !== EXPLORE_KEY || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
      const el = e.target as HTMLElement | null;
      if (el && (el.isContentEditable || /^(INPUT|SELECT|TEXTAREA)$/.test(el.tagName))) return;
      e.preventDefault();
      toggle();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [toggle]);
}

export function ExploreButton({ open, onToggle }: { open: boolean; onToggle: () => void }) {
  const t = useT();
  return (
    <button type="button" aria-expanded={open} aria-controls={EXPLORE_ID} aria-keyshortcuts={EXPLORE_KEY.toUpperCase()} onClick={onToggle} data-testid="explore-open">
      {t('exploreOpen')} <kbd>{EXPLORE_KEY.toUpperCase()}</kbd>
    </button>
  );
}

/** `preload`: mount the contents now although the drawer is closed (the first screen is done). */
export function ExploreDrawer({ open, onClose, preload, children }: { open: boolean; onClose: () => void; preload: boolean; children: ReactNode }) {
  const t = useT();
  const chapter = useApp((s) => s.chapter);
  const box = useRef<HTMLDivElement>(null);
  const returnTo = useRef<HTMLElement | null>(null);
  // The walkthrough names what it points at on <body data-walk-highlight>; shown while that is in here.
  const [pointedAt, setPointedAt] = useState(false);
  useEffect(() => {
    if (chapter === null) {
      setPointedAt(false);
      return;
    }
    const check = () => {
      const id = document.body.dataset.walkHighlight as HighlightId | undefined;
      const el = id ? document.querySelector(highlightSelector(id)) : null;
      setPointedAt(!!el && !!box.current?.contains(el));
    };
    check();
    const watch = new MutationObserver(check);
    watch.observe(document.body, { attributes: true, attributeFilter: ['data-walk-highlight'] });
    // The contents may arrive after the highlight was set: look again when they do.
    if (box.current) watch.observe(box.current, { childList: true, subtree: true });
    return () => watch.disconnect();
  }, [chapter]);
  const shown = open || pointedAt;
  // The contents (a lazy module) are mounted the first time the drawer opens or a walkthrough runs
  // (its steps point at the switches and counters in here), or when the shell says the first
  // screen is done (`preload`), so that opening it later is instant; they stay mounted after.
  const [mounted, setMounted] = useState(false);
  if (!mounted && (open || chapter !== null || preload)) setMounted(true);

  useEffect(() => {
    if (!open) return;
    returnTo.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    box.current?.querySelector<HTMLElement>('h2')?.focus();
    return () => {
      const back = returnTo.current;
      // Focus goes back where it was, unless the person has moved it elsewhere meanwhile.
      if (back && back.isConnected && (document.activeElement === document.body || box.current?.contains(document.activeElement))) back.focus();
    };
  }, [open]);

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (!open) return;
    if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onClose();
      return;
    }
    if (e.key !== 'Tab') return;
    const items = [...(box.current?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? [])].filter((el) => el.offsetParent !== null || el === document.activeElement);
    if (items.length === 0) return;
    const first = items[0]!;
    const last = items[items.length - 1]!;
    if (e.shiftKey && (document.activeElement === first || !items.includes(document.activeElement as HTMLElement))) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };
  return (
    <div ref={box} id={EXPLORE_ID} className="explore-drawer" role="dialog" aria-modal="false" aria-labelledby={`${EXPLORE_ID}-h`} hidden={!shown} onKeyDown={onKeyDown} data-testid="explore">
      <div className="explore-head">
        <h2 id={`${EXPLORE_ID}-h`} tabIndex={-1}>
          {t('exploreTitle')}
        </h2>
        <p className="hint">{t('exploreHint')}</p>
        {open ? (
          <button type="button" onClick={onClose} data-testid="explore-close">
            {t('exploreClose')}
          </button>
        ) : null}
      </div>
      <div className="explore-body">{mounted ? children : null}</div>
    </div>
  );
}
