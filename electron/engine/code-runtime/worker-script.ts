import { join } from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { builtWorkerScript } from '../built-worker';

/**
 * Starts a code runtime worker in whichever runtime this is, as the history worker is started: the electron-vite build
 * has `out/main/code-runtime-worker.js` (its own main-build input) beside this code or one folder up (out/main/chunks);
 * source runs (tsx, vitest) load the `.ts` file through tsx's require hook, unless they name a build's folder.
 */
export function startCodeWorker(resourceLimits: ResourceLimits, builtWorkers?: string): Worker {
  // The engine's environment (credentials the user exported in its shell) is not the code's to read.
  const options = { resourceLimits, env: {} };
  const bundled = builtWorkerScript('code-runtime-worker', __dirname, builtWorkers);
  if (bundled) return new Worker(bundled, options);
  return new Worker(join(__dirname, 'code-runtime-worker.ts'), { ...options, execArgv: ['--require', require.resolve('tsx/cjs')] });
}
