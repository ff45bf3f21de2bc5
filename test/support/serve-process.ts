import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { TEST_BUILT_WORKERS_ENV } from './built-workers';

const ROOT = join(__dirname, '..', '..');
/** The bin as installed, from source under tsx: one process (no tsx wrapper), so a signal or SIGKILL reaches the service itself. */
export const BIN_SERVE_COMMAND = [process.execPath, join(ROOT, 'bin', 'tokenbench.cjs'), 'serve'] as const;
/**
 * What the tests start: the CLI `npm test` has just built beside the workers (out/main/serve.js), which skips loading
 * the engine's TypeScript through tsx in every process; the bin when there is no build. The bin and `npm run serve`
 * keep tests of their own.
 */
export const SERVE_COMMAND: readonly string[] = process.env[TEST_BUILT_WORKERS_ENV]
  ? [process.execPath, join(process.env[TEST_BUILT_WORKERS_ENV], 'serve.js'), 'serve']
  : BIN_SERVE_COMMAND;
/** `npm run serve -- …` as the README gives it: npm and the service (node with tsx's loader), two processes. */
export const NPM_SERVE_COMMAND = ['npm', 'run', 'serve', '--'] as const;

export interface ServeOptions {
  command?: readonly string[];
  /**
   * Starts the command in a process group of its own (its id is the child's pid), so that a test can tell whether
   * any process of the tree outlives the one it signalled, and end them all.
   */
  ownGroup?: boolean;
  timeoutMs?: number;
  /** Variables added to the test's environment for the process (TOKENBENCH_MASTER_KEY, TOKENBENCH_SESSION_SECRET). */
  env?: NodeJS.ProcessEnv;
}

export interface ServeProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
  /** Keys printed on a first start, if any. */
  managementKey?: string;
  privateKey?: string;
  exited: Promise<number | null>;
}

function spawnServe(args: string[], { command = SERVE_COMMAND, ownGroup = false, env }: ServeOptions) {
  const child = spawn(command[0], [...command.slice(1), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: ownGroup, env: env && { ...process.env, ...env } });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

/** Starts `tokenbench serve ARGS` and resolves once it prints the URL it serves. */
export function startServe(args: string[], options: ServeOptions = {}): Promise<ServeProcess> {
  const { child, output, exited } = spawnServe(args, options);
  return new Promise((resolve, reject) => {
    // One that never gets ready is killed, so that a failed start leaves no process behind.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`serve did not start:\n${output()}`));
    }, options.timeoutMs ?? 20_000);
    const check = () => {
      const out = output();
      const url = /serving (http:\/\/\S+)/.exec(out)?.[1];
      const ready = url && (!out.includes('First start') || /private key[^\n]*:\s+(\S+)/.test(out));
      if (!ready) return;
      clearTimeout(timer);
      child.stdout!.off('data', check);
      resolve({
        child,
        url,
        output,
        managementKey: /management key[^\n]*:\s+(\S+)/.exec(out)?.[1],
        privateKey: /private key[^\n]*:\s+(\S+)/.exec(out)?.[1],
        exited,
      });
    };
    child.stdout!.on('data', check);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code} before it was ready:\n${output()}`));
    });
  });
}

/**
 * Runs `tokenbench serve ARGS` expecting it to exit on its own (bad arguments, a failed start). One that is still
 * running after `timeoutMs` is killed and reported with code null, so a hang fails the test instead of outliving it.
 */
export async function runServe(args: string[], { timeoutMs = 15_000, env }: Pick<ServeOptions, 'timeoutMs' | 'env'> = {}): Promise<{ code: number | null; output: string }> {
  const { child, output, exited } = spawnServe(args, { env });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const code = await exited;
  clearTimeout(timer);
  return { code, output: output() };
}
