/**
 * The keys of the Composer's open requests. The desktop app has a browser's own (Ctrl+T, Ctrl+W, Ctrl+Tab…), which
 * its menu shows; a browser keeps those for itself and never gives them to a page, so the browser workbench uses Alt
 * forms it passes on. The renderer matches and labels them, the desktop app's menu turns them into accelerators.
 */
export type TabCommand = 'new' | 'close' | 'next' | 'previous' | 'reopen';

/** A key with its modifiers. `mod` is ⌘ on a Mac and Ctrl elsewhere; `ctrl` is Control everywhere. */
export interface KeyChord {
  /** `KeyboardEvent.key` of the key pressed alone: a lower-case letter, `Tab`, `ArrowLeft`, … */
  key: string;
  mod?: true;
  ctrl?: true;
  alt?: true;
  shift?: true;
}

export type TabKeys = Record<TabCommand, KeyChord>;

export const DESKTOP_TAB_KEYS: TabKeys = {
  new: { key: 't', mod: true },
  close: { key: 'w', mod: true },
  next: { key: 'Tab', ctrl: true },
  previous: { key: 'Tab', ctrl: true, shift: true },
  reopen: { key: 't', mod: true, shift: true },
};

export const BROWSER_TAB_KEYS: TabKeys = {
  new: { key: 't', alt: true },
  close: { key: 'w', alt: true },
  next: { key: 'ArrowRight', alt: true },
  previous: { key: 'ArrowLeft', alt: true },
  reopen: { key: 't', alt: true, shift: true },
};

/** What each command does, as a menu or a tooltip names it. */
export const TAB_COMMAND_LABELS: Record<TabCommand, string> = {
  new: 'New request',
  close: 'Close request',
  next: 'Next request',
  previous: 'Previous request',
  reopen: 'Reopen closed request',
};

const KEY_NAMES: Record<string, { electron: string; shown: string; aria: string }> = {
  Tab: { electron: 'Tab', shown: 'Tab', aria: 'Tab' },
  ArrowLeft: { electron: 'Left', shown: '←', aria: 'ArrowLeft' },
  ArrowRight: { electron: 'Right', shown: '→', aria: 'ArrowRight' },
};
const keyName = (key: string) => KEY_NAMES[key] ?? { electron: key.toUpperCase(), shown: key.toUpperCase(), aria: key.toUpperCase() };

/** The chord as an Electron accelerator: `CmdOrCtrl+Shift+T`, `Ctrl+Tab`, `Alt+Left`. */
export function accelerator(chord: KeyChord): string {
  const parts = [chord.mod && 'CmdOrCtrl', chord.ctrl && 'Ctrl', chord.alt && 'Alt', chord.shift && 'Shift', keyName(chord.key).electron];
  return parts.filter(Boolean).join('+');
}

/** The chord as the platform writes it: `Ctrl+Shift+T`, `⌥⇧T`, `⌘W`. */
export function chordLabel(chord: KeyChord, mac: boolean): string {
  const key = keyName(chord.key).shown;
  if (mac) return [chord.ctrl && '⌃', chord.alt && '⌥', chord.shift && '⇧', chord.mod && '⌘', key].filter(Boolean).join('');
  return [(chord.mod || chord.ctrl) && 'Ctrl', chord.alt && 'Alt', chord.shift && 'Shift', key].filter(Boolean).join('+');
}

/** The chord as `aria-keyshortcuts` has it: `Control+Shift+T`, `Meta+W`, `Alt+ArrowLeft`. */
export function ariaChord(chord: KeyChord, mac: boolean): string {
  const parts = [(chord.ctrl || (chord.mod && !mac)) && 'Control', chord.mod && mac && 'Meta', chord.alt && 'Alt', chord.shift && 'Shift', keyName(chord.key).aria];
  return parts.filter(Boolean).join('+');
}

/** The modifiers and key of a keydown, as far as a chord tells them apart. */
export interface PressedKey {
  key: string;
  code: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
}

/**
 * Whether a keydown is the chord. A letter is matched by the character it types (so the chord follows the keyboard's
 * layout), or by its key's place when a modifier turned it into another character (Option+T types † on a Mac).
 */
export function pressed(event: PressedKey, chord: KeyChord, mac: boolean): boolean {
  const ctrl = Boolean(chord.ctrl || (chord.mod && !mac));
  const meta = Boolean(chord.mod && mac);
  if (event.ctrlKey !== ctrl || event.metaKey !== meta || event.altKey !== Boolean(chord.alt) || event.shiftKey !== Boolean(chord.shift)) return false;
  if (chord.key.length > 1) return event.key === chord.key;
  const typed = event.key.toLowerCase();
  return /^[a-z]$/.test(typed) ? typed === chord.key : event.code === `Key${chord.key.toUpperCase()}`;
}

/** The command a keydown asks for, among `keys`. */
export function tabCommandOf(event: PressedKey, keys: TabKeys, mac: boolean): TabCommand | undefined {
  return (Object.keys(keys) as TabCommand[]).find((command) => pressed(event, keys[command], mac));
}
