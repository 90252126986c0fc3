import { describe, expect, it } from 'vitest';
import { createAppStore } from './store.ts';

describe('a store per instance', () => {
  it('keeps two instances apart (the page, a video driver, a test)', () => {
    const a = createAppStore();
    const b = createAppStore({ lang: 'fr' });
    a.getState().set({ time: 1234, chapter: 3 });
    expect(b.getState().time).toBe(0);
    expect(b.getState().chapter).toBeNull();
    expect(b.getState().lang).toBe('fr');
    expect(a.getState().lang).toBe('en');
  });

  it('hands the stage back to the incident\'s instant when its clock moves, and starts another chapter from its start', () => {
    const s = createAppStore({ handoff: 3, chapter: 2, beat: 4 });
    s.getState().set({ time: 10 });
    expect(s.getState().handoff).toBeNull();
    s.getState().set({ time: 10, handoff: 2 });
    s.getState().set({ time: 10 });
    expect(s.getState().handoff).toBe(2);
    expect(s.getState().beat).toBe(4);
    s.getState().set({ chapter: 3 });
    expect(s.getState().beat).toBeNull();
    s.getState().set({ chapter: 4, beat: 1 });
    expect(s.getState().beat).toBe(1);
  });
});
