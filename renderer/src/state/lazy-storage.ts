import type { PersistStorage, StorageValue } from 'zustand/middleware';

/** How long a pause in the writes must be before they are written: a burst of typing is written once, after it. */
const WRITE_DELAY_MS = 500;

/**
 * A store's state kept in localStorage, serialized and written once the writes pause for WRITE_DELAY_MS, and at once
 * when the page goes away: serializing and writing a large draft holds the page for tens of milliseconds
 * (localStorage is synchronous), which in the middle of typing would delay what the keystrokes show.
 */
export function lazyStorage<S>(storage: Storage): PersistStorage<S> {
  const pending = new Map<string, StorageValue<S>>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    for (const [name, value] of pending) storage.setItem(name, JSON.stringify(value));
    pending.clear();
  };
  window.addEventListener('pagehide', flush);
  return {
    getItem: (name) => {
      const kept = pending.get(name) ?? storage.getItem(name);
      return typeof kept === 'string' ? (JSON.parse(kept) as StorageValue<S>) : kept;
    },
    setItem: (name, value) => {
      pending.set(name, value);
      clearTimeout(timer);
      timer = setTimeout(flush, WRITE_DELAY_MS);
    },
    removeItem: (name) => {
      pending.delete(name);
      storage.removeItem(name);
    },
  };
}
