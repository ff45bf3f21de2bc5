import { useEffect } from 'react';
import { IS_MAC } from '../components/keys';
import { openPage } from '../state/route';
import type { PageDefinition } from './pages';


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
