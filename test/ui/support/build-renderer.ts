import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { TEST_BUILT_WORKERS_ENV } from '../../support/built-workers';
import { ROOT } from './paths';

/** Playwright global setup: the e2e tests drive the real build (`out/`), so make it from the current sources. */
export default function buildRenderer(): void {
  // `npm test` has just built these sources and says where (scripts/run-tests.mjs): the one build serves both runners.
  if (process.env[TEST_BUILT_WORKERS_ENV]) return;
  const result = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error(`electron-vite build failed (exit ${result.status ?? result.signal})`);
  // The tests' engines run from source; their worker threads can load this build of the same sources.
  process.env[TEST_BUILT_WORKERS_ENV] = join(ROOT, 'out', 'main');
}
