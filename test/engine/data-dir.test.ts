import { existsSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEngine } from '../../electron/engine';
import { RequestLog } from '../../electron/engine/history/request-log';
import { tempDir } from '../support/test-engine';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = tempDir('tokenbench-data-dir-');
  dirs.push(dir);
  return dir;
}

/** Folders no vault can live in, each with the OS's reason (errno code) for refusing it. */
function unusable(): [where: string, dir: string, reason: string][] {
  const base = scratch();
  symlinkSync(join(base, 'gone', 'away'), join(base, 'dangling'));
  writeFileSync(join(base, 'a-file'), '');
  const cases: [string, string, string][] = [
    ['under a dangling symbolic link', join(base, 'dangling', 'vault'), 'ENOENT'],
    ['the dangling link itself', join(base, 'dangling'), 'ENOENT'],
    ['inside a regular file', join(base, 'a-file', 'vault'), 'ENOTDIR'],
    ['a regular file', join(base, 'a-file'), 'ENOTDIR'],
  ];
  // procfs answers ENOENT to a new name even though its parent exists: Node's recursive mkdir retries that forever.
  if (existsSync('/proc/self')) cases.push(['under /proc', '/proc/nope', 'ENOENT'], ['/proc itself', '/proc', 'ENOENT']);
  return cases;
}

describe('a data folder the engine cannot use', () => {
  it('fails the start at once, naming the folder and the reason', async () => {
    for (const [where, dataDir, reason] of unusable()) {
      const start = startEngine({ dataDir, port: 0, echoPort: null, log: () => undefined });
      await expect(start, where).rejects.toThrow(`Cannot use ${dataDir} as the data folder: ${reason}: `);
    }
  });

  it('fails the request history at once too, when it is opened on its own', async () => {
    for (const [where, dataDir, reason] of unusable()) {
      const start = RequestLog.start({ dataDir, limit: 10, log: () => undefined });
      await expect(start, where).rejects.toThrow(`The request history could not start: Cannot use ${dataDir} as the data folder: ${reason}: `);
    }
  });

  it('is made, parents and all, private to this user, and left with nothing but the vault in it', async () => {
    const dataDir = join(scratch(), 'several', 'levels', 'down');
    const engine = await startEngine({ dataDir, port: 0, echoPort: null, log: () => undefined });
    await engine.stop();
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, '..')).mode & 0o777).toBe(0o700);
    expect(readdirSync(dataDir).filter((name) => name.includes('probe'))).toEqual([]);
  });
});
