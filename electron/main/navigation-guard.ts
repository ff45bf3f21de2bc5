/**
 * Whether `candidate` is the app's own page. Parsed, never prefix-matched (`http://localhost:5173.evil.example`).
 * A file: URL has an opaque origin ("null"), so for a packaged renderer only the app's own file counts.
 */
export function isAppUrl(candidate: string | undefined, appUrl: string): boolean {
  if (!candidate || !URL.canParse(candidate)) return false;
  const url = new URL(candidate);
  const app = new URL(appUrl);
  if (app.protocol === 'file:') return url.protocol === 'file:' && url.host === app.host && url.pathname === app.pathname;
  return url.origin === app.origin;
}

export interface PreventableEvent {
  preventDefault(): void;
}

/** The window's handlers for leaving the app, as plain functions (Electron only attaches them). */
export function navigationGuards(appUrl: string) {
  return {
    /** will-navigate and will-redirect: the window stays on the app. */
    onWillNavigate(event: PreventableEvent & { url: string }): void {
      if (!isAppUrl(event.url, appUrl)) event.preventDefault();
    },
    /** setWindowOpenHandler: the app opens no windows, whatever the page asks. */
    onWindowOpen(): { action: 'deny' } {
      return { action: 'deny' };
    },
    /** will-attach-webview: no <webview> tags. */
    onWillAttachWebview(event: PreventableEvent): void {
      event.preventDefault();
    },
  };
}
