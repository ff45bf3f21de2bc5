import { afterEach, describe, expect, it } from 'vitest';
import { HistoryStore } from '../../electron/engine/history/history-store';
import { childrenOf, commandOf, groupAlive } from '../support/process-group';
import { NPM_SERVE_COMMAND, startServe, type ServeProcess } from '../support/serve-process';
import { callApi, tempDir } from '../support/test-engine';

// `npm run serve` is three processes: npm, tsx and the service. npm passes a SIGTERM to its own child only, and a
// shell between npm and tsx would end without passing it on (so the script execs tsx); tsx passes it to the service.
// Ctrl-C reaches them all at once: the terminal signals the whole group.
const started: ServeProcess[] = [];
afterEach(() => {
  for (const p of started.splice(0)) {
    try {
      process.kill(-p.child.pid!, 'SIGKILL');
    } catch {
      // The group is gone already: every process of it has exited.
    }
  }
});

/** Resolves once no process of the group is left; the test's own timeout fails it if one stays. */
async function groupGone(pgid: number): Promise<void> {
  // The service's esbuild helper ends on its own once its parent has gone, a moment after it.
  while (groupAlive(pgid)) await new Promise((resolve) => setTimeout(resolve, 50));
}

function tsxUnder(npm: number): number {
  const [pid] = childrenOf(npm);
  expect(commandOf(pid)).toContain('/tsx ');
  return pid;
}

function storedPaths(dataDir: string): string[] {
  const store = HistoryStore.open({ dataDir, limit: 100, log: () => undefined });
  try {
    return store.list(100).map((json) => JSON.parse(json).path);
  } finally {
    store.close();
  }
}

describe('npm run serve', () => {
  it.each([
    ['npm', (npm: number) => npm],
    ['tsx under npm', tsxUnder],
  ])('stops the service, writes its history and leaves no process behind on a SIGTERM to %s', async (_target, pick) => {
    const dataDir = tempDir();
    const p = await startServe(['--data-dir', dataDir, '--port', '0', '--echo-port', '0'], { command: NPM_SERVE_COMMAND, ownGroup: true });
    started.push(p);
    const npm = p.child.pid!;
    expect((await callApi(p.url, 'GET', '/tokens/just-before-sigterm', { key: p.privateKey })).status).toBe(404);
    process.kill(pick(npm), 'SIGTERM');
    await p.exited;
    await groupGone(npm);
    await expect(fetch(p.url)).rejects.toThrow();
    expect(storedPaths(dataDir)).toContain('/tokens/just-before-sigterm');
  });
});
