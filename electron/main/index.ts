import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { app, BrowserWindow, dialog, ipcMain, session, type IpcMainInvokeEvent } from 'electron';
import { startEngine, type Engine } from '../engine';
import { PICK_FOLDER_CHANNEL } from '../../shared/workbench/transport';
import { installAppMenu } from './app-menu';
import { desktopEngineOptions, USER_DATA_ENV } from './engine-options';
import { folderPicker } from './folder-picker';
import { refuseUntrusted } from './ipc-guard';
import { isAppUrl, navigationGuards } from './navigation-guard';
import { mainWindowOptions } from './window-options';
import { workbenchIpc, type WorkbenchIpc } from './workbench-ipc';

/*
 * The Electron shell, kept thin: it starts the engine in this process, opens one locked-down window and bridges the
 * workbench contract over IPC. Every decision worth testing lives in the plain modules next to this one.
 */

// Before 'ready': the profile folder also holds the vault.
if (process.env[USER_DATA_ENV]) app.setPath('userData', process.env[USER_DATA_ENV]);

const devServerUrl = app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL;
const rendererFile = join(__dirname, '../renderer/index.html');
const appUrl = devServerUrl ?? pathToFileURL(rendererFile).href;
const guards = navigationGuards(appUrl);

let engine: Engine | null = null;
let ipc: WorkbenchIpc | null = null;

app.on('web-contents-created', (_event, contents) => {
  contents.setWindowOpenHandler(guards.onWindowOpen);
  contents.on('will-navigate', guards.onWillNavigate);
  contents.on('will-redirect', guards.onWillNavigate);
  contents.on('will-attach-webview', guards.onWillAttachWebview);
});

function openWindow(): void {
  // Electronegativity cannot follow the options into mainWindowOptions, which sets contextIsolation and sandbox (tested
  // in test/shell/window-and-navigation.test.ts); middle-click windows go through the deny-all window-open handler.
  const window = new BrowserWindow(mainWindowOptions(join(__dirname, '../preload/index.js'))); // eng-disable CONTEXT_ISOLATION_JS_CHECK SANDBOX_JS_CHECK AUXCLICK_JS_CHECK
  window.once('ready-to-show', () => window.show());
  void (devServerUrl ? window.loadURL(devServerUrl) : window.loadFile(rendererFile));
}

async function start(): Promise<void> {
  await app.whenReady();
  // Electron grants every permission unless told otherwise; the workbench needs none.
  session.defaultSession.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
  try {
    engine = await startEngine(
      desktopEngineOptions({ env: process.env, userDataDir: app.getPath('userData'), appRoot: app.getAppPath(), exists: existsSync }),
    );
  } catch (error) {
    dialog.showErrorBox('Tokenbench could not start its engine', (error as Error).message);
    app.exit(1);
    return;
  }
  // A new vault's first keys are not printed: the window's welcome view shows them once (no terminal needed).
  ipc = workbenchIpc(engine.workbench);
  const isTrusted = (url: string) => isAppUrl(url, appUrl);
  for (const [channel, handler] of ipc.handlers(isTrusted)) ipcMain.handle(channel, handler);
  const pickFolder = folderPicker(dialog, (sender: Electron.WebContents) => BrowserWindow.fromWebContents(sender));
  ipcMain.handle(PICK_FOLDER_CHANNEL, refuseUntrusted(isTrusted, (event: IpcMainInvokeEvent, purpose: unknown) => pickFolder(event, purpose)));
  installAppMenu();
  openWindow();
}

if (!app.requestSingleInstanceLock()) {
  // A second copy would fight the first over the vault and the port.
  app.quit();
} else {
  app.on('second-instance', () => BrowserWindow.getAllWindows()[0]?.focus());
  app.on('window-all-closed', () => app.quit());
  app.on('will-quit', (event) => {
    if (!engine) return;
    const running = engine;
    engine = null;
    event.preventDefault();
    ipc?.close();
    // Quit again once the engine has flushed its history and closed the vault; `engine` is null by then.
    void running.stop().finally(() => app.quit());
  });
  start().catch((error) => {
    dialog.showErrorBox('Tokenbench failed', (error as Error).stack ?? String(error));
    app.exit(1);
  });
}
