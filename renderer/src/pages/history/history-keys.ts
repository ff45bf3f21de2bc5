import { useEffect } from 'react';
import { IS_MAC } from '../../components/keys';
import { useHistoryStore } from '../../state/history-store';
import { replayable, replayInComposer } from './replay';

/** Keys typed into a field are the field's, not the list's. */
const typing = (target: EventTarget | null) =>
  target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));

/**
 * The History page's keys: j/↓ and k/↑ move through the list, Enter opens the selected request, Ctrl/⌘+R replays
 * it in the Composer, and / goes to the search field.
 */
export function useHistoryKeys(): void {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented) return;
      const history = useHistoryStore.getState();
      const { entries, selected } = history;
      if ((IS_MAC ? event.metaKey : event.ctrlKey) && event.key.toLowerCase() === 'r' && !event.shiftKey) {
        // Never a reload of the page: on History the key replays.
        event.preventDefault();
        if (selected && replayable(selected)) replayInComposer(selected);
        return;
      }
      if (event.ctrlKey || event.metaKey || event.altKey || typing(event.target)) return;
      const at = selected ? entries.findIndex((entry) => entry.id === selected.id) : -1;
      const step = { j: 1, ArrowDown: 1, k: -1, ArrowUp: -1 }[event.key];
      if (step !== undefined && entries.length > 0) {
        event.preventDefault();
        const next = entries[Math.min(entries.length - 1, Math.max(0, at === -1 ? 0 : at + step))];
        history.select(next);
        document.querySelector(`[data-entry-id="${CSS.escape(next.id)}"]`)?.scrollIntoView({ block: 'nearest' });
      } else if (event.key === 'Enter' && selected) {
        event.preventDefault();
        document.getElementById('entry-title')?.focus();
      } else if (event.key === '/') {
        event.preventDefault();
        document.getElementById('history-search')?.focus();
      }
    };
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, []);
}
