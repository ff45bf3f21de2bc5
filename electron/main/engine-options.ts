import { join, posix, win32 } from 'node:path';
import { DEFAULT_ECHO_PORT, DEFAULT_PORT, type StartOptions } from '../engine';

/** A better-sqlite3 binary built for Electron's ABI (the one in node_modules is Node's). */
export const NATIVE_BINDING_ENV = 'TOKENBENCH_NATIVE_BINDING';
/** Where `npm start` (scripts/start.mjs) builds that binary, relative to the app folder. */
export const ELECTRON_NATIVE_BINDING = join('.electron-native', 'better_sqlite3.node');
/** Another profile folder (and so another vault): e2e tests, a second copy side by side. */
export const USER_DATA_ENV = 'TOKENBENCH_USER_DATA_DIR';
/** The API port; `0` takes a free one (the echo destination then does too). */
export const PORT_ENV = 'TOKENBENCH_PORT';

export interface DesktopEnvironment {
  env: NodeJS.ProcessEnv;
  userDataDir: string;
  appRoot: string;
  exists(path: string): boolean;
}

/**
 * The desktop app's vault and ports, whoever runs its engine: the Electron app, or `npm start` in a browser under
 * plain Node, which must open the same vault.
 */
export function desktopVaultOptions({ env, userDataDir }: Pick<DesktopEnvironment, 'env' | 'userDataDir'>): StartOptions {
  const port = env[PORT_ENV] === undefined ? DEFAULT_PORT : Number(env[PORT_ENV]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${PORT_ENV} must be a port number, got "${env[PORT_ENV]}"`);
  return { dataDir: join(userDataDir, 'vault'), port, echoPort: env[PORT_ENV] === undefined ? DEFAULT_ECHO_PORT : 0 };
}

/** How the desktop app starts its in-process engine: the vault under the profile, on the usual ports. */
export function desktopEngineOptions(environment: DesktopEnvironment): StartOptions {
  const { env, appRoot, exists } = environment;
  const built = join(appRoot, ELECTRON_NATIVE_BINDING);
  const nativeBinding = env[NATIVE_BINDING_ENV] || (exists(built) ? built : undefined);
  if (nativeBinding && !exists(nativeBinding)) throw new Error(`${NATIVE_BINDING_ENV} names a missing file: ${nativeBinding}`);
  return { ...desktopVaultOptions(environment), nativeBinding };
}

/** The app's name as Electron takes it from package.json, which names its profile folder. */
export const desktopAppName = (manifest: { name: string; productName?: string }) => manifest.productName ?? manifest.name;

export interface ProfilePlace {
  env: NodeJS.ProcessEnv;
  platform: NodeJS.Platform;
  home: string;
  appName: string;
}

/**
 * The desktop app's profile folder (which holds its vault) as Electron's `app.getPath('userData')` gives it, for a
 * process that has no Electron: the platform's application data folder, then the app's name; or the folder
 * USER_DATA_ENV names, where the app moves its profile too (electron/main/index.ts).
 */
export function desktopUserDataDir({ env, platform, home, appName }: ProfilePlace): string {
  if (env[USER_DATA_ENV]) return env[USER_DATA_ENV];
  if (platform === 'win32') return win32.join(env.APPDATA || win32.join(home, 'AppData', 'Roaming'), appName);
  if (platform === 'darwin') return posix.join(home, 'Library', 'Application Support', appName);
  return posix.join(env.XDG_CONFIG_HOME || posix.join(home, '.config'), appName);
}
