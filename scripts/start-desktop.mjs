#!/usr/bin/env node
// `npm start`: builds and launches the Electron desktop app. With --prepare (`npm run dist`) it stops after the build.
//
// The desktop shell needs two things npm ci does not provide, and both come from the internet:
//   1. the Electron binary: electron >= 42 has no install script and downloads it on first run;
//   2. better-sqlite3 built for Electron's ABI (node_modules holds the Node build, which tests and `serve` use):
//      a prebuilt download, else a compile against Electron's headers.
// Without internet it stops at once and says so, rather than after the downloaders' retries.
import './supported-node.mjs';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

function fail(problem) {
  console.error(`\nnpm start: ${problem}

The desktop shell needs the Electron binary (downloaded on first run) and an Electron build of better-sqlite3,
so its first start needs internet access. Without them, run the engine headless and use the browser workbench:
  npm run build
  npm run serve       then open the "Workbench:" URL it prints
`);
  process.exit(1);
}

/** This process's environment without the named variables (case-insensitive, as npm's config names vary). */
function envWithout(...names) {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !names.includes(name.toLowerCase())));
}

function run(label, command, args, options = {}) {
  console.log(`> ${label}`);
  return spawnSync(command, args, { stdio: 'inherit', ...options }).status === 0;
}

function electronBinary() {
  const pathFile = join(electronDir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  const binary = join(electronDir, 'dist', readFileSync(pathFile, 'utf8').trim());
  return existsSync(binary) ? binary : null;
}

/** A quick probe, so an offline machine fails in seconds rather than after the downloader's retries. */
async function reachable(url) {
  try {
    await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(5000) });
    return true;
  } catch {
    return false;
  }
}

async function ensureElectron() {
  const present = electronBinary();
  if (present) return present;
  // @electron/get downloads from GitHub releases unless a mirror is configured.
  const host = process.env.ELECTRON_MIRROR ?? 'https://github.com/electron/electron/releases/';
  if (!(await reachable(host))) fail(`the Electron ${electronVersion} binary is not installed, and ${host} cannot be reached to download it.`);
  if (!run(`downloading Electron ${electronVersion}`, process.execPath, [join(electronDir, 'install.js')])) {
    fail(`downloading the Electron ${electronVersion} binary failed (see above).`);
  }
  return electronBinary() ?? fail('the Electron download finished but its binary is still missing.');
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
    if (!compiled || !existsSync(built)) fail('could not get better-sqlite3 built for Electron (no prebuilt download, and compiling failed or node-gyp was not found; run this through `npm start`).');
    mkdirSync(nativeDir, { recursive: true });
    copyFileSync(built, nativeBinding);
    writeFileSync(nativeStamp, electronVersion);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const binary = await ensureElectron();
await ensureNativeBinding();
if (!run('building main, preload and renderer', process.execPath, [join(modules, 'electron-vite', 'bin', 'electron-vite.js'), 'build'], { cwd: root })) {
  fail('the build failed (see above).');
}
if (process.argv.includes('--prepare')) process.exit(0);
// ELECTRON_RUN_AS_NODE (left set by some Electron tools) would make the binary behave as plain Node.
// --js-flags reach the main process, which runs the engine, only when given at start: electron/cli/engine-node-flags.ts
// says which and why.
const app = spawn(binary, ['--js-flags=--initial-old-space-size=96', root], { stdio: 'inherit', env: { ...envWithout('electron_run_as_node'), TOKENBENCH_NATIVE_BINDING: nativeBinding } });
app.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => app.kill(signal));
