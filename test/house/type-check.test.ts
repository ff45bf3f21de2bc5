// The type check runs with the project's compiler options: tsc must reject the fixture under fixtures/tsc/, whose
// tsconfig.json extends the project's and whose errors exist only under the project's options.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

// A whole compiler run with Node's and the DOM's types: seconds on an idle machine, much more on a busy shared one.
const timeout = 120_000;

it('reports a possibly undefined value used as a string and an unused variable', () => {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const { stdout, status } = spawnSync(process.execPath, [tsc, '--noEmit', '-p', join(import.meta.dirname, 'fixtures', 'tsc')], {
    cwd: root,
    encoding: 'utf8',
  });
  expect(stdout).toContain("possibly-missing.ts(5,10): error TS2532: Object is possibly 'undefined'.");
  expect(stdout).toContain("possibly-missing.ts(4,9): error TS6133: 'fallback' is declared but its value is never read.");
  expect(status).not.toBe(0);
}, timeout);
