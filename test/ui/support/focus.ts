import type { Page } from '@playwright/test';

/** What holds the focus after a Tab: where it is, what it is called, and whether its focus can be seen. */
export interface FocusStop {
  key: string;
  name: string;
  visible: boolean;
  indicated: boolean;
  /** Inside an open dialog. */
  inDialog: boolean;
}

/**
 * The focused element, or null on the page itself. Its focus is seen when a 2 px outline is drawn on it, on the label
 * that stands for a hidden input, or around the code editor it is in.
 */
export function focusStop(page: Page): Promise<FocusStop | null> {
  return page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) return null;
    const outlined = (candidate: Element | null) => {
      if (!candidate) return false;
      const style = getComputedStyle(candidate);
      return style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
    };
    const box = element.getBoundingClientRect();
    const path: string[] = [];
    for (let node: Element | null = element; node && node !== document.body; node = node.parentElement) {
      path.unshift(`${node.tagName}${node.id ? `#${node.id}` : ''}:${Array.prototype.indexOf.call(node.parentElement?.children ?? [], node)}`);
    }
    return {
      key: path.join('>'),
      name: `${element.tagName.toLowerCase()} "${(element.getAttribute('aria-label') ?? element.textContent ?? '').trim().slice(0, 40)}"`,
      visible: box.width > 0 && box.height > 0,
      indicated: outlined(element) || outlined(element.closest('label')) || outlined(element.closest('.code-editor')),
      inDialog: element.closest('dialog[open]') !== null,
    };
  });
}

/**
 * Tabs from where the focus is until a stop comes round again (at most `limit` presses): every stop reached, the
 * ones whose focus cannot be seen, and the stop that came round again (null if none did).
 */
export async function tabRound(page: Page, limit = 120): Promise<{ seen: FocusStop[]; unseen: string[]; again: FocusStop | null }> {
  const seen: FocusStop[] = [];
  const unseen: string[] = [];
  let again: FocusStop | null = null;
  for (let i = 0; i < limit && !again; i += 1) {
    await page.keyboard.press('Tab');
    const stop = await focusStop(page);
    if (!stop) continue;
    if (seen.some((earlier) => earlier.key === stop.key)) again = stop;
    else seen.push(stop);
    if (!again && (!stop.visible || !stop.indicated)) unseen.push(`${stop.name}${stop.visible ? '' : ' (not on screen)'}`);
  }
  return { seen, unseen, again };
}
