import { useSyncExternalStore } from 'react';

/** How often the clock looks; it tells its readers only when the second changes. */
const LOOK_EVERY_MS = 250;

const readers = new Set<() => void>();
let second = Math.floor(Date.now() / 1000);
let timer: ReturnType<typeof setInterval> | null = null;

function look(): void {
  const now = Math.floor(Date.now() / 1000);
  if (now === second) return;
  second = now;
  readers.forEach((read) => read());
}

function subscribe(read: () => void): () => void {
  readers.add(read);
  timer ??= setInterval(look, LOOK_EVERY_MS);
  return () => {
    readers.delete(read);
    if (readers.size > 0 || timer === null) return;
    clearInterval(timer);
    timer = null;
  };
}

/** The time now, to the second, re-rendering its reader as each second begins: one timer for every countdown on screen. */
export function useNow(): number {
  return useSyncExternalStore(subscribe, () => second * 1000);
}
