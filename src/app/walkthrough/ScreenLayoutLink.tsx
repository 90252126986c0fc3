/**
 * Presenter mode's way into the stage layout (`?screen`, src/app/screen/LiveScreen.tsx) at the
 * current chapter. A link, so it can also open in a window on the projector; a plain click switches
 * this page without reloading it (the runs stay computed).
 */
import { useT } from '../i18n/i18n.ts';
import { useApp, useAppStore } from '../state/store.ts';
import { serializeUrl } from '../state/url.ts';
import { presenterFragment } from '../state/roomKey.ts';

export function ScreenLayoutLink() {
  const store = useAppStore();
  const t = useT();
  // In a room, the presenter's key (the fragment) goes with it, so the layout on the projector shows the room's answers.
  const href = useApp((s) => serializeUrl({ ...s, screen: 'live' }) + presenterFragment(s.room));
  return (
    <a
      className="walk-screen-link"
      href={href}
      title={t('screenLayoutHint')}
      data-testid="walk-screen-layout"
      onClick={(e) => {
        if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        // The URL sync makes the layout's change a history entry of its own.
        store.getState().set({ screen: 'live' });
      }}
    >
      {t('screenLayout')}
    </a>
  );
}
