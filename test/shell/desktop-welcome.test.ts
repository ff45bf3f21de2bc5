import { existsSync, rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { startEngine, type Engine } from '../../electron/engine';
import { desktopEngineOptions } from '../../electron/main/engine-options';
import { isAppUrl } from '../../electron/main/navigation-guard';
import { workbenchIpc, type WorkbenchIpc, type WorkbenchIpcEvent } from '../../electron/main/workbench-ipc';
import { ipcChannel } from '../../shared/workbench/transport';
import { tempDir } from '../support/test-engine';

/**
 * The desktop app's first start needs no terminal: the engine the shell starts (its options as the shell makes them)
 * hands a new vault's keys to the window over IPC once, and again after a wipe. Electron's side is substituted: the
 * handlers are called as ipcMain would call them, from the app's frame.
 */
const APP_URL = 'file:///opt/tokenbench/out/renderer/index.html';
/** The window's call as ipcMain hands it over: from the app's frame; these calls open no stream, so its WebContents does nothing. */
const fromApp: WorkbenchIpcEvent = { senderFrame: { url: APP_URL }, sender: { id: 1, send: () => undefined, isDestroyed: () => false, once: () => undefined } };

let userData: string;
let engine: Engine | undefined;
let ipc: WorkbenchIpc | undefined;
afterEach(async () => {
  ipc?.close();
  await engine?.stop();
  rmSync(userData, { recursive: true, force: true });
  engine = ipc = undefined;
});

async function startDesktop(): Promise<(channel: string, payload?: unknown) => Promise<unknown>> {
  engine = await startEngine({
    ...desktopEngineOptions({ env: { TOKENBENCH_PORT: '0' }, userDataDir: userData, appRoot: userData, exists: existsSync }),
    log: () => undefined,
  });
  ipc = workbenchIpc(engine.workbench);
  const handlers = new Map(ipc.handlers((url) => isAppUrl(url, APP_URL)));
  return async (channel, payload = {}) => handlers.get(channel)!(fromApp, payload);
}

describe('the desktop welcome view, over IPC', () => {
  it("gives the window a new vault's endpoint keys once, none at the next start, and new ones after a wipe", async () => {
    userData = tempDir('tokenbench-desktop-welcome-');
    let invoke = await startDesktop();
    const first = (await invoke(ipcChannel('takeWelcome'))) as { ok: true; value: { keys: { management: { key: string }; private: { key: string } } } };
    expect(first.ok).toBe(true);
    expect(first.value.keys.management.key).toMatch(/^key_local_/);
    expect(first.value.keys.private.key).toBe(engine!.bootstrapKeys!.private.key);
    await expect(invoke(ipcChannel('takeWelcome'))).resolves.toEqual({ ok: true, value: { keys: null } });
    ipc!.close();
    await engine!.stop();

    // The same profile folder: the vault is not new, so there is nothing to welcome.
    invoke = await startDesktop();
    expect(engine!.bootstrapKeys).toBeNull();
    await expect(invoke(ipcChannel('takeWelcome'))).resolves.toEqual({ ok: true, value: { keys: null } });
    await expect(invoke(ipcChannel('wipeVault'), { confirm: 'wipe' })).resolves.toMatchObject({ ok: true, value: { applications: 2 } });
    const again = (await invoke(ipcChannel('takeWelcome'))) as { value: { keys: { private: { key: string } } } };
    expect(again.value.keys.private.key).toMatch(/^key_local_/);
    expect(again.value.keys.private.key).not.toBe(first.value.keys.private.key);
  });
});
