import { describe, expect, it } from 'vitest';
import { CHAPTERS } from './chapters/index.ts';
import type { Step } from './chapters/steps.ts';
import { checkpointIndex, revealSteps } from './timeline.ts';

describe('the answer\'s reveal', () => {
  it('plays the instant steps after a checkpoint and stops at the first caption, tween or wait', () => {
    const steps: Step[] = [
      { checkpoint: true },
      { seek: { fraction: 0.5 } },
      { set: { view: 'response' } },
      { highlight: 'inspector' },
      { caption: { en: 'a', fr: 'a' } },
      { highlight: 'timeline' },
    ];
    const r = revealSteps(steps, 1);
    expect(r.steps).toEqual(steps.slice(1, 4));
    expect(r.next).toBe(4);
    expect(revealSteps([{ checkpoint: true }, { tween: { to: { fraction: 1 }, ms: 100 } }], 1)).toEqual({ steps: [], next: 1 });
    expect(revealSteps([{ checkpoint: true }], 1)).toEqual({ steps: [], next: 1 });
  });

  it('shows the page the freed-page chapter\'s answer speaks of, and the cleared pages of the fixes chapter', () => {
    const at = (id: string) => {
      const ch = CHAPTERS.find((c) => c.id === id)!;
      return revealSteps(ch.steps, checkpointIndex(ch.steps) + 1).steps;
    };
    const stale = at('stale-pages');
    expect(stale.some((s) => 'set' in s && s.set.selectedPage)).toBe(true);
    expect(stale).toContainEqual({ highlight: 'inspector' });
    expect(at('fixes')).toContainEqual({ set: { switches: { clearPagesOnFree: true }, view: 'stage' } });
  });
});
