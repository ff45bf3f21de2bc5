import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '../..');

export interface ChildServer<T> {
  /** What `ready` read off the child's stdout. */
  info: T;
  pid: number;
  /** SIGTERM, then wait for the exit (a CPU profile is written on exit). */
  stop(): Promise<void>;
}

export interface ChildOptions<T> {
  /** Entry relative to the repository root: TypeScript runs under tsx, built JavaScript (.js) under plain node. */
  script: string;
  args?: string[];
  /** Extra flags for node itself (e.g. --cpu-prof). */
  nodeFlags?: readonly string[];
  env?: Record<string, string>;
  /** Reads the child's stdout so far; returns a value once the server is ready. */
  ready(stdout: string): T | undefined;
}

const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

function exited(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) done();
    else child.once('exit', () => done());
  });
}

/** SIGTERM, then wait for the exit; SIGKILL if it takes longer than STOP_TIMEOUT_MS. */
export async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited(child);
  clearTimeout(timer);
}

/**
 * Starts a server in its own process, so the load generator never shares its event loop. Stderr is kept and shown
 * only if the child fails to start or dies early.
 */
export function startChildServer<T>(options: ChildOptions<T>): Promise<ChildServer<T>> {
  const child = spawn(
    process.execPath,
    [...(options.nodeFlags ?? []), ...(options.script.endsWith('.ts') ? ['--import', 'tsx'] : []), options.script, ...(options.args ?? [])],
    { cwd: REPO_ROOT, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));

  const stop = () => stopProcess(child);

  return new Promise((resolveStart, rejectStart) => {
    const fail = (why: string) => {
      clearTimeout(timer);
      void stop();
      rejectStart(new Error(`${options.script}: ${why}\n${stderr}`));
    };
    const timer = setTimeout(() => fail(`not ready within ${START_TIMEOUT_MS / 1000} s`), START_TIMEOUT_MS);
    child.once('exit', (code, signal) => fail(`exited early (${signal ?? code})`));
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const info = options.ready(stdout);
      if (info === undefined) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.stdout!.removeAllListeners('data').resume();
      resolveStart({ info, pid: child.pid!, stop });
    });
  });
}
