import type { BrowserWindowConstructorOptions } from 'electron';

/**
 * The one window. The renderer is isolated from Node and sandboxed; `webSecurity` is left at its default (on) and
 * no insecure or experimental switch is set. Kept as data so a test can check it without Electron.
 */
export function mainWindowOptions(preloadPath: string): BrowserWindowConstructorOptions {
  return {
    width: 1200,
    height: 800,
    minWidth: 720,
    minHeight: 480,
    title: 'Tokenbench',
    // Shown on ready-to-show, so the user never sees an empty frame.
    show: false,
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
      spellcheck: false,
    },
  };
}
