/**
 * `npm start` in a browser (scripts/start.mjs chooses it where Electron cannot run, or when asked): the desktop app's
 * engine on the desktop app's own vault, under plain Node, serving the built workbench, whose link it prints and
 * opens. The same vault either way, so it never imports electron (nor anything that does).
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { LAUNCH_CODE_LIFETIME_MS, startEngine, type Engine } from '../engine';
import { askForLink, recordedRun, recordRun } from './browser-run';
import { desktopAppName, desktopUserDataDir, desktopVaultOptions, PORT_ENV } from './engine-options';
import { browserCommand, openInBrowser } from './open-browser';

/** This file is out/main/browser-mode.js in the app folder. */
const APP_ROOT = join(__dirname, '..', '..');
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

const say = (line: string) => process.stdout.write(`${line}\n`);

/**
 * A link in the terminal, which is the user's (it may carry a code), and one of its own for the browser, so that
 * either still works once the other was used.
 */
async function offer(printed: string, forBrowser: () => Promise<string>): Promise<void> {
  say(`Workbench: ${printed}`);
  say(`  (a link opens the workbench once, within ${LAUNCH_CODE_LIFETIME_MS / 60_000} minutes; \`npm start\` again gives a new one)`);
  say(await openInBrowser(browserCommand(await forBrowser(), { env: process.env, platform: process.platform })));
}

function startFailure(error: unknown): string {
  const { code, port, message } = error as NodeJS.ErrnoException & { port?: number };
  if (code !== 'EADDRINUSE') return message;
  return `port ${port} is in use (by the Tokenbench desktop app, \`tokenbench serve\` or another program): stop it, or start on free ports with ${PORT_ENV}=0`;
}

async function main(): Promise<number> {
  const manifest = JSON.parse(readFileSync(join(APP_ROOT, 'package.json'), 'utf8')) as { name: string; productName?: string };
  const userDataDir = desktopUserDataDir({ env: process.env, platform: process.platform, home: homedir(), appName: desktopAppName(manifest) });
  const running = recordedRun(userDataDir);
  const link = running && (await askForLink(running));
  if (running && link) {
    say(`Tokenbench is already running for this vault (process ${running.pid}, ${running.url}); a new link to its workbench:`);
    await offer(link, async () => (await askForLink(running)) ?? link);
    return 0;
  }

  let engine: Engine;
  try {
    engine = await startEngine({ ...desktopVaultOptions({ env: process.env, userDataDir }), browserWorkbench: { uiDir: join(APP_ROOT, 'out', 'renderer') } });
  } catch (error) {
    process.stderr.write(`npm start: Tokenbench could not start: ${startFailure(error)}\n`);
    return 1;
  }
  const workbench = engine.browserWorkbench!;
  const forget = recordRun(userDataDir, { pid: process.pid, url: engine.url, session: workbench.session });
  say(`Tokenbench is serving ${engine.url}`);
  if (engine.echoUrl) say(`Echo destination at ${engine.echoUrl}`);
  say(`Vault: ${engine.config.dataDir}`);
  // A new vault's first keys are not printed: the workbench's welcome view shows them once, as in the desktop app.
  await offer(workbench.launchUrl(), async () => workbench.launchUrl());
  say('Ctrl-C stops it.');

  await new Promise<void>((stopped) => {
    let stopping = false;
    // Ctrl-C reaches npm, the launcher and this process at once, and npm and the launcher pass it on: one stop only.
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      say(`${signal}: stopping`);
      forget();
      engine.stop().then(stopped, stopped);
    };
    for (const signal of STOP_SIGNALS) process.on(signal, () => stop(signal));
  });
  return 0;
}

void main().then((code) => process.exit(code));
