import { SESSION_QUERY } from '../../../shared/workbench/transport';

const STORAGE_KEY = 'tokenbench.session';

/**
 * The browser workbench's session arrives in the URL fragment (`#session=…`). It moves to this tab's sessionStorage,
 * so a reload still works, and leaves the address bar, so it is not bookmarked or shared by accident.
 */
export function takeSession(): string | null {
  const fromUrl = new URLSearchParams(window.location.hash.slice(1)).get(SESSION_QUERY);
  if (!fromUrl) return window.sessionStorage.getItem(STORAGE_KEY);
  window.sessionStorage.setItem(STORAGE_KEY, fromUrl);
  window.history.replaceState(null, '', window.location.pathname + window.location.search);
  return fromUrl;
}
