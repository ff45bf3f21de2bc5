import { useEffect, useRef } from 'react';
import { ariaChord, BROWSER_TAB_KEYS, chordLabel, DESKTOP_TAB_KEYS, tabCommandOf, type TabCommand } from '../../../../shared/workbench/tab-keys';
import { IN_DESKTOP_APP } from '../../api/connect-workbench';
import { IS_MAC } from '../../components/keys';

/** The desktop app's keys in its window (its menu shows them), those a browser passes on in the browser workbench. */
const TAB_KEYS = IN_DESKTOP_APP ? DESKTOP_TAB_KEYS : BROWSER_TAB_KEYS;

/** A command's key as this platform writes it, for tooltips: Alt+W, ⌘W. */
export const tabKeyLabel = (command: TabCommand) => chordLabel(TAB_KEYS[command], IS_MAC);
/** A command's key for `aria-keyshortcuts`. */
export const tabKeyAria = (command: TabCommand) => ariaChord(TAB_KEYS[command], IS_MAC);

/**
 * The open requests' keys, anywhere on the Composer: taken before the element with the focus sees them (the body
 * editor has its own use for Alt+arrows), and left alone while a modal dialog is open.
 */
export function useOpenRequestKeys(act: (command: TabCommand) => void): void {
  const latest = useRef(act);
  useEffect(() => {
    latest.current = act;
  });
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      const command = tabCommandOf(event, TAB_KEYS, IS_MAC);
      if (!command || document.querySelector('dialog:modal')) return;
      event.preventDefault();
      event.stopPropagation();
      latest.current(command);
    };
    window.addEventListener('keydown', onKeyDown, true);
    return () => window.removeEventListener('keydown', onKeyDown, true);
  }, []);
}
