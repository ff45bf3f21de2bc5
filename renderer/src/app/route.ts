import { useSyncExternalStore } from 'react';

/** The page named in the address (`#/history` → `history`); '' when none is. */
function pageIdOf(hash: string): string {
  return hash.startsWith('#/') ? hash.slice(2) : '';
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

/** The page the address names, so a reload, a bookmark and the browser's Back keep it. */
export function usePageId(): string {
  return useSyncExternalStore(subscribe, () => pageIdOf(window.location.hash));
}

export function openPage(id: string): void {
  window.location.hash = `#/${id}`;
}

/** Names the page shown in the address without adding a step to the browser's history (an unknown or empty hash). */
export function settlePageId(id: string): void {
  if (pageIdOf(window.location.hash) !== id) window.history.replaceState(null, '', `#/${id}`);
}
