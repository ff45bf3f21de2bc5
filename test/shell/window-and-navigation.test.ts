import { describe, expect, it } from 'vitest';
import { isAppUrl, navigationGuards } from '../../electron/main/navigation-guard';
import { mainWindowOptions } from '../../electron/main/window-options';
import { rendererCsp, rendererCspHeader } from '../../shared/content-security-policy';

const PACKAGED = 'file:///opt/tokenbench/out/renderer/index.html';
const DEV = 'http://localhost:5173/';

function navigationTo(url: string) {
  const event = { url, prevented: false, preventDefault: () => (event.prevented = true) };
  return event;
}

describe('the main window', () => {
  it('isolates and sandboxes the renderer, with no Node and no webview, and leaves webSecurity on', () => {
    const { webPreferences, ...window } = mainWindowOptions('/opt/tokenbench/out/preload/index.js');
    expect(webPreferences).toMatchObject({
      preload: '/opt/tokenbench/out/preload/index.js',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webviewTag: false,
    });
    for (const risky of ['webSecurity', 'allowRunningInsecureContent', 'experimentalFeatures', 'enableBlinkFeatures']) {
      expect(webPreferences).not.toHaveProperty(risky);
    }
    expect(window.show).toBe(false);
  });

  it('runs under a policy without inline or eval script, and styles only with the nonce', () => {
    for (const policy of [rendererCsp('n0nce'), rendererCspHeader('n0nce')]) {
      expect(policy).toContain("script-src 'self'");
      expect(policy).toContain("style-src 'self' 'nonce-n0nce'");
      expect(policy).toContain("default-src 'none'");
      expect(policy).not.toMatch(/unsafe-/);
    }
    expect(rendererCspHeader('n0nce')).toContain("frame-ancestors 'none'");
  });
});

describe('what counts as the app', () => {
  it('for the packaged renderer, only its own file (file: origins are all "null")', () => {
    expect(isAppUrl(PACKAGED, PACKAGED)).toBe(true);
    expect(isAppUrl(`${PACKAGED}#session`, PACKAGED)).toBe(true);
    expect(isAppUrl('file:///etc/passwd', PACKAGED)).toBe(false);
    expect(isAppUrl('file:///opt/tokenbench/out/renderer/other.html', PACKAGED)).toBe(false);
    expect(isAppUrl('https://evil.example/', PACKAGED)).toBe(false);
  });

  it('for the dev server, its exact origin, compared parsed rather than by prefix', () => {
    expect(isAppUrl('http://localhost:5173/panels?x=1', DEV)).toBe(true);
    expect(isAppUrl('http://localhost:5173.evil.example/', DEV)).toBe(false);
    expect(isAppUrl('http://localhost:5174/', DEV)).toBe(false);
    expect(isAppUrl('https://localhost:5173/', DEV)).toBe(false);
    expect(isAppUrl('http://user@evil.example/@localhost:5173/', DEV)).toBe(false);
  });

  it('never for a missing or unparsable URL', () => {
    expect(isAppUrl(undefined, PACKAGED)).toBe(false);
    expect(isAppUrl('', DEV)).toBe(false);
    expect(isAppUrl('not a url', DEV)).toBe(false);
  });
});

describe('leaving the app', () => {
  const guards = navigationGuards(PACKAGED);

  it('prevents navigation to any other page and allows the app itself', () => {
    for (const target of ['https://evil.example/', 'file:///etc/passwd', 'javascript:alert(1)', 'http://127.0.0.1:4780/ui/']) {
      const event = navigationTo(target);
      guards.onWillNavigate(event);
      expect(event.prevented, target).toBe(true);
    }
    const own = navigationTo(PACKAGED);
    guards.onWillNavigate(own);
    expect(own.prevented).toBe(false);
  });

  it('opens no window, whatever the page asks', () => {
    expect(guards.onWindowOpen()).toEqual({ action: 'deny' });
  });

  it('attaches no <webview>', () => {
    const event = navigationTo(PACKAGED);
    guards.onWillAttachWebview(event);
    expect(event.prevented).toBe(true);
  });
});
