#!/usr/bin/env node
// `npm start`: the desktop app where Electron can run; elsewhere the same app in a browser, on the same vault.
//
//   npm start -- --desktop   (or TOKENBENCH_START=desktop)   the desktop app, or an error saying why it cannot run
//   npm start -- --browser   (or TOKENBENCH_START=browser)   the workbench in a browser, without Electron
//   npm start -- --prepare   (`npm run dist`)                 prepare and build the desktop app, then stop
//
// The desktop shell needs two things npm ci does not provide, and both come from the internet:
//   1. the Electron binary: electron >= 42 has no install script and downloads it on first run;
//   2. better-sqlite3 built for Electron's ABI (node_modules holds the Node build, which tests and `serve` use):
//      a prebuilt download, else a compile against Electron's headers.
// Without internet (or without a display for the window) it says so in a line at once, rather than after the
// downloaders' retries, and runs the desktop app's engine under Node instead (out/main/browser-mode.js), building it
// first when the build is missing or older than its sources.
import './supported-node.mjs';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const modules = join(root, 'node_modules');
const electronDir = join(modules, 'electron');
const electronVersion = JSON.parse(readFileSync(join(electronDir, 'package.json'), 'utf8')).version;
// electron/main/engine-options.ts looks here too, for a plain `electron .`.
const nativeDir = join(root, '.electron-native');
const nativeBinding = join(nativeDir, 'better_sqlite3.node');
const nativeStamp = join(nativeDir, 'electron-version');
// electron/cli/engine-node-flags.ts says which and why; V8 takes them only at a process's start.
const ENGINE_NODE_FLAGS = ['--initial-old-space-size=96'];
const MODE_ENV = 'TOKENBENCH_START';
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** Why the desktop app cannot run here. */
class Unavailable extends Error {}

function usage(problem) {
  console.error(`npm start: ${problem}\nUse npm start -- --desktop or --browser (or ${MODE_ENV}=desktop or browser), or neither to let it choose.`);
  process.exit(2);
}

/** 'desktop', 'browser', or 'auto' (the desktop app where it can run), from the flags, else the environment. */
function chosenMode(args, env) {
  const unknown = args.find((arg) => !['--desktop', '--browser', '--prepare'].includes(arg));
  if (unknown) usage(`unknown option ${unknown}`);
  const modes = args.filter((arg) => arg !== '--prepare').map((arg) => arg.slice(2));
  if (args.includes('--prepare')) modes.push('desktop');
  if (new Set(modes).size > 1) usage('it runs the desktop app or the browser workbench, not both');
  if (modes.length > 0) return modes[0];
  const asked = env[MODE_ENV];
  if (!asked) return 'auto';
  if (asked !== 'desktop' && asked !== 'browser') usage(`${MODE_ENV} must be desktop or browser, not "${asked}"`);
  return asked;
}

/** This process's environment without the named variables (case-insensitive, as npm's config names vary). */
function envWithout(...names) {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !names.includes(name.toLowerCase())));
}

function run(label, command, args, options = {}) {
  console.log(`> ${label}`);
  return spawnSync(command, args, { stdio: 'inherit', ...options }).status === 0;
}

/** Electron's own package honours ELECTRON_OVERRIDE_DIST_PATH (an Electron kept elsewhere); so does this. */
function electronBinary() {
  const pathFile = join(electronDir, 'path.txt');
  const name = existsSync(pathFile) ? readFileSync(pathFile, 'utf8').trim() : null;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  if (!name && !override) return null;
  const binary = join(override ?? join(electronDir, 'dist'), name ?? 'electron');
  return existsSync(binary) ? binary : null;
}

/** A quick probe, so an offline machine gives up in seconds rather than after the downloader's retries. */
async function reachable(url) {
  try {
    await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(5000) });
    return true;
  } catch {
    return false;
  }
}

/** Electron's window needs a display: on Linux and the BSDs, an X or Wayland one (none over SSH, say). */
function ensureDisplay() {
  if (['darwin', 'win32'].includes(process.platform) || process.env.DISPLAY || process.env.WAYLAND_DISPLAY) return;
  throw new Unavailable('no display to open its window on (neither DISPLAY nor WAYLAND_DISPLAY is set)');
}

async function ensureElectron() {
  const present = electronBinary();
  if (present) return present;
  const override = process.env.ELECTRON_OVERRIDE_DIST_PATH;
  if (override) throw new Unavailable(`ELECTRON_OVERRIDE_DIST_PATH names ${override}, which holds no Electron binary`);
  // @electron/get downloads from GitHub releases unless a mirror is configured.
  const host = process.env.ELECTRON_MIRROR ?? 'https://github.com/electron/electron/releases/';
  if (!(await reachable(host))) throw new Unavailable(`the Electron ${electronVersion} binary is not installed, and ${host} cannot be reached to download it`);
  if (!run(`downloading Electron ${electronVersion}`, process.execPath, [join(electronDir, 'install.js')])) {
    throw new Unavailable(`downloading the Electron ${electronVersion} binary failed (see above)`);
  }
  const downloaded = electronBinary();
  if (!downloaded) throw new Unavailable('the Electron download finished but its binary is still missing');
  return downloaded;
}

/** better-sqlite3 for Electron's ABI, built in a copy of the package so node_modules keeps the Node build. */
async function ensureNativeBinding() {
  if (existsSync(nativeBinding) && existsSync(nativeStamp) && readFileSync(nativeStamp, 'utf8') === electronVersion) return;
  const work = mkdtempSync(join(tmpdir(), 'tokenbench-electron-sqlite-'));
  const pkg = join(work, 'better-sqlite3');
  try {
    const nodeBuild = join(modules, 'better-sqlite3', 'build');
    cpSync(join(modules, 'better-sqlite3'), pkg, { recursive: true, filter: (src) => !src.startsWith(nodeBuild) });
    const target = ['--runtime=electron', `--target=${electronVersion}`, `--arch=${process.arch}`];
    // The user's nodedir (Node's headers, for the Node build) must not leak into a build against Electron's.
    const env = envWithout('npm_config_nodedir');
    const downloaded = run('fetching a prebuilt better-sqlite3 for Electron', process.execPath, [join(modules, 'prebuild-install', 'bin.js'), ...target], {
      cwd: pkg,
      env,
    });
    // npm sets npm_config_node_gyp to its bundled node-gyp when it runs a script.
    const nodeGyp = process.env.npm_config_node_gyp;
    const compiled =
      downloaded ||
      (nodeGyp &&
        run('compiling better-sqlite3 against Electron headers', process.execPath, [nodeGyp, 'rebuild', '--release', ...target, '--dist-url=https://electronjs.org/headers'], {
          cwd: pkg,
          env,
        }));
    const built = join(pkg, 'build', 'Release', 'better_sqlite3.node');
    if (!compiled || !existsSync(built)) {
      throw new Unavailable('could not get better-sqlite3 built for Electron (no prebuilt download, and compiling failed or node-gyp was not found; run this through `npm start`)');
    }
    mkdirSync(nativeDir, { recursive: true });
    copyFileSync(built, nativeBinding);
    writeFileSync(nativeStamp, electronVersion);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function build() {
  if (!run('building main, preload and renderer', process.execPath, [join(modules, 'electron-vite', 'bin', 'electron-vite.js'), 'build'], { cwd: root })) {
    console.error('\nnpm start: the build failed (see above).');
    process.exit(1);
  }
}

/** The newest change under these paths (files, or folders walked whole), in ms. */
function newestChange(paths) {
  return Math.max(
    ...paths.flatMap((path) =>
      statSync(path).isDirectory()
        ? readdirSync(path, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => statSync(join(entry.parentPath, entry.name)).mtimeMs)
        : [statSync(path).mtimeMs],
    ),
  );
}

/** Whether out/ holds what the browser mode runs, built after its sources last changed. */
function browserBuildIsCurrent() {
  const outputs = ['out/main/browser-mode.js', 'out/main/history-worker.js', 'out/renderer/index.html'].map((path) => join(root, path));
  if (!outputs.every((path) => existsSync(path))) return false;
  const sources = ['electron', 'renderer', 'shared', 'electron.vite.config.ts', 'package-lock.json'].map((path) => join(root, path));
  return newestChange(sources) <= Math.min(...outputs.map((path) => statSync(path).mtimeMs));
}

/** Runs the app's process until it ends, passing on the signals that stop it; exits with its code. */
function runApp(command, args, env = process.env) {
  const app = spawn(command, args, { stdio: 'inherit', env });
  app.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  for (const signal of STOP_SIGNALS) process.on(signal, () => app.kill(signal));
  // npm passes a SIGTERM to its own child only: the shell that runs this script, which ends without passing it on
  // (dash runs the command as its child rather than in its place). This process is then left without its parent,
  // which stops the app too. (`exec` in the script would spare the shell, but Windows' cmd has no exec.)
  const parent = process.ppid;
  const orphaned = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(orphaned);
    app.kill('SIGTERM');
  }, 200).unref();
}

let mode = chosenMode(process.argv.slice(2), process.env);
let binary;
if (mode !== 'browser') {
  try {
    // Installers are built without a window (`npm run dist`, on CI too).
    if (!process.argv.includes('--prepare')) ensureDisplay();
    binary = await ensureElectron();
    await ensureNativeBinding();
    mode = 'desktop';
  } catch (error) {
    if (!(error instanceof Unavailable)) throw error;
    if (mode === 'desktop') {
      console.error(`\nnpm start: ${error.message}.

The desktop app needs the Electron binary (downloaded on first run) and an Electron build of better-sqlite3, so its
first start needs internet access. Without them, \`npm start -- --browser\` runs the same app in your browser.`);
      process.exit(1);
    }
    console.log(`npm start: no desktop app here (${error.message}): running the workbench in your browser instead.`);
    mode = 'browser';
  }
}

if (mode === 'desktop') {
  build();
  if (process.argv.includes('--prepare')) process.exit(0);
  // ELECTRON_RUN_AS_NODE (left set by some Electron tools) would make the binary behave as plain Node.
  // --js-flags reach the main process, which runs the engine, only when given at start.
  runApp(binary, [`--js-flags=${ENGINE_NODE_FLAGS.join(' ')}`, root], { ...envWithout('electron_run_as_node'), TOKENBENCH_NATIVE_BINDING: nativeBinding });
} else {
  if (browserBuildIsCurrent()) console.log('> the build is up to date');
  else build();
  runApp(process.execPath, [...ENGINE_NODE_FLAGS, join(root, 'out', 'main', 'browser-mode.js')]);
}
