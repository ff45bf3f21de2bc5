import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { builtWorkerScript } from '../built-worker';
import type { HistoryWorkerData } from './history-messages';

/**
 * Starts the history worker in whichever runtime this is. The electron-vite build has `out/main/history-worker.js`
 * (its own main-build input), and this code sits in out/main or, shared by several entries, in out/main/chunks.
 * Source runs (tsx, vitest) have only the `.ts` file, which a worker can load only with tsx's require hook, resolved
 * here so that it works from any cwd. A source run that has a build of the same sources may name its folder
 * (`builtWorkers`): compiling the worker's TypeScript at every start costs more than the rest of an engine's start.
 */
export function startHistoryWorker(workerData: HistoryWorkerData, builtWorkers?: string): Worker {
  const bundled = builtWorkerScript('history-worker', __dirname, builtWorkers);
  if (bundled) return new Worker(bundled, { workerData });
  return new Worker(join(__dirname, 'history-worker.ts'), { workerData, execArgv: ['--require', require.resolve('tsx/cjs')] });
}
