import { join } from 'node:path';
import { DEFAULT_ECHO_PORT, DEFAULT_PORT, type StartOptions } from '../engine';

/** A better-sqlite3 binary built for Electron's ABI (the one in node_modules is Node's). */
export const NATIVE_BINDING_ENV = 'TOKENBENCH_NATIVE_BINDING';
/** Where `npm start` (scripts/start-desktop.mjs) builds that binary, relative to the app folder. */
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

/** How the desktop app starts its in-process engine: the vault under the profile, on the usual ports. */
export function desktopEngineOptions({ env, userDataDir, appRoot, exists }: DesktopEnvironment): StartOptions {
  const built = join(appRoot, ELECTRON_NATIVE_BINDING);
  const nativeBinding = env[NATIVE_BINDING_ENV] || (exists(built) ? built : undefined);
  if (nativeBinding && !exists(nativeBinding)) throw new Error(`${NATIVE_BINDING_ENV} names a missing file: ${nativeBinding}`);
  const port = env[PORT_ENV] === undefined ? DEFAULT_PORT : Number(env[PORT_ENV]);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${PORT_ENV} must be a port number, got "${env[PORT_ENV]}"`);
  return {
    dataDir: join(userDataDir, 'vault'),
    nativeBinding,
    port,
    echoPort: env[PORT_ENV] === undefined ? DEFAULT_ECHO_PORT : 0,
  };
}
