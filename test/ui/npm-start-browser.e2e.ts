import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect, test } from '@playwright/test';
import { startEngine } from '../../electron/engine';
import { desktopEngineOptions } from '../../electron/main/engine-options';
import { childrenOf, commandOf, groupAlive } from '../support/process-group';
import { callApi, filesIn } from '../support/test-engine';
import { ROOT } from './support/paths';
import { connectionState } from './support/workbench-page';

/**
 * `npm start` as a new user meets it on a machine where Electron cannot run: a fresh copy of the tracked files (no
 * build, no Electron binary: ELECTRON_OVERRIDE_DIST_PATH names an empty place, so this holds on a machine that has
 * one), node_modules linked from this checkout. The first start builds (a few seconds with electron-vite); the later
 * ones find that build current. BROWSER is a script that records its arguments, as a browser's command line shows
 * them to every local user.
 */
// Each test starts npm several times, and a start takes seconds on a busy machine.
test.describe.configure({ mode: 'serial', timeout: 120_000 });

// Made in beforeAll: Playwright also loads this file in its runner process, only to list the tests.
let copy: string;
let scratch: string;
let configHome: string;
let recorded: string;
let recorder: string;
/** Where Electron keeps the desktop app's profile on Linux: $XDG_CONFIG_HOME/<package.json name>. */
let desktopProfile: string;

test.beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'tokenbench-fresh-copy-'));
  scratch = mkdtempSync(join(tmpdir(), 'tokenbench-npm-start-'));
  [configHome, recorded, recorder] = ['config', 'browser-arguments', 'browser.sh'].map((name) => join(scratch, name));
  desktopProfile = join(configHome, 'tokenbench');
  for (const file of execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean)) {
    if (!existsSync(join(ROOT, file))) continue;
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    copyFileSync(join(ROOT, file), join(copy, file));
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  writeFileSync(recorder, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${recorded}'\n`, { mode: 0o755 });
});

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Every start, for the clean-up. */
const starts: Started[] = [];

/** `npm start -- ARGS` in the copy, in a process group of its own (a Ctrl-C signals the whole group). */
function npmStart(args: string[] = [], more: NodeJS.ProcessEnv = {}): Started {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_CONFIG_HOME: configHome,
    TOKENBENCH_PORT: '0',
    BROWSER: recorder,
    ELECTRON_OVERRIDE_DIST_PATH: join(scratch, 'no-electron-here'),
    // A desktop, so that what decides is the Electron binary, absent unless a test provides one.
    DISPLAY: ':0',
  };
  for (const name of ['TOKENBENCH_START', 'TOKENBENCH_USER_DATA_DIR', 'ELECTRON_RUN_AS_NODE']) delete env[name];
  const child = spawn('npm', ['start', '--', ...args], { cwd: copy, env: { ...env, ...more }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const started = { child, output: () => out, exited };
  starts.push(started);
  return started;
}

/** Resolves once it says it serves; an exit before that fails the test with what it printed. */
async function ready(started: Started): Promise<void> {
  let ended = false;
  void started.exited.then(() => (ended = true));
  await expect
    .poll(() => {
      if (ended && !started.output().includes('Ctrl-C stops it.')) throw new Error(`npm start ended:\n${started.output()}`);
      return started.output();
    }, { timeout: 120_000 })
    .toContain('Ctrl-C stops it.');
}

const recordedUrls = () => (existsSync(recorded) ? readFileSync(recorded, 'utf8').trim().split('\n') : []);

const groupGone = (pgid: number) => !groupAlive(pgid);

/** `node scripts/start.mjs`, under the shell npm runs the script with. */
function launcherUnder(npm: number): number {
  const [launcher] = childrenOf(npm).flatMap(childrenOf);
  expect(commandOf(launcher)).toContain('scripts/start.mjs');
  return launcher;
}

/** What a stop that was not clean leaves in the profile: SQLite's write-ahead logs, the run's record. */
const leftOver = () => filesIn(desktopProfile).filter((file) => /-(wal|shm)$/.test(file) || file.endsWith('browser-workbench.json'));

/** A start that finds no other running, up to its link. */
async function freshStart(args: string[] = [], more: NodeJS.ProcessEnv = {}): Promise<Started> {
  const started = npmStart(args, more);
  await ready(started);
  expect(started.output()).not.toContain('already running');
  return started;
}

/** A SIGTERM to the launcher itself (what a process manager that knows it sends): npm ends with 0. */
async function stopByLauncher(started: Started): Promise<void> {
  process.kill(launcherUnder(started.child.pid!), 'SIGTERM');
  expect(await started.exited).toBe(0);
  expect(started.output()).toContain('SIGTERM: stopping');
  await expect.poll(() => groupGone(started.child.pid!)).toBe(true);
}

let first: Started;
let privateKey: string;
let tokenId: string;

test.afterAll(() => {
  // A test that failed half-way may leave a start running: its whole group goes, then the folders.
  for (const started of starts) if (!groupGone(started.child.pid!)) process.kill(-started.child.pid!, 'SIGKILL');
  for (const dir of [copy, scratch]) rmSync(dir, { recursive: true, force: true });
});

test('without Electron, npm start says why in one line, builds, and opens a launch link that holds no session', async ({ page }) => {
  test.setTimeout(180_000);
  first = npmStart();
  await ready(first);
  const lines = first.output().split('\n');
  expect(lines.filter((line) => line.startsWith('npm start: no desktop app here'))).toEqual([
    `npm start: no desktop app here (ELECTRON_OVERRIDE_DIST_PATH names ${join(scratch, 'no-electron-here')}, which holds no Electron binary): running the workbench in your browser instead.`,
  ]);
  expect(lines).toContain('> building main, preload and renderer');
  expect(lines).toContain(`Vault: ${join(desktopProfile, 'vault')}`);

  await expect.poll(recordedUrls).toHaveLength(1);
  const [opened] = recordedUrls();
  expect(opened).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/ui\/#launch=[A-Za-z0-9_-]{43}$/);
  expect((await fetch(opened)).status).toBe(200);

  await page.goto(opened);
  await expect(connectionState(page)).toHaveText('live');
  const session = (await page.evaluate('sessionStorage.getItem("tokenbench.session")')) as string;
  expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(opened).not.toContain(session);
  expect(opened).not.toContain('session');
  expect(first.output()).not.toContain(session);
  // The terminal's link is another one, still good once the browser used its own.
  const printed = /^Workbench: (\S+)$/m.exec(first.output())![1];
  expect(printed).not.toBe(opened);
  const fromTerminal = await page.context().newPage();
  await fromTerminal.goto(printed);
  await expect(connectionState(fromTerminal)).toHaveText('live');
  await fromTerminal.close();

  // A new vault: its first keys are in the workbench's welcome, as in the desktop app, not in the terminal.
  const welcome = page.getByRole('dialog', { name: 'Welcome to Tokenbench' });
  privateKey = /key_local_[A-Za-z0-9_-]+/.exec(await welcome.getByRole('group', { name: /^Private key/ }).innerText())![0];
  expect(first.output()).not.toContain(privateKey);
  const created = await callApi(new URL(opened).origin, 'POST', '/tokens', { key: privateKey, body: { type: 'token', data: 'made through npm start' } });
  expect(created.status).toBe(201);
  tokenId = created.body.id;
});

test('a second npm start says the first is running and opens a new link to it', async ({ page }) => {
  const second = npmStart();
  expect(await second.exited).toBe(0);
  expect(second.output()).toMatch(/Tokenbench is already running for this vault \(process \d+, http:\/\/127\.0\.0\.1:\d+\)/);
  expect(second.output()).toContain('the build is up to date');
  await expect.poll(recordedUrls).toHaveLength(2);
  const [before, now] = recordedUrls();
  expect(new URL(now).origin).toBe(new URL(before).origin);
  expect(now).not.toBe(before);
  // The terminal's link is another one, still good once the browser used its own.
  const printed = /^Workbench: (\S+)$/m.exec(second.output())![1];
  expect(printed).toMatch(/#launch=/);
  expect(printed).not.toBe(now);
  await page.goto(now);
  await expect(connectionState(page)).toHaveText('live');
});

test("SIGTERM to npm stops it cleanly, and the desktop app's engine options open the same vault", async () => {
  // npm passes the signal to the shell that runs the script, which ends at once and never passes it on; npm then ends
  // as its shell did, by SIGTERM. The launcher, left without its parent, stops the engine.
  process.kill(first.child.pid!, 'SIGTERM');
  await first.exited;
  await expect.poll(() => groupGone(first.child.pid!)).toBe(true);
  expect(first.output()).toContain('SIGTERM: stopping');
  // The vault was closed: SQLite folds its write-ahead logs back in on a clean close, and the run's record is gone.
  expect(leftOver()).toEqual([]);

  const desktop = await startEngine({
    ...desktopEngineOptions({ env: { TOKENBENCH_PORT: '0' }, userDataDir: desktopProfile, appRoot: copy, exists: existsSync }),
    log: () => undefined,
  });
  try {
    const read = await callApi(desktop.url, 'GET', `/tokens/${tokenId}`, { key: privateKey });
    expect(read.status).toBe(200);
  } finally {
    await desktop.stop();
  }
});

test('Ctrl-C stops it cleanly too, it starts again after, and a SIGTERM to the launcher ends npm with 0', async () => {
  const again = npmStart();
  await ready(again);
  expect(again.output()).toContain('the build is up to date');
  // The terminal signals the whole foreground group: npm, its shell, the launcher and the engine at once. The shell
  // ends by it, and so npm; the engine stops as it should, and leaves nothing behind.
  process.kill(-again.child.pid!, 'SIGINT');
  await again.exited;
  await expect.poll(() => groupGone(again.child.pid!)).toBe(true);
  expect(again.output()).toContain('SIGINT: stopping');
  expect(leftOver()).toEqual([]);

  await stopByLauncher(await freshStart());
});

test('a start killed outright does not stop the next one; a port held by another program is named', async () => {
  const killed = npmStart();
  await ready(killed);
  process.kill(-killed.child.pid!, 'SIGKILL');
  await killed.exited;
  await expect.poll(() => groupGone(killed.child.pid!)).toBe(true);
  expect(existsSync(join(desktopProfile, 'browser-workbench.json'))).toBe(true);

  await stopByLauncher(await freshStart());

  const holder = createServer().listen(0, '127.0.0.1');
  await once(holder, 'listening');
  try {
    const port = (holder.address() as AddressInfo).port;
    const refused = npmStart([], { TOKENBENCH_PORT: String(port) });
    expect(await refused.exited).toBe(1);
    expect(refused.output()).toContain(
      `npm start: Tokenbench could not start: port ${port} is in use (by the Tokenbench desktop app, \`tokenbench serve\` or another program): stop it, or start on free ports with TOKENBENCH_PORT=0`,
    );
    expect(leftOver()).toEqual([]);
  } finally {
    holder.close();
  }
});

test('a flag or TOKENBENCH_START forces either mode', async () => {
  // The desktop app cannot run here: forced, it says why and what runs instead, and stops.
  for (const forced of [npmStart(['--desktop']), npmStart([], { TOKENBENCH_START: 'desktop' })]) {
    expect(await forced.exited).toBe(1);
    expect(forced.output()).toContain(`npm start: ELECTRON_OVERRIDE_DIST_PATH names ${join(scratch, 'no-electron-here')}, which holds no Electron binary.`);
    expect(forced.output()).toContain('`npm start -- --browser` runs the same app in your browser');
    expect(forced.output()).not.toContain('Tokenbench is serving');
  }
  for (const [args, more] of [[['--both']], [['--desktop', '--browser']], [[], { TOKENBENCH_START: 'window' }]] as const) {
    const wrong = npmStart([...args], more);
    expect(await wrong.exited).toBe(2);
    expect(wrong.output()).toContain('Use npm start -- --desktop or --browser (or TOKENBENCH_START=desktop or browser)');
  }

  // An Electron binary, and better-sqlite3 built for it, as `npm start` leaves them on a machine with internet:
  // left to choose, it runs the desktop app; asked for the browser, it does not.
  const electron = join(scratch, 'electron-dist');
  const launched = join(scratch, 'electron-arguments');
  mkdirSync(electron);
  writeFileSync(join(electron, 'electron'), `#!/bin/sh\nprintf '%s %s\\n' "$TOKENBENCH_NATIVE_BINDING" "$*" >> '${launched}'\n`, { mode: 0o755 });
  mkdirSync(join(copy, '.electron-native'));
  writeFileSync(join(copy, '.electron-native', 'better_sqlite3.node'), 'stands in for the Electron build');
  writeFileSync(join(copy, '.electron-native', 'electron-version'), JSON.parse(readFileSync(join(ROOT, 'node_modules', 'electron', 'package.json'), 'utf8')).version);
  try {
    const desktop = npmStart([], { ELECTRON_OVERRIDE_DIST_PATH: electron });
    expect(await desktop.exited).toBe(0);
    expect(desktop.output()).not.toContain('no desktop app here');
    expect(readFileSync(launched, 'utf8')).toBe(`${join(copy, '.electron-native', 'better_sqlite3.node')} --js-flags=--initial-old-space-size=96 ${copy}\n`);

    // Without a display (a terminal over SSH) Electron has nowhere to open its window: the browser, saying why.
    const headless = await freshStart([], { ELECTRON_OVERRIDE_DIST_PATH: electron, DISPLAY: '', WAYLAND_DISPLAY: '' });
    expect(headless.output()).toContain(
      'npm start: no desktop app here (no display to open its window on (neither DISPLAY nor WAYLAND_DISPLAY is set)): running the workbench in your browser instead.',
    );
    await stopByLauncher(headless);

    for (const [args, more] of [[['--browser']], [[], { TOKENBENCH_START: 'browser' }]] as const) {
      const browser = await freshStart([...args], { ELECTRON_OVERRIDE_DIST_PATH: electron, ...more });
      expect(browser.output()).not.toContain('no desktop app here');
      await stopByLauncher(browser);
    }
    expect(readFileSync(launched, 'utf8').trim().split('\n')).toHaveLength(1);
  } finally {
    rmSync(join(copy, '.electron-native'), { recursive: true, force: true });
  }
});
