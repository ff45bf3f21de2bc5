/**
 * The app's start as a user waits for it, each build beside the others (the previous commit's by default, built apart
 * by git-ref-build.ts), in turn, the order flipped every round:
 * - `npm start -- --browser`: from the command to its workbench link printed, and to a Chromium page opened at that
 *   link showing the engine live. The build is excluded: an untimed start of each build comes first, which builds
 *   what is missing, so every timed start finds its build current;
 * - the engine's own start: the built `serve` from its process's start to "serving", on a new vault and on one that
 *   exists;
 * - the desktop app, where an Electron binary exists: from its launch to its window showing the engine live.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { _electron, type Browser, type Page } from '@playwright/test';
import { REPO_ROOT } from './child-process';
import { buildGitRef } from './git-ref-build';
import { browserSuiteResult, launchChromium, median, round } from './page-measures';
import type { SuiteResult, Table } from './report';
import { BUILT_CLI, startTokenbench } from './servers';

export interface StartBenchOptions {
  /** Timed starts of each kind per build. */
  rounds: number;
  /** Git refs to measure beside this build; none given: the previous commit. */
  baselineRefs: string[];
  log(line: string): void;
}

interface Build {
  name: string;
  dir: string;
  /** Whether its `npm start` has a browser mode (commits before it have none). */
  browserMode: boolean;
}

const WORKBENCH_LINK = /^Workbench: (http:\/\/\S+)$/m;

/** The workbench shows the engine live: what a user waits for. */
const live = (page: Page) => page.getByRole('status', { name: 'Connection' }).filter({ hasText: /^live$/ }).waitFor({ timeout: 30_000 });

/**
 * One `npm start -- --browser` in the build's folder, on the profile `profile`: milliseconds to the link printed and
 * to the page live, then a Ctrl-C (to its whole process group, as a terminal sends it) and the wait for its end.
 */
async function npmStartOnce(build: Build, profile: string, browser: Browser): Promise<{ link: number; live: number }> {
  const started = performance.now();
  const child = spawn('npm', ['start', '--', '--browser'], {
    cwd: build.dir,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TOKENBENCH_USER_DATA_DIR: profile, TOKENBENCH_PORT: '0', BROWSER: 'none' },
  });
  const ended = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    const { link, at } = await new Promise<{ link: string; at: number }>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const found = WORKBENCH_LINK.exec(output);
        if (found) resolve({ link: found[1], at: performance.now() });
      });
      void ended.then(() => reject(new Error(`npm start ended before it printed its link:\n${output}`)));
    });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(link);
      await live(page);
      return { link: at - started, live: performance.now() - started };
    } finally {
      await context.close();
    }
  } finally {
    process.kill(-child.pid!, 'SIGINT');
    await ended;
  }
}

/** The built `serve` of a build, from spawn to "serving", on `dataDir`; stopped after. */
async function serveOnce(build: Build, dataDir: string): Promise<number> {
  const started = performance.now();
  const service = await startTokenbench(dataDir, { cli: join(build.dir, BUILT_CLI) });
  const took = performance.now() - started;
  await service.stop();
  return took;
}

/** A bare Node process to its first line of output: what any start costs this machine now, for reading the rest. */
function bareNodeOnce(): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, ['-e', 'process.stdout.write("ready\\n")'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve(performance.now() - started));
    child.once('exit', (code) => reject(new Error(`a bare node exited with ${code} before it wrote`)));
  });
}

/** The Electron binary `npm start` downloaded, if it did (as test/ui/desktop-shell.e2e.ts finds it). */
function electronBinary(): string | null {
  const pathFile = join(REPO_ROOT, 'node_modules', 'electron', 'path.txt');
  if (!existsSync(pathFile)) return null;
  const binary = join(REPO_ROOT, 'node_modules', 'electron', 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : null;
}

/** The desktop app of a build, from its launch to its window showing the engine live; closed after. */
async function desktopOnce(binary: string, build: Build, profile: string): Promise<number> {
  const started = performance.now();
  const app = await _electron.launch({
    executablePath: binary,
    args: [build.dir],
    env: { ...process.env, TOKENBENCH_USER_DATA_DIR: profile, TOKENBENCH_PORT: '0', TOKENBENCH_NATIVE_BINDING: join(REPO_ROOT, '.electron-native', 'better_sqlite3.node') },
  });
  try {
    await live(await app.firstWindow());
    return performance.now() - started;
  } finally {
    await app.close();
  }
}

const spread = (runs: number[]) => [round(median(runs)), round(Math.max(...runs))];

export async function runStartBench(options: StartBenchOptions): Promise<SuiteResult> {
  const refs = options.baselineRefs.length > 0 ? options.baselineRefs : ['HEAD~1'];
  const builds: Build[] = [
    ...refs.map((ref) => {
      const { commit, dir } = buildGitRef(ref, options.log);
      return { name: `${ref} (${commit})`, dir, browserMode: existsSync(join(dir, 'electron', 'main', 'browser-mode.ts')) };
    }),
    { name: 'this build', dir: REPO_ROOT, browserMode: true },
  ];
  const scratch = mkdtempSync(join(tmpdir(), 'tokenbench-start-bench-'));
  const folder = (build: Build, what: string) => join(scratch, `${builds.indexOf(build)}-${what}`);
  const electron = electronBinary();
  const runs = new Map<string, number[]>();
  const record = (key: string, ms: number) => runs.set(key, [...(runs.get(key) ?? []), ms]);
  const browser = await launchChromium();
  try {
    // Untimed: each build's first browser start builds what it misses and makes its vault; the vaults for `serve`.
    for (const build of builds) {
      if (build.browserMode) await npmStartOnce(build, folder(build, 'profile'), browser);
      await serveOnce(build, folder(build, 'vault'));
    }
    for (let round = 0; round < options.rounds; round++) {
      options.log(`start: round ${round + 1} of ${options.rounds}`);
      const order = round % 2 === 0 ? builds : [...builds].reverse();
      for (const build of order) {
        if (build.browserMode) {
          const { link, live: shown } = await npmStartOnce(build, folder(build, 'profile'), browser);
          record(`link|${build.name}`, link);
          record(`live|${build.name}`, shown);
        }
        record(`new|${build.name}`, await serveOnce(build, folder(build, `new-${round}`)));
        record(`existing|${build.name}`, await serveOnce(build, folder(build, 'vault')));
        if (electron) record(`desktop|${build.name}`, await desktopOnce(electron, build, folder(build, 'desktop')));
      }
      record('bare', await bareNodeOnce());
    }
  } finally {
    await browser.close();
    rmSync(scratch, { recursive: true, force: true });
  }

  const ms = (key: string) => (runs.has(key) ? spread(runs.get(key)!) : ['not measured', '']);
  const tables: Table[] = [
    {
      title: `npm start -- --browser to a live workbench (build excluded; ${options.rounds} starts each, builds in turn)`,
      columns: ['build', 'link printed ms (median)', '(slowest)', 'page live ms (median)', '(slowest)'],
      rows: builds.map((build) =>
        build.browserMode ? [build.name, ...ms(`link|${build.name}`), ...ms(`live|${build.name}`)] : [build.name, 'no browser mode in this commit', '', '', ''],
      ),
    },
    {
      title: `The engine's own start: serve to "serving" (${options.rounds} starts each, builds in turn)`,
      columns: ['vault', 'build', 'ms (median)', '(slowest)'],
      rows: [
        ...(['new', 'existing'] as const).flatMap((vault) => builds.map((build) => [vault, build.name, ...ms(`${vault}|${build.name}`)])),
        ['', 'a bare `node -e` to its first line', ...ms('bare')],
      ],
    },
  ];
  if (electron) {
    tables.push({
      title: `The desktop app: launch to a live window (build excluded; ${options.rounds} starts each)`,
      columns: ['build', 'ms (median)', '(slowest)'],
      rows: builds.map((build) => [build.name, ...ms(`desktop|${build.name}`)]),
    });
  }
  return browserSuiteResult(
    'start',
    "The app's start",
    tables,
    [
      'npm start: forced into browser mode (--browser), so no Electron probe is timed; from spawning `npm start` to its `Workbench:` line, and to a new Chromium context opened at that link showing `live`. Its build is excluded: an untimed start of each build comes first and builds what is missing.',
      'Each stop is a Ctrl-C to the whole process group; the next start waits for it.',
      'serve: the built CLI (out/main/serve.js) with the engine\'s Node flags, --port 0 --echo-port 0; "new" is an empty data folder each time, "existing" the same vault every time.',
      electron
        ? 'Desktop: the Electron binary in node_modules, launched by Playwright on the build\'s folder, to its window showing `live`.'
        : 'Desktop: skipped, no Electron binary here (node_modules/electron/path.txt or its dist/ is missing; `npm start` downloads it where there is internet).',
    ],
    { runs: Object.fromEntries(runs) },
  );
}
