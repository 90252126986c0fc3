import { useT } from '../i18n/i18n.ts';
import { useApp } from '../state/store.ts';

/** Opens the walkthrough at chapter 1, or closes it. */
export function WalkthroughButton() {
  const t = useT();
  const chapter = useApp((s) => s.chapter);
  const set = useApp((s) => s.set);
  return (
    <button type="button" aria-pressed={chapter !== null} onClick={() => set({ chapter: chapter === null ? 1 : null })} data-testid="walkthrough-toggle">
      {t('walkOpen')}
    </button>
  );
}

