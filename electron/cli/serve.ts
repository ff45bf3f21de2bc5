import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { startEngine, type Engine } from '../engine';
import { parseServeArgs, UI_DIR_ENV, UsageError, USAGE } from './serve-options';
import { exposureWarning, startFailure, startupReport } from './serve-report';

export async function main(argv: string[]): Promise<number> {
  let options;
  try {
    options = parseServeArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`tokenbench serve: ${error.message}\nSee --help for every option.\n`);
    return 2;
  }
  if (options === 'help') {
    process.stdout.write(USAGE);
    return 0;
  }
  let engine: Engine;
  try {
    // The browser workbench is served when its build (`npm run build`) is there: beside out/main when this is the
    // built CLI, under the repository's out/ when it runs from source; or from the folder TOKENBENCH_UI_DIR names
    // (another build), which must hold one.
    const uiDir =
      process.env[UI_DIR_ENV] ||
      [resolve(__dirname, '..', 'renderer'), resolve(__dirname, '..', '..', 'out', 'renderer')].find((dir) => existsSync(join(dir, 'index.html')));
    // The proxies folder's lines (a file loaded, broken, removed) are the developer's loop: on stdout, as they happen.
    engine = await startEngine({ ...options, browserWorkbench: uiDir ? { uiDir } : undefined, proxyFilesReport: (line) => process.stdout.write(`${line}\n`) });
  } catch (error) {
    process.stderr.write(`tokenbench: could not start: ${startFailure(error, options)}\n`);
    return 1;
  }
  // Listening before the start lines: a supervisor may signal as soon as it reads them, and would otherwise kill the
  // process before the history is written.
  const stopped = new Promise<void>((done) => {
    const stop = (signal: string) => {
      process.stdout.write(`${signal}: stopping\n`);
      engine.stop().then(done, done);
    };
    process.once('SIGINT', () => stop('SIGINT'));
    process.once('SIGTERM', () => stop('SIGTERM'));
  });
  process.stdout.write(startupReport(engine));
  const warning = exposureWarning(engine);
  if (warning) process.stderr.write(warning);
  await stopped;
  return 0;
}

if (require.main === module) {
  const args = process.argv.slice(2);
  void main(args[0] === 'serve' ? args.slice(1) : args).then((code) => process.exit(code));
}
