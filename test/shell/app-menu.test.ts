import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { KeyboardInputEvent, MenuItemConstructorOptions } from 'electron';
import { installAppMenu } from '../../electron/main/app-menu';
import { BROWSER_TAB_KEYS, DESKTOP_TAB_KEYS, tabCommandOf, type PressedKey } from '../../shared/workbench/tab-keys';

/** Electron's Menu substituted: the template the app builds its menu from, as the app installs it. */
const installed = vi.hoisted(() => ({ template: [] as MenuItemConstructorOptions[] }));
vi.mock('electron', () => ({
  Menu: {
    buildFromTemplate: (template: MenuItemConstructorOptions[]) => ({ template }),
    setApplicationMenu: (menu: { template: MenuItemConstructorOptions[] }) => (installed.template = menu.template),
  },
}));

/** Every item of the installed menu, submenus included. */
function items(template = installed.template): MenuItemConstructorOptions[] {
  return template.flatMap((item) => [item, ...(Array.isArray(item.submenu) ? items(item.submenu) : [])]);
}
const itemLabelled = (label: string) => items().find((item) => item.label === label)!;

/** The window a menu item is chosen in: its page receives the key presses the item sends. */
function window() {
  const pressed: KeyboardInputEvent[] = [];
  return { pressed, close: vi.fn(), webContents: { sendInputEvent: (event: KeyboardInputEvent) => pressed.push(event) } };
}
const choose = (label: string, target: ReturnType<typeof window>, triggeredByAccelerator: boolean) =>
  (itemLabelled(label).click as (...args: unknown[]) => void)({}, target, { triggeredByAccelerator });

/** A keyDown the menu sends, as the page's keydown event has it (Electron's key code is the key's upper-case letter). */
const asPageEvent = ({ keyCode, modifiers = [] }: KeyboardInputEvent): PressedKey => ({
  key: { Left: 'ArrowLeft', Right: 'ArrowRight' }[keyCode] ?? (keyCode.length === 1 ? keyCode.toLowerCase() : keyCode),
  code: keyCode.length === 1 ? `Key${keyCode}` : keyCode,
  ctrlKey: modifiers.includes('control'),
  metaKey: modifiers.includes('meta'),
  altKey: modifiers.includes('alt'),
  shiftKey: modifiers.includes('shift'),
});

describe('the desktop app menu', () => {
  beforeEach(() => installAppMenu('linux'));

  it("gives Ctrl+T, W, Tab, Shift+Tab and Shift+T to the open requests, as a browser's tabs have them", () => {
    expect(itemLabelled('New request').accelerator).toBe('CmdOrCtrl+T');
    expect(itemLabelled('Close request').accelerator).toBe('CmdOrCtrl+W');
    expect(itemLabelled('Next request').accelerator).toBe('Ctrl+Tab');
    expect(itemLabelled('Previous request').accelerator).toBe('Ctrl+Shift+Tab');
    expect(itemLabelled('Reopen closed request').accelerator).toBe('CmdOrCtrl+Shift+T');
  });

  it("has no other item on Ctrl+W: the default menu's Close (Window › Close) is replaced, the window closes on Ctrl+Shift+W", () => {
    const onCtrlW = items().filter((item) => item.accelerator === 'CmdOrCtrl+W' || (item.role === 'close' && !item.accelerator));
    expect(onCtrlW.map((item) => item.label)).toEqual(['Close request']);
    expect(items().some((item) => item.role === 'windowMenu' || item.role === 'fileMenu')).toBe(false);
    expect(items().find((item) => item.role === 'close')?.accelerator).toBe('CmdOrCtrl+Shift+W');
  });

  it('chosen with the mouse, an item presses its key in the page, which takes it as that command', () => {
    for (const [label, command] of [
      ['New request', 'new'],
      ['Close request', 'close'],
      ['Next request', 'next'],
      ['Previous request', 'previous'],
      ['Reopen closed request', 'reopen'],
    ] as const) {
      const target = window();
      choose(label, target, false);
      expect(target.pressed.map((event) => event.type)).toEqual(['keyDown', 'keyUp']);
      expect(tabCommandOf(asPageEvent(target.pressed[0]), DESKTOP_TAB_KEYS, false), label).toBe(command);
      // The browser workbench's Alt forms are not what the desktop page listens for.
      expect(tabCommandOf(asPageEvent(target.pressed[0]), BROWSER_TAB_KEYS, false), label).toBeUndefined();
    }
    const close = window();
    choose('Close request', close, false);
    expect(close.pressed[0]).toEqual({ type: 'keyDown', keyCode: 'W', modifiers: ['control'] });
  });

  it('on a Mac, ⌘ for T and W, and Control for Tab, as the page there expects them', () => {
    installAppMenu('darwin');
    expect(installed.template[0].role).toBe('appMenu');
    const close = window();
    choose('Close request', close, false);
    expect(close.pressed[0]).toEqual({ type: 'keyDown', keyCode: 'W', modifiers: ['meta'] });
    expect(tabCommandOf(asPageEvent(close.pressed[0]), DESKTOP_TAB_KEYS, true)).toBe('close');
    const next = window();
    choose('Next request', next, false);
    expect(next.pressed[0]).toEqual({ type: 'keyDown', keyCode: 'Tab', modifiers: ['control'] });
  });

  it('reached by its accelerator (a key the page had no use for), an item does nothing: Ctrl+W never closes the window', () => {
    for (const label of ['Close request', 'New request', 'Reopen closed request']) {
      const target = window();
      choose(label, target, true);
      expect(target.pressed).toEqual([]);
      expect(target.close).not.toHaveBeenCalled();
    }
  });
});
