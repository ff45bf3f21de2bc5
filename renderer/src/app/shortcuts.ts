import { useEffect } from 'react';
import { openPage } from './route';
import type { PageDefinition } from './pages';

export const IS_MAC = /Mac|iPhone|iPad/.test(navigator.userAgent);

/** How the page's shortcut is written for this platform: ⌘4 or Ctrl+4. */
export const shortcutLabel = (digit: string) => (IS_MAC ? `⌘${digit}` : `Ctrl+${digit}`);

/** Ctrl/⌘ + a page's digit opens it, from anywhere in the workbench, editors included. */
export function usePageShortcuts(pages: readonly PageDefinition[]): void {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (!(IS_MAC ? event.metaKey : event.ctrlKey) || event.altKey || event.shiftKey) return;
      const page = pages.find((candidate) => candidate.shortcut === event.key);
      if (!page) return;
      event.preventDefault();
      openPage(page.id);
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [pages]);
}
