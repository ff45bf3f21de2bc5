/** Shortcuts use ⌘ on a Mac and Ctrl elsewhere; this says which, and writes them as the platform does. */
export const IS_MAC = /Mac|iPhone|iPad/.test(navigator.userAgent);

/** A shortcut key as this platform writes it: ⌘4 or Ctrl+4. */
export const shortcutLabel = (key: string) => (IS_MAC ? `⌘${key}` : `Ctrl+${key}`);
