import { Menu, type BaseWindow, type KeyboardInputEvent, type MenuItemConstructorOptions, type WebContents } from 'electron';
import { accelerator, DESKTOP_TAB_KEYS, TAB_COMMAND_LABELS, type KeyChord, type TabCommand } from '../../shared/workbench/tab-keys';

/** Electron's key names for the keys a chord may use that are not letters. */
const KEY_CODES: Record<string, string> = { Tab: 'Tab', ArrowLeft: 'Left', ArrowRight: 'Right' };

/** The key presses that type `chord` into a page, as `webContents.sendInputEvent` takes them. */
export function keyPressOf(chord: KeyChord, platform: NodeJS.Platform): KeyboardInputEvent[] {
  const mac = platform === 'darwin';
  const modifiers: KeyboardInputEvent['modifiers'] = [];
  if (chord.ctrl || (chord.mod && !mac)) modifiers.push('control');
  if (chord.mod && mac) modifiers.push('meta');
  if (chord.alt) modifiers.push('alt');
  if (chord.shift) modifiers.push('shift');
  const keyCode = KEY_CODES[chord.key] ?? chord.key.toUpperCase();
  return [
    { type: 'keyDown', keyCode, modifiers },
    { type: 'keyUp', keyCode, modifiers },
  ];
}

/**
 * The app's menu: Electron's default one, except that Ctrl/⌘+T, W, Tab and Shift+T belong to the Composer's open
 * requests, as in a browser (closing the window is Ctrl/⌘+Shift+W). The page takes these keys before the menu does,
 * and one it used never reaches the menu; so an accelerator that does reach it was of no use to the page (another
 * page on show, a dialog open) and does nothing, where the default menu would have closed the window. Chosen from the
 * menu with the mouse, an item presses its key in the page.
 */
export function appMenuTemplate(platform: NodeJS.Platform): MenuItemConstructorOptions[] {
  const mac = platform === 'darwin';
  const item = (command: TabCommand): MenuItemConstructorOptions => ({
    label: TAB_COMMAND_LABELS[command],
    accelerator: accelerator(DESKTOP_TAB_KEYS[command]),
    click: (_item, window, event) => {
      const contents = window && 'webContents' in window ? (window as BaseWindow & { webContents: WebContents }).webContents : undefined;
      if (event.triggeredByAccelerator || !contents) return;
      for (const press of keyPressOf(DESKTOP_TAB_KEYS[command], platform)) contents.sendInputEvent(press);
    },
  });
  const separator: MenuItemConstructorOptions = { type: 'separator' };
  return [
    ...(mac ? [{ role: 'appMenu' } as const] : []),
    {
      label: 'File',
      submenu: [
        item('new'),
        item('reopen'),
        item('close'),
        separator,
        item('next'),
        item('previous'),
        separator,
        { role: 'close', label: 'Close Window', accelerator: 'CmdOrCtrl+Shift+W' },
        ...(mac ? [] : [{ role: 'quit' } as const]),
      ],
    },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { label: 'Window', submenu: mac ? [{ role: 'minimize' }, { role: 'zoom' }, separator, { role: 'front' }] : [{ role: 'minimize' }] },
  ];
}

export function installAppMenu(platform: NodeJS.Platform = process.platform): void {
  Menu.setApplicationMenu(Menu.buildFromTemplate(appMenuTemplate(platform)));
}
