import { useLayoutEffect, type RefObject } from 'react';
import { useHistoryStore, type HistoryScroll } from '../../state/history-store';

/** The nearest box around `element` that scrolls: its pane in a wide window, the page in a narrow one. */
function scrollingBox(element: HTMLElement): HTMLElement | null {
  for (let box = element.parentElement; box; box = box.parentElement) {
    const { overflowY } = getComputedStyle(box);
    if (overflowY === 'auto' || overflowY === 'scroll') return box;
  }
  return null;
}

/**
 * Keeps in the history store where the box that scrolls `part` of History was left, and puts it back there, before
 * the page paints, when History is shown again.
 */
export function useKeptScroll(ref: RefObject<HTMLElement | null>, part: keyof HistoryScroll): void {
  useLayoutEffect(() => {
    const box = ref.current && scrollingBox(ref.current);
    if (!box) return;
    box.scrollTo({ top: useHistoryStore.getState().scroll[part] });
    const keep = () => useHistoryStore.getState().keepScroll(part, box.scrollTop);
    box.addEventListener('scroll', keep, { passive: true });
    return () => box.removeEventListener('scroll', keep);
  }, [ref, part]);
}
