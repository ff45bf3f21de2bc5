import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * Starts a code runtime worker in whichever runtime this is, as the history worker is started: the electron-vite build
 * has `out/main/code-runtime-worker.js` (its own main-build input) beside this code or one folder up (out/main/chunks);
 * source runs (tsx, vitest) load the `.ts` file through tsx's require hook.
 */
export function startCodeWorker(resourceLimits: ResourceLimits): Worker {
  // The engine's environment (credentials the user exported in its shell) is not the code's to read.
  const options = { resourceLimits, env: {} };
  const bundled = [join(__dirname, 'code-runtime-worker.js'), join(__dirname, '..', 'code-runtime-worker.js')].find(existsSync);
  if (bundled) return new Worker(bundled, options);
  return new Worker(join(__dirname, 'code-runtime-worker.ts'), { ...options, execArgv: ['--require', require.resolve('tsx/cjs')] });
}
