import { describe, expect, it } from 'vitest';
import { liveKeyOf } from './LiveScreen.tsx';

const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = {}) => liveKeyOf({ key: k, ctrlKey: false, metaKey: false, altKey: false, ...mods });

describe('the live screen reads a clicker', () => {
  it('maps the keys clickers send', () => {
    for (const k of ['ArrowRight', 'PageDown', ' ', 'Enter']) expect(key(k)).toBe('next');
    for (const k of ['ArrowLeft', 'PageUp']) expect(key(k)).toBe('prev');
    for (const k of ['b', 'B', '.']) expect(key(k)).toBe('blank');
    expect(key('Escape')).toBe('leave');
    expect(key('3')).toEqual({ option: 3 });
  });
  it('leaves keys with modifiers and other keys to the browser', () => {
    expect(key('ArrowRight', { altKey: true })).toBeNull();
    expect(key('r', { ctrlKey: true })).toBeNull();
    expect(key('0')).toBeNull();
    expect(key('x')).toBeNull();
  });
});
