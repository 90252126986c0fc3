import { describe, expect, it } from 'vitest';
import { presenterKeyOf, walkthroughKeyOf } from './keys.ts';

const key = (k: string, mods: Partial<{ ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = {}) => presenterKeyOf({ key: k, ctrlKey: false, metaKey: false, altKey: false, ...mods });

describe('a presenter\'s keys', () => {
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
  it('mean one thing in the walkthrough wherever focus is, but typed text and activated controls keep theirs', () => {
    const on = (k: string, tagName: string, extra: Record<string, unknown> = {}) =>
      walkthroughKeyOf({ key: k, ctrlKey: false, metaKey: false, altKey: false, target: { tagName, getAttribute: () => null, isContentEditable: false, ...extra } as unknown as EventTarget });
    // The timeline's slider: Page Down is next, not the time moving back.
    expect(on('PageDown', 'DIV', { getAttribute: (a: string) => (a === 'role' ? 'slider' : null) })).toBe('next');
    expect(on('PageUp', 'CANVAS')).toBe('prev');
    expect(on('ArrowRight', 'INPUT', { type: 'range' })).toBe('next');
    expect(on(' ', 'DIV')).toBe('next');
    expect(on(' ', 'BUTTON')).toBeNull();
    expect(on('PageDown', 'BUTTON')).toBe('next');
    expect(on('PageDown', 'INPUT', { type: 'text' })).toBeNull();
    expect(on('b', 'TEXTAREA')).toBeNull();
    expect(on('Enter', 'DIV')).toBeNull();
  });
  it('at a question, the forward keys reveal wherever focus is: an option or a button with focus is never chosen by them', () => {
    const at = (k: string, tagName: string, extra: Record<string, unknown> = {}, atQuestion = true) =>
      walkthroughKeyOf({ key: k, ctrlKey: false, metaKey: false, altKey: false, target: { tagName, getAttribute: () => null, isContentEditable: false, ...extra } as unknown as EventTarget }, atQuestion);
    for (const k of [' ', 'Enter', 'ArrowRight', 'PageDown']) {
      expect(at(k, 'INPUT', { type: 'radio' }), k).toBe('next');
      expect(at(k, 'BUTTON'), k).toBe('next');
      // Without a question waiting, Space and Enter stay with the control.
      if (k === ' ' || k === 'Enter') expect(at(k, 'INPUT', { type: 'radio' }, false), k).toBeNull();
    }
    expect(at('2', 'INPUT', { type: 'radio' })).toEqual({ option: 2 });
    expect(at(' ', 'INPUT', { type: 'text' })).toBeNull();
  });
  it('presenting, the one map holds wherever focus is: a button, a select, an option, a link; only typed text keeps its keys', () => {
    const pres = (k: string, tagName: string, extra: Record<string, unknown> = {}) =>
      walkthroughKeyOf({ key: k, ctrlKey: false, metaKey: false, altKey: false, target: { tagName, getAttribute: () => null, isContentEditable: false, ...extra } as unknown as EventTarget }, false, true);
    for (const k of [' ', 'Enter', 'ArrowRight', 'PageDown']) {
      for (const tag of ['BUTTON', 'SELECT', 'OPTION', 'A', 'SUMMARY']) expect(pres(k, tag), `${k} on ${tag}`).toBe('next');
      expect(pres(k, 'INPUT', { type: 'radio' })).toBe('next');
      expect(pres(k, 'INPUT', { type: 'text' })).toBeNull();
    }
    expect(pres('PageUp', 'SELECT')).toBe('prev');
    expect(pres('.', 'BUTTON')).toBe('blank');
    expect(pres('b', 'TEXTAREA')).toBeNull();
  });
});
