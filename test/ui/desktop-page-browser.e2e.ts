import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, test, type Page, type PlaywrightWorkerArgs, type PlaywrightWorkerOptions } from '@playwright/test';
import { startTestEngine } from '../support/test-engine';
import { isAppUrl } from '../../electron/main/navigation-guard';
import { workbenchIpc, type WorkbenchIpc, type WorkbenchIpcEvent } from '../../electron/main/workbench-ipc';
import { composer } from './support/composer-page';
import { ROOT, UI_DIR } from './support/paths';
import { connectionState, openPage } from './support/workbench-page';
import { recordPageProblems } from './support/workbench-tests';

/**
 * The desktop window's page as Electron loads it, where no Electron binary can run: the built renderer opened from
 * its file (so its policy is only the <meta> the build wrote), the built preload making the bridge, and the main
 * process's IPC handlers answering from a real engine. Only Electron's own ipcRenderer, ipcMain and contextBridge are
 * substituted: Playwright carries each message between the page and the handlers, as Electron would. Electron lets
 * its file: page load its own module scripts; Chromium does so with --allow-file-access-from-files.
 */
const APP_URL = pathToFileURL(join(UI_DIR, 'index.html')).href;

/** Opens the page from its file with the built preload run first, its bridge wired to the IPC handlers of `ipc`. */
async function openDesktopPage(page: Page, ipc: WorkbenchIpc): Promise<void> {
  const handlers = new Map(ipc.handlers((url) => isAppUrl(url, APP_URL)));
  // The window's WebContents, as the handlers push stream events to it.
  const sender: WorkbenchIpcEvent['sender'] = {
    id: 1,
    send: (channel, event) => void page.evaluate(([name, message]) => window.ipcDeliver(name, message), [channel, event] as const).catch(() => undefined),
    isDestroyed: () => page.isClosed(),
    once: (_event, listener) => page.once('close', listener),
  };
  await page.exposeBinding('ipcInvoke', ({ frame }, channel: string, ...args: unknown[]) => {
    const handler = handlers.get(channel);
    // What ipcRenderer.invoke rejects with for a channel nobody handles.
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    return handler({ senderFrame: { url: frame.url() }, sender }, ...args);
  });
  const preload = readFileSync(join(ROOT, 'out', 'preload', 'index.js'), 'utf8');
  await page.addInitScript(`(() => {
    const listeners = new Map();
    const ipcRenderer = {
      invoke: (channel, ...args) => window.ipcInvoke(channel, ...args),
      on(channel, listener) { listeners.set(channel, [...(listeners.get(channel) ?? []), listener]); },
      off(channel, listener) { listeners.set(channel, (listeners.get(channel) ?? []).filter((known) => known !== listener)); },
    };
    window.ipcDeliver = (channel, message) => (listeners.get(channel) ?? []).forEach((listener) => listener({}, message));
    const contextBridge = { exposeInMainWorld(key, api) { window[key] = api; } };
    const require = (name) => {
      if (name !== 'electron') throw new Error('the sandboxed preload may require only electron, not ' + name);
      return { ipcRenderer, contextBridge };
    };
    ${preload}
  })();`);
  await page.goto(APP_URL);
}

declare global {
  interface Window {
    ipcDeliver(channel: string, message: unknown): void;
  }
}

/** A Chromium that lets a file: page load its module scripts, and a real engine whose IPC handlers answer the page. */
async function desktopSession({ playwright, launchOptions }: Pick<PlaywrightWorkerArgs & PlaywrightWorkerOptions, 'playwright' | 'launchOptions'>) {
  const browser = await playwright.chromium.launch({ ...launchOptions, args: [...(launchOptions.args ?? []), '--allow-file-access-from-files'] });
  const bench = await startTestEngine({ inMemory: true, echoPort: 0 });
  const ipc = workbenchIpc(bench.engine.workbench);
  return {
    bench,
    ipc,
    page: await browser.newPage(),
    async close() {
      ipc.close();
      await browser.close();
      await bench.stop();
    },
  };
}

test('the desktop page from its file, over IPC: live, sends through the proxy, records each page, under its own policy', async ({ playwright, launchOptions }) => {
  const { bench, ipc, page, close } = await desktopSession({ playwright, launchOptions });
  try {
    const problems = await recordPageProblems(page);
    await openDesktopPage(page, ipc);
    await expect(connectionState(page)).toHaveText('live');
    // The engine serves no browser workbench here: the page can only be talking over IPC.
    expect(bench.engine.browserWorkbench).toBeNull();

    const c = composer(page);
    await page.getByRole('button', { name: 'Start with a test card' }).click();
    await c.send();
    await c.expectOutcome('destination', 'The destination answered');
    await expect(c.outcome).toContainText('200 OK');

    await openPage(page, 'Settings');
    const applications = page.getByRole('region', { name: 'Applications', exact: true });
    await applications.getByRole('textbox', { name: 'Name of the new application' }).fill('Desktop');
    await applications.getByRole('button', { name: 'Create application' }).click();
    await expect(applications.getByRole('region', { name: 'Desktop · private' })).toBeVisible();

    // Over IPC as over HTTP, each call names its page, and History says who did what.
    await openPage(page, 'History');
    const senders = page.getByTestId('history-sender');
    await expect(senders.filter({ hasText: 'Settings page · Created application “Desktop” (private)' })).toHaveCount(1);
    await expect(senders.filter({ hasText: 'Composer page · Tokenbench backend' })).not.toHaveCount(0);
    expect(problems).toEqual([]);

    // The policy is the build's <meta>: CodeMirror's styles carry its nonce, and a style without it is refused.
    const policy = await page.evaluate(() => ({
      csp: document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.getAttribute('content') ?? '',
      nonce: document.querySelector('meta[name="tokenbench-style-nonce"]')?.getAttribute('content') ?? '',
      styleNonces: [...document.querySelectorAll('style')].map((style) => style.nonce),
    }));
    expect(policy.csp).toContain("script-src 'self'");
    expect(policy.csp).toContain(`style-src 'self' 'nonce-${policy.nonce}'`);
    expect(policy.csp).not.toContain('unsafe');
    expect(policy.styleNonces.length).toBeGreaterThan(0);
    expect(new Set(policy.styleNonces)).toEqual(new Set([policy.nonce]));
    const outline = await page.evaluate(async () => {
      const style = document.createElement('style');
      style.textContent = 'body { outline: 7px solid rgb(255, 0, 0); }';
      document.head.append(style);
      await new Promise((resolve) => setTimeout(resolve, 100));
      return getComputedStyle(document.body).outlineWidth;
    });
    expect(outline).not.toBe('7px');
    expect(problems).toContainEqual(expect.stringMatching(/^CSP violation: style-src-elem inline/));
    expect(problems.filter((problem) => !/style-src/.test(problem))).toEqual([]);
  } finally {
    await close();
  }
});

test("the desktop page takes the open requests' keys in their Ctrl forms, as the app's menu shows them, and says so in its tooltips", async ({
  playwright,
  launchOptions,
}) => {
  const { bench, ipc, page, close } = await desktopSession({ playwright, launchOptions });
  try {
    const problems = await recordPageProblems(page);
    await openDesktopPage(page, ipc);
    await expect(connectionState(page)).toHaveText('live');
    const tabs = page.getByRole('tablist', { name: 'Open requests' });
    const selected = tabs.getByRole('tab', { selected: true });
    const newRequest = page.getByRole('button', { name: 'New request', exact: true });
    await expect(newRequest).toHaveAttribute('title', /^New request \(Ctrl\+T\)/);
    await expect(newRequest).toHaveAttribute('aria-keyshortcuts', 'Control+T');
    await composer(page).destination(`${bench.engine.echoUrl}/v1/charges`);

    // Ctrl+T opens, Ctrl+Tab and Ctrl+Shift+Tab go round, Ctrl+W closes (asking for the unsaved one), Ctrl+Shift+T reopens.
    await page.keyboard.press('Control+t');
    await expect(tabs.getByRole('tab')).toHaveCount(2);
    await expect(selected).toHaveText(/New request/);
    await page.keyboard.press('Control+Tab');
    await expect(selected).toHaveAccessibleName(/charges/);
    await page.keyboard.press('Control+Shift+Tab');
    await expect(selected).toHaveText(/New request/);
    await page.keyboard.press('Control+Tab');
    await page.keyboard.press('Control+w');
    await page.getByRole('alertdialog', { name: /^Close .*charges\?$/ }).getByRole('button', { name: 'Close without saving' }).click();
    await expect(tabs.getByRole('tab')).toHaveCount(1);
    await page.keyboard.press('Control+Shift+T');
    await expect(tabs.getByRole('tab')).toHaveCount(2);
    await expect(selected).toHaveAccessibleName(/charges/);
    await expect(composer(page).request.getByRole('textbox', { name: 'Destination URL' })).toHaveValue(`${bench.engine.echoUrl}/v1/charges`);

    // The browser workbench's Alt forms are not the app's.
    await page.keyboard.press('Alt+t');
    await expect(tabs.getByRole('tab')).toHaveCount(2);
    expect(problems).toEqual([]);
  } finally {
    await close();
  }
});
