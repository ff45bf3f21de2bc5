import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_ECHO_PORT, DEFAULT_PORT } from '../../electron/engine';
import { desktopAppName, desktopEngineOptions, desktopUserDataDir, ELECTRON_NATIVE_BINDING } from '../../electron/main/engine-options';
import { tempDir } from '../support/test-engine';

const scratch = tempDir('tokenbench-desktop-options-');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const plainApp = join(scratch, 'plain-app');
const builtApp = join(scratch, 'built-app');
mkdirSync(plainApp);
mkdirSync(join(builtApp, '.electron-native'), { recursive: true });
writeFileSync(join(builtApp, ELECTRON_NATIVE_BINDING), 'stands in for the Electron-ABI binary');

const options = (env: NodeJS.ProcessEnv, appRoot = plainApp) =>
  desktopEngineOptions({ env, userDataDir: '/home/u/.config/Tokenbench', appRoot, exists: existsSync });

describe('how the desktop app starts its engine', () => {
  it('keeps the vault under the profile folder, on the usual ports, with the Node build of SQLite by default', () => {
    expect(options({})).toEqual({
      dataDir: '/home/u/.config/Tokenbench/vault',
      nativeBinding: undefined,
      port: DEFAULT_PORT,
      echoPort: DEFAULT_ECHO_PORT,
    });
  });

  it('uses the Electron build of better-sqlite3 that `npm start` made, or the one the environment names', () => {
    expect(options({}, builtApp).nativeBinding).toBe(join(builtApp, ELECTRON_NATIVE_BINDING));
    const named = join(scratch, 'custom.node');
    writeFileSync(named, 'x');
    expect(options({ TOKENBENCH_NATIVE_BINDING: named }, builtApp).nativeBinding).toBe(named);
  });

  it('refuses a binding path that does not exist, naming it', () => {
    expect(() => options({ TOKENBENCH_NATIVE_BINDING: '/nowhere/x.node' })).toThrow('/nowhere/x.node');
  });

  it('takes free ports when told to (tests, a second profile), and refuses a port that is not one', () => {
    expect(options({ TOKENBENCH_PORT: '0' })).toMatchObject({ port: 0, echoPort: 0 });
    expect(() => options({ TOKENBENCH_PORT: 'eighty' })).toThrow('TOKENBENCH_PORT');
    expect(() => options({ TOKENBENCH_PORT: '70000' })).toThrow('TOKENBENCH_PORT');
  });
});

describe("where the desktop app keeps its profile, computed as Electron's app.getPath('userData') does", () => {
  const home = '/home/u';
  const folder = (platform: NodeJS.Platform, env: NodeJS.ProcessEnv = {}) => desktopUserDataDir({ env, platform, home, appName: 'tokenbench' });

  it('is the app folder under the platform\'s application data', () => {
    expect(folder('linux')).toBe('/home/u/.config/tokenbench');
    expect(folder('linux', { XDG_CONFIG_HOME: '/xdg' })).toBe('/xdg/tokenbench');
    expect(folder('darwin')).toBe('/home/u/Library/Application Support/tokenbench');
    expect(folder('win32', { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' })).toBe('C:\\Users\\u\\AppData\\Roaming\\tokenbench');
  });

  it('is the folder TOKENBENCH_USER_DATA_DIR names, when it names one (the desktop app moves there too)', () => {
    expect(folder('linux', { TOKENBENCH_USER_DATA_DIR: '/elsewhere' })).toBe('/elsewhere');
  });

  it("is named as Electron names the app: package.json's productName, else its name", () => {
    expect(desktopAppName({ name: 'tokenbench' })).toBe('tokenbench');
    expect(desktopAppName({ name: 'tokenbench', productName: 'Tokenbench' })).toBe('Tokenbench');
  });
});
