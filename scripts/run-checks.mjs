#!/usr/bin/env node
// `npm run check`, and the first phase of `npm test`: the house's rules as tools (types, ESLint, stylelint, imports) and
// the Electron audit, each an npm script of its own. They run side by side and report in a fixed order, a tool's output
// shown only when it failed. Exits non-zero when any check failed.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const checks = [
  { name: 'types', script: 'typecheck' },
  { name: 'lint', script: 'lint' },
  { name: 'styles', script: 'lint:css' },
  { name: 'dependency rules', script: 'check:deps' },
  { name: 'Electron audit', script: 'audit:electron' },
];

/** Runs one npm script with its output captured; resolves with whether it passed, its output and its time. */
function runCheck({ name, script }) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const done = (passed) => resolve({ name, script, passed, output: output.trim(), seconds: (performance.now() - started) / 1000 });
    child.on('error', (error) => {
      output += `\n${error.message}`;
      done(false);
    });
    child.on('close', (code) => done(code === 0));
  });
}

/** Runs every check and prints one line each; each counts as one passed or failed item in `npm test`'s closing line. */
export async function runChecks() {
  console.log(`\n=== checks: ${checks.map((check) => `npm run ${check.script}`).join(', ')} ===`);
  const results = await Promise.all(checks.map(runCheck));
  for (const result of results) {
    console.log(`${result.passed ? ' ✓' : ' ✗'} ${result.name} (npm run ${result.script}) ${result.seconds.toFixed(1)} s`);
    if (!result.passed) console.log(`${result.output.replace(/^/gm, '   ')}\n`);
  }
  const failedNames = results.filter((result) => !result.passed).map((result) => `check: ${result.name} (npm run ${result.script})`);
  return { passed: results.length - failedNames.length, failed: failedNames.length, skipped: 0, failedNames };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { passed, failed } = await runChecks();
  console.log(`\n${passed} passed, ${failed} failed`);
  process.exit(failed > 0 ? 1 : 0);
}
