#!/usr/bin/env node
// `npm run audit:electron`, one of the house checks: Electronegativity over the main process and preload
// (electron/) and over the renderer (renderer/), each also written as the tool's CSV under test-results/. Any HIGH
// finding, or a file the tool could not parse, fails the check; MEDIUM and LOW ones are printed for review.
//
// The tool's own CLI cannot read its options next to the commander 10 this tree hoists (it prints its usage and
// exits), so this calls the runner the CLI calls, with the same options. The audit never tries the network, so its
// result depends on the code alone (see keepToolOffline); a watchdog bounds the whole run.
import { createRequire, Module } from 'node:module';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ELECTRON_VERSION = require('electron/package.json').version;
const WATCHDOG_MS = 120_000;

/**
 * The tool fetches its translations and Electron's release list with `got`, whose retry after a failed connection can
 * throw outside any promise on Node 24 and end the run. Before the tool loads, its `got` is replaced by one that fails
 * at once: the tool takes that as no connectivity and keeps the English texts it ships.
 */
function keepToolOffline() {
  const gotPath = createRequire(require.resolve('@doyensec/electronegativity/dist/runner.js')).resolve('got');
  const offline = () => Promise.reject(new Error('the Electron audit runs offline'));
  offline.head = offline;
  const module = new Module(gotPath);
  Object.assign(module, { filename: gotPath, loaded: true, exports: offline });
  require.cache[gotPath] = module;
}
keepToolOffline();

/**
 * Left out of every scan: it compares Electron with its release list, fetched from GitHub or left in the temp folder
 * by an earlier online run, so its result would depend on the network and the machine rather than the code.
 */
const NETWORK_CHECKS = {
  AvailableSecurityFixesGlobalCheck: 'Electron is a pinned dependency, upgraded with the others (docs/development.md)',
};

/**
 * Checks left out of a scan (by the tool's class name), each with why. Inline suppressions (`eng-disable` beside the
 * code) are preferred; these are global checks, which have no line to annotate.
 */
export const SCANS = [
  {
    input: 'electron',
    exclude: {
      CSPGlobalCheck: 'the CSP is the renderer\'s (added to index.html at build time, sent as a header by the engine): test/ui/workbench-browser.e2e.ts',
    },
  },
  {
    input: 'renderer',
    exclude: {
      LimitNavigationGlobalCheck: 'navigation limits live in the main process, scanned above; tested in test/shell/window-and-navigation.test.ts',
      PermissionRequestHandlerGlobalCheck: 'the permission handler lives in the main process, scanned with -i electron',
      CSPGlobalCheck: 'the CSP is added at build time, tested by test/ui/workbench-browser.e2e.ts',
    },
  },
];

/**
 * Runs one scan of `input` (a folder or file), which also writes the tool's CSV to `csvPath` for people to read.
 * Resolves with the findings the runner returns (the rows of that CSV) and the files it could not parse: the gate
 * counts those, because the tool writes its CSV without waiting (the header and the rows in two racing writes).
 */
export async function scan(input, csvPath, exclude = {}) {
  const run = require('@doyensec/electronegativity/dist/runner.js');
  const result = await run(
    {
      input,
      output: csvPath,
      isSarif: false,
      customScan: [],
      excludeFromScan: Object.keys({ ...NETWORK_CHECKS, ...exclude }),
      isRelative: true,
      isVerbose: false,
      parserPlugins: [],
      electronVersionOverride: ELECTRON_VERSION,
    },
    false,
  );
  const findings = result.issues.map((issue) => ({
    issue: issue.id,
    severity: issue.severity.name,
    place: `${issue.file}:${issue.location.line}:${issue.location.column}`,
    sample: issue.sample ?? '',
  }));
  return { findings, unparsed: result.errors.filter((error) => !error.tolerable) };
}

/**
 * Audits the Electron project in `dir` (its electron/ and renderer/), printing each finding, and writes the tool's
 * CSVs under its test-results/. Resolves with whether the gate fails: any HIGH finding, or a file the tool could not
 * parse.
 */
async function audit(dir) {
  const reports = join(dir, 'test-results');
  mkdirSync(reports, { recursive: true });
  let failed = false;
  for (const { input, exclude } of SCANS) {
    const csvPath = join(reports, `electronegativity-${input}.csv`);
    const { findings, unparsed } = await scan(join(dir, input), csvPath, exclude);
    for (const error of unparsed) {
      failed = true;
      console.log(`${input}: could not parse ${error.file}: ${error.message}`);
    }
    for (const finding of findings) {
      if (finding.severity === 'HIGH') failed = true;
      console.log(`${input}: ${finding.severity} ${finding.issue} ${finding.place} ${finding.sample}`);
    }
    console.log(`${input}: ${findings.filter((f) => f.severity === 'HIGH').length} HIGH, ${findings.length} findings in all (${csvPath})`);
  }
  return failed;
}

// `node scripts/electron-audit.mjs [DIR]`: DIR is the project to audit, this one by default (the gate's tests give
// another).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const watchdog = setTimeout(() => {
    console.error(`The Electron audit did not finish in ${WATCHDOG_MS / 1000} s.`);
    process.exit(1);
  }, WATCHDOG_MS);
  const failed = await audit(process.argv[2] ?? root);
  clearTimeout(watchdog);
  process.exit(failed ? 1 : 0);
}
