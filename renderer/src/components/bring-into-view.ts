/** The nearest box around `element` that scrolls up and down: a pane, or the page. */
function scrollerAround(element: HTMLElement): HTMLElement | null {
  for (let box = element.parentElement; box; box = box.parentElement) {
    if (/auto|scroll/.test(getComputedStyle(box).overflowY) && box.scrollHeight > box.clientHeight) return box;
  }
  return null;
}

/**
 * Brings a panel the user now waits for (an answer, a request's detail) to the top of what scrolls around it, when a
 * window too small for the panels side by side put it out of sight: its top unseen, or too little of it shown. A
 * panel already in view stays put.
 */
export function bringIntoView(panel: HTMLElement | null): void {
  if (!panel) return;
  const scroller = scrollerAround(panel);
  if (!scroller) return;
  const room = scroller.getBoundingClientRect();
  const box = panel.getBoundingClientRect();
  if (box.top >= room.top && box.top <= room.bottom - Math.min(box.height, room.height / 3)) return;
  const still = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  panel.scrollIntoView({ block: 'start', behavior: still ? 'instant' : 'smooth' });
}
