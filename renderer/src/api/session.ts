import { LAUNCH_QUERY, SESSION_QUERY } from '../../../shared/workbench/transport';
import { tradeLaunchCode } from './http-transport';

const STORAGE_KEY = 'tokenbench.session';

/**
 * The browser workbench's session. It arrives in the URL's fragment, as itself (`#session=…`, the address `serve`
 * prints) or as a launch link's one-time code (`#launch=…`, what `npm start` opens a browser with), which is traded
 * for it here. It moves to this tab's sessionStorage, so a reload still works, and the fragment leaves the address
 * bar before anything else runs, so it is not bookmarked, shared or taken for a page's name.
 */
/** A session the sign-in form was given: this tab's from now on. */
export function keepSession(session: string): void {
  window.sessionStorage.setItem(STORAGE_KEY, session);
}

export function takeSession(): Promise<string | null> {
  const fragment = new URLSearchParams(window.location.hash.slice(1));
  const [session, code] = [fragment.get(SESSION_QUERY), fragment.get(LAUNCH_QUERY)];
  if (!session && !code) return Promise.resolve(window.sessionStorage.getItem(STORAGE_KEY));
  window.history.replaceState(null, '', window.location.pathname + window.location.search);
  return (session ? Promise.resolve(session) : tradeLaunchCode(code!)).then((taken) => {
    keepSession(taken);
    return taken;
  });
}
