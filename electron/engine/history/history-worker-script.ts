import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { HistoryWorkerData } from './history-messages';

/**
 * Starts the history worker in whichever runtime this is. The electron-vite build has `out/main/history-worker.js`
 * (its own main-build input), and this code sits in out/main or, shared by several entries, in out/main/chunks.
 * Source runs (tsx, vitest) have only the `.ts` file, which a worker can load only with tsx's require hook, resolved
 * here so that it works from any cwd.
 */
export function startHistoryWorker(workerData: HistoryWorkerData): Worker {
  const bundled = [join(__dirname, 'history-worker.js'), join(__dirname, '..', 'history-worker.js')].find(existsSync);
  if (bundled) return new Worker(bundled, { workerData });
  return new Worker(join(__dirname, 'history-worker.ts'), { workerData, execArgv: ['--require', require.resolve('tsx/cjs')] });
}
