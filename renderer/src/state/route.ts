import { useMemo, useSyncExternalStore } from 'react';
import { isPageId, type PageId } from '../../../shared/workbench/pages';

/** The page named in the address (`#/history?trace=…` → `history`); '' when none is. */
function pageIdOf(hash: string): string {
  return hash.startsWith('#/') ? hash.slice(2).split('?')[0] : '';
}

/** The parameters after the page in the address (`#/history?trace=…`), as text, so it compares by value. */
function pageQueryOf(hash: string): string {
  const at = hash.indexOf('?');
  return hash.startsWith('#/') && at !== -1 ? hash.slice(at + 1) : '';
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener('hashchange', onChange);
  return () => window.removeEventListener('hashchange', onChange);
}

/** The page the address names now ('' for none). */
export const pageIdInAddress = () => pageIdOf(window.location.hash);

/** The page the address names, so a reload, a bookmark and the browser's Back keep it. */
export function usePageId(): string {
  return useSyncExternalStore(subscribe, pageIdInAddress);
}

/** What the address asks of the page it names: `#/history?trace=abc` asks History to show that request. */
export function usePageQuery(): URLSearchParams {
  const query = useSyncExternalStore(subscribe, () => pageQueryOf(window.location.hash));
  return useMemo(() => new URLSearchParams(query), [query]);
}

/** Says in the address what the page shows (`#/history?view=failed`), in place of the current step of the browser's history. */
export function replacePageQuery(id: string, query: URLSearchParams): void {
  const text = query.toString();
  window.location.replace(`#/${id}${text ? `?${text}` : ''}`);
}

/**
 * The workbench page on show, which every engine call names for the history: the one the address names (the shell
 * settles an empty address on the first page), or none while it names no page the workbench has.
 */
export function pageOnShow(): PageId | undefined {
  const id = pageIdInAddress();
  return isPageId(id) ? id : undefined;
}

export function openPage(id: string): void {
  window.location.hash = `#/${id}`;
}

/** Names the page shown in the address without adding a step to the browser's history (an unknown or empty hash). */
export function settlePageId(id: string): void {
  if (pageIdOf(window.location.hash) !== id) window.history.replaceState(null, '', `#/${id}`);
}
