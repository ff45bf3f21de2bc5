import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { SERVE_COMMAND } from '../support/serve-process';

const ROOT = join(__dirname, '..', '..');

export interface ServeOptions {
  dataDir: string;
  seedFile: string;
  transactionTtlSeconds: number;
  /** The echo destination's port (the proxy's target); without one it is off. */
  echoPort?: number;
}

export interface ServeProcess {
  url: string;
  echoUrl: string | null;
  /** SIGKILL: no shutdown code runs, as in a crash. Resolves once the process is gone. */
  kill(): Promise<void>;
  /** What the process wrote to stderr (for a failure message). */
  stderr(): string;
}

/**
 * Starts the real `tokenbench serve` CLI as its own process, one node process with no wrapper (SERVE_COMMAND), so a
 * SIGKILL reaches the service itself.
 */
export async function startServe(options: ServeOptions): Promise<ServeProcess> {
  const args = ['--data-dir', options.dataDir, '--port', '0', '--echo-port', String(options.echoPort ?? 0),
    '--seed', options.seedFile, '--transaction-ttl', String(options.transactionTtlSeconds)];
  const child = spawn(SERVE_COMMAND[0], [...SERVE_COMMAND.slice(1), ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = once(child, 'exit');
  try {
    const url = await serving(child);
    return {
      url,
      echoUrl: options.echoPort ? `http://127.0.0.1:${options.echoPort}` : null,
      stderr: () => stderr,
      async kill() {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
        await exited;
      },
    };
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    throw new Error(`serve did not start: ${(error as Error).message}\n${stderr}`, { cause: error });
  }
}

/** Waits for the line `Tokenbench is serving http://…`. */
function serving(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /is serving (http:\/\/\S+)/.exec(stdout);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code, signal) => reject(new Error(`exited with ${code ?? signal}`)));
  });
}
