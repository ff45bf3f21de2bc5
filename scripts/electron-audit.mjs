#!/usr/bin/env node
// `npm run audit:electron`, one of the house checks: Electronegativity over the main process and preload
// (electron/) and over the renderer (renderer/), each also written as the tool's CSV under test-results/. Any HIGH
// finding, or a file the tool could not parse, fails the check; MEDIUM and LOW ones are printed for review.
//
// The tool's own CLI cannot read its options next to the commander 10 this tree hoists (it prints its usage and
// exits), so this calls the runner the CLI calls, with the same options. The tool always tries the network (for
// translations and Electron's release list) and carries on without it; a watchdog bounds the whole run.
import { createRequire } from 'node:module';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ELECTRON_VERSION = require('electron/package.json').version;
const WATCHDOG_MS = 120_000;

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
      excludeFromScan: Object.keys(exclude),
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

async function main() {
  const watchdog = setTimeout(() => {
    console.error(`The Electron audit did not finish in ${WATCHDOG_MS / 1000} s.`);
    process.exit(1);
  }, WATCHDOG_MS);
  const reports = join(root, 'test-results');
  mkdirSync(reports, { recursive: true });
  let failed = false;
  for (const { input, exclude } of SCANS) {
    const csvPath = join(reports, `electronegativity-${input}.csv`);
    const { findings, unparsed } = await scan(join(root, input), csvPath, exclude);
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
  clearTimeout(watchdog);
  process.exit(failed ? 1 : 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
