import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FOLDER_DIALOG_OPTIONS, folderPicker, PROXIES_FOLDER_DIALOG_OPTIONS, type FolderDialog, type FolderDialogOptions } from '../../electron/main/folder-picker';
import { refuseUntrusted, type IpcSenderEvent } from '../../electron/main/ipc-guard';
import { isAppUrl } from '../../electron/main/navigation-guard';
import { desktopBridge, type IpcRendererLike } from '../../electron/preload/bridge';
import { PICK_FOLDER_CHANNEL } from '../../shared/workbench/transport';
import { startTestEngine, type TestEngine } from '../support/test-engine';

/**
 * The desktop's folder picker, from the page's call through the preload and the main process's guarded handler to
 * Electron's dialog, which is the one thing substituted: it answers what a user would pick, or a cancel.
 */

const APP_URL = 'file:///opt/tokenbench/out/renderer/index.html';

interface Window {
  id: number;
}

/** Electron's dialog as the picker uses it: each open is kept with its window and options, and answers `answer`. */
class SubstitutedDialog implements FolderDialog<Window> {
  readonly opened: { window: Window; options: FolderDialogOptions }[] = [];
  answer: { canceled: boolean; filePaths: string[] } = { canceled: true, filePaths: [] };
  showOpenDialog(window: Window, options: FolderDialogOptions) {
    this.opened.push({ window, options });
    return Promise.resolve(this.answer);
  }
}

/** The page's side: the preload's bridge over a loopback to the handler, called from the frame at `frameUrl`. */
function pageCalling(dialog: SubstitutedDialog, windowOf: (sender: unknown) => Window | null, frameUrl = APP_URL) {
  const handler = refuseUntrusted<IpcSenderEvent & { sender: unknown }, Promise<string | null>>((url) => isAppUrl(url, APP_URL), folderPicker(dialog, windowOf));
  const ipc: IpcRendererLike = {
    invoke: (channel: string, ...args: unknown[]) =>
      channel === PICK_FOLDER_CHANNEL ? Promise.resolve().then(() => handler({ senderFrame: { url: frameUrl }, sender: 'the window' }, ...args)) : Promise.reject(new Error(channel)),
    on: () => undefined,
    off: () => undefined,
  } as unknown as IpcRendererLike;
  return desktopBridge(ipc);
}

let bench: TestEngine;
let dialog: SubstitutedDialog;
const window: Window = { id: 7 };
beforeEach(async () => {
  bench = await startTestEngine({});
  dialog = new SubstitutedDialog();
});
afterEach(() => bench.stop());

describe('the desktop folder picker', () => {
  it('opens the system dialog on the asking window for a folder (one may be made there), and the engine keeps the folder picked', async () => {
    const picked = mkdtempSync(join(tmpdir(), 'tokenbench-repo-'));
    dialog.answer = { canceled: false, filePaths: [picked] };
    const folder = await pageCalling(dialog, () => window).pickFolder();
    expect(dialog.opened).toEqual([{ window, options: FOLDER_DIALOG_OPTIONS }]);
    expect(FOLDER_DIALOG_OPTIONS.properties).toEqual(['openDirectory', 'createDirectory']);
    expect(folder).toBe(picked);

    // The page hands the path to the engine, which checks it: from then on saved requests live there.
    await bench.engine.workbench.setCollectionsFolder({ folder });
    await bench.engine.workbench.saveRequest({
      collection: 'Repo',
      name: 'Ping',
      request: { kind: 'api', method: 'GET', target: '/tokens', headers: [], service: { transaction: '', trace: '', keepAlive: '', connection: '' }, bodyMode: 'none', body: '' },
      overwrite: false,
      send_as: null,
    });
    expect(bench.engine.collectionsFolder).toBe(picked);
    expect((await bench.engine.workbench.listCollections({})).collections.map((c) => c.name)).toEqual(['Repo']);
  });

  it('opens the dialog for the proxies folder, and the engine serves the proxies of the folder picked', async () => {
    const picked = mkdtempSync(join(tmpdir(), 'tokenbench-proxies-'));
    writeFileSync(join(picked, 'echo.json'), JSON.stringify({ name: 'Echo', destination_url: 'https://example.com/echo' }));
    dialog.answer = { canceled: false, filePaths: [picked] };
    const folder = await pageCalling(dialog, () => window).pickFolder('proxies');
    expect(dialog.opened).toEqual([{ window, options: PROXIES_FOLDER_DIALOG_OPTIONS }]);
    expect(folder).toBe(picked);

    const view = await bench.engine.workbench.setProxiesFolder({ folder });
    expect(view).toMatchObject({ folder: picked, stored: picked, files: [{ path: 'echo.json', state: 'loaded', served: { name: 'Echo' } }] });
    const listed = await bench.call('GET', '/proxies', { key: bench.managementKey });
    expect(listed.body.data).toEqual([expect.objectContaining({ name: 'Echo', id: view.files[0].served!.id })]);
    await expect(pageCalling(dialog, () => window).pickFolder('elsewhere' as 'proxies')).rejects.toThrow('No folder is picked for elsewhere');
  });

  it('answers null when the user cancels, and changes nothing', async () => {
    const before = bench.engine.collectionsFolder;
    expect(await pageCalling(dialog, () => window).pickFolder()).toBeNull();
    expect(dialog.opened).toHaveLength(1);
    expect(bench.engine.collectionsFolder).toBe(before);
  });

  it('opens no dialog for a sender without a window, nor for a frame that is not the app', async () => {
    expect(await pageCalling(dialog, () => null).pickFolder()).toBeNull();
    await expect(pageCalling(dialog, () => window, 'https://evil.example/').pickFolder()).rejects.toThrow('IPC refused');
    expect(dialog.opened).toEqual([]);
  });
});
