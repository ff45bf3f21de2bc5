import type { PersistStorage, StorageValue } from 'zustand/middleware';

/** How long writes wait: a burst of typing is written once. */
const WRITE_DELAY_MS = 500;

/**
 * A store's state kept in localStorage, serialized and written at most once per WRITE_DELAY_MS, and at once when the
 * page goes away: serializing and writing a large draft on every keystroke held the page for tens of milliseconds
 * each (localStorage is synchronous).
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
      timer ??= setTimeout(flush, WRITE_DELAY_MS);
    },
    removeItem: (name) => {
      pending.delete(name);
      storage.removeItem(name);
    },
  };
}
