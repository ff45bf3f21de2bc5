#!/usr/bin/env node
// `npm test`: the house's checks (tsc, ESLint, dependency-cruiser: scripts/run-checks.mjs), the app's build, then
// vitest, then Playwright, each with its normal console output and a JSON report under test-results/. Ends with the one
// line CI reads, "N passed, N failed, N skipped", where each check and the build count as one item, and exits non-zero
// when anything failed or nothing ran. A failed check does not stop the tests.
import './supported-node.mjs';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runChecks } from './run-checks.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const reports = join(root, 'test-results');
const vitestReport = join(reports, 'vitest.json');
const playwrightReport = join(reports, 'playwright.json');

function run(label, args, env = {}) {
  console.log(`\n=== ${label} ===`);
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status ?? 1;
}

function readReport(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

/** Counts from vitest's JSON; a file that failed to load has no failed test, so it counts as one failure itself. */
function vitestCounts(report) {
  const brokenFiles = report.testResults.filter((file) => file.status === 'failed' && !file.assertionResults.some((t) => t.status === 'failed'));
  return {
    passed: report.numPassedTests,
    failed: report.numFailedTests + brokenFiles.length,
    skipped: report.numPendingTests + report.numTodoTests,
  };
}

/** Counts from Playwright's JSON; errors outside any test (config, global setup) count as failures. */
function playwrightCounts(report) {
  const { expected, unexpected, flaky, skipped } = report.stats;
  return { passed: expected + flaky, failed: unexpected + (report.errors?.length ?? 0), skipped };
}

/** A failure's message without colours or library frames, and where in our code it was: enough to say what broke. */
function why(message) {
  const lines = (message ?? '').replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '').split('\n').map((line) => line.trim()).filter(Boolean);
  const said = lines.filter((line) => !line.startsWith('at ')).slice(0, 6);
  const where = lines.find((line) => line.startsWith('at ') && !line.includes('node_modules'));
  return [...said, ...(where ? [where] : [])].map((line) => `\n      ${line.slice(0, 240)}`).join('');
}

/** Failed vitest tests by file and full name, each with why; a file that failed to load is named with its error. */
function vitestFailures(report) {
  return report.testResults.flatMap((file) => {
    const name = relative(root, file.name);
    const failedTests = file.assertionResults.filter((t) => t.status === 'failed');
    if (file.status === 'failed' && failedTests.length === 0) return [`vitest: ${name}: ${(file.message ?? 'failed to load').split('\n')[0]}`];
    return failedTests.map((t) => `vitest: ${name} › ${t.fullName}${why(t.failureMessages?.[0])}`);
  });
}

/** Failed and flaky Playwright tests with their project, file, title and why. */
function playwrightFailures(report) {
  const specs = (suite) => [...(suite.specs ?? []), ...(suite.suites ?? []).flatMap(specs)];
  return [
    ...report.suites.flatMap(specs).flatMap((spec) =>
      spec.tests
        .filter((test) => test.status === 'unexpected' || test.status === 'flaky')
        .map(
          (test) =>
            `playwright${test.status === 'flaky' ? ' (flaky, passed on retry)' : ''}: [${test.projectName}] ${spec.file}:${spec.line} › ${spec.title}${why(test.results?.find((r) => r.error)?.error?.message)}`,
        ),
    ),
    ...(report.errors ?? []).map((error) => `playwright: ${(error.message ?? 'error outside any test').split('\n')[0]}`),
  ];
}

/** Skipped e2e tests with their reasons (the list reporter shows no reason), e.g. the Electron test without a binary. */
function playwrightSkips(report) {
  const specs = (suite) => [...(suite.specs ?? []), ...(suite.suites ?? []).flatMap(specs)];
  return report.suites.flatMap(specs).flatMap((spec) =>
    spec.tests
      .filter((test) => test.status === 'skipped')
      .map((test) => {
        const reason = test.annotations.find((a) => a.type === 'skip')?.description ?? 'no reason given';
        return `  [${test.projectName}] ${spec.title}: ${reason}`;
      }),
  );
}

/** A tool that exited non-zero must show as a failure even when its report is missing or counted none. */
function tally(name, exitCode, report, count) {
  const counts = report ? count(report) : { passed: 0, failed: 0, skipped: 0 };
  if (exitCode !== 0 && counts.failed === 0) {
    counts.failed = 1;
    console.log(`\n${name} exited with ${exitCode}${report ? '' : ' and wrote no report'}: see its output above.`);
  }
  return counts;
}

rmSync(vitestReport, { force: true });
rmSync(playwrightReport, { force: true });
mkdirSync(reports, { recursive: true });

const checkCounts = await runChecks();
// One build of these sources for both runners: Playwright drives it, and the engines both start from source load its
// history and code workers instead of compiling their TypeScript in every new worker thread (test/support/built-workers.ts).
const built = run('build', [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build']) === 0;
checkCounts[built ? 'passed' : 'failed']++;
if (!built) checkCounts.failedNames.push('build: electron-vite build failed (see its output above)');
const testEnv = built ? { TOKENBENCH_TEST_BUILT_WORKERS: join(root, 'out', 'main') } : {};
const vitestExit = run('vitest', [
  join(root, 'node_modules', 'vitest', 'vitest.mjs'),
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${relative(root, vitestReport)}`,
], testEnv);
const playwrightExit = run('playwright', [join(root, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', '--reporter=list,json'], {
  ...testEnv,
  PLAYWRIGHT_JSON_OUTPUT_FILE: playwrightReport,
});

const playwrightResults = readReport(playwrightReport);
const skips = playwrightResults ? playwrightSkips(playwrightResults) : [];
if (skips.length > 0) console.log(`\nSkipped end-to-end tests:\n${skips.join('\n')}`);

// Named again just above the closing line, so the end of a long log says what failed.
const vitestResults = readReport(vitestReport);
const failures = [
  ...checkCounts.failedNames,
  ...(vitestResults ? vitestFailures(vitestResults) : []),
  ...(playwrightResults ? playwrightFailures(playwrightResults) : []),
];
if (failures.length > 0) console.log(`\nFailed:\n${failures.map((line) => `  ${line}`).join('\n')}`);

const sum = (a, b) => ({ passed: a.passed + b.passed, failed: a.failed + b.failed, skipped: a.skipped + b.skipped });
const tests = [
  tally('vitest', vitestExit, vitestResults, vitestCounts),
  tally('playwright', playwrightExit, playwrightResults, playwrightCounts),
].reduce(sum);
const totals = sum(checkCounts, tests);

// The checks alone are not a test run: a suite that collected nothing must still fail.
const noTestRan = tests.passed + tests.failed === 0;
if (noTestRan) console.log('\nNo test ran.');
console.log(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(totals.failed > 0 || noTestRan ? 1 : 0);
