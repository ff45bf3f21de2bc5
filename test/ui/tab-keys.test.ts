import { describe, expect, it } from 'vitest';
import { ariaChord, BROWSER_TAB_KEYS, chordLabel, DESKTOP_TAB_KEYS, tabCommandOf, type PressedKey } from '../../shared/workbench/tab-keys';

const key = (key: string, code: string, held: Partial<Pick<PressedKey, 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>> = {}): PressedKey => ({
  key,
  code,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...held,
});

describe("the open requests' keys", () => {
  it('in the browser workbench: the Alt forms, each exactly, none of the Ctrl forms a browser keeps', () => {
    const browser = (pressed: PressedKey, mac = false) => tabCommandOf(pressed, BROWSER_TAB_KEYS, mac);
    expect(browser(key('t', 'KeyT', { altKey: true }))).toBe('new');
    expect(browser(key('T', 'KeyT', { altKey: true, shiftKey: true }))).toBe('reopen');
    expect(browser(key('w', 'KeyW', { altKey: true }))).toBe('close');
    expect(browser(key('ArrowRight', 'ArrowRight', { altKey: true }))).toBe('next');
    expect(browser(key('ArrowLeft', 'ArrowLeft', { altKey: true }))).toBe('previous');
    expect(browser(key('t', 'KeyT', { ctrlKey: true }))).toBeUndefined();
    expect(browser(key('t', 'KeyT', { altKey: true, ctrlKey: true }))).toBeUndefined();
    expect(browser(key('ArrowLeft', 'ArrowLeft'))).toBeUndefined();
    // On a Mac, Option+T types †: the key's place says which it is.
    expect(browser(key('†', 'KeyT', { altKey: true }), true)).toBe('new');
  });

  it('in the desktop app: Ctrl (⌘ on a Mac) for T and W, Control for Tab; a letter by what it types, so the layout decides', () => {
    const desktop = (pressed: PressedKey, mac = false) => tabCommandOf(pressed, DESKTOP_TAB_KEYS, mac);
    expect(desktop(key('w', 'KeyW', { ctrlKey: true }))).toBe('close');
    expect(desktop(key('w', 'KeyW', { metaKey: true }), true)).toBe('close');
    expect(desktop(key('w', 'KeyW', { ctrlKey: true }), true)).toBeUndefined();
    expect(desktop(key('Tab', 'Tab', { ctrlKey: true }), true)).toBe('next');
    expect(desktop(key('Tab', 'Tab', { ctrlKey: true, shiftKey: true }))).toBe('previous');
    // AZERTY: the key where QWERTY has W types z, and Ctrl+Z is undo, not a closed request.
    expect(desktop(key('z', 'KeyW', { ctrlKey: true }))).toBeUndefined();
    expect(desktop(key('w', 'KeyZ', { ctrlKey: true }))).toBe('close');
  });

  it('are written as each platform writes them, and told to assistive technology', () => {
    expect(chordLabel(BROWSER_TAB_KEYS.reopen, false)).toBe('Alt+Shift+T');
    expect(chordLabel(BROWSER_TAB_KEYS.next, false)).toBe('Alt+→');
    expect(chordLabel(DESKTOP_TAB_KEYS.close, true)).toBe('⌘W');
    expect(chordLabel(DESKTOP_TAB_KEYS.previous, true)).toBe('⌃⇧Tab');
    expect(ariaChord(DESKTOP_TAB_KEYS.reopen, false)).toBe('Control+Shift+T');
    expect(ariaChord(DESKTOP_TAB_KEYS.close, true)).toBe('Meta+W');
    expect(ariaChord(BROWSER_TAB_KEYS.previous, false)).toBe('Alt+ArrowLeft');
  });
});
