import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { tempDir } from './test-engine';

/**
 * A proxies folder and a data folder made afresh for each test (handed to `made`), removed after `stop` has stopped
 * the test's engine.
 */
export function freshProxiesFolder(made: (dirs: { folder: string; dataDir: string }) => void, stop: () => Promise<void>): void {
  let dirs = { folder: '', dataDir: '' };
  beforeEach(() => {
    dirs = { folder: tempDir('tokenbench-proxies-'), dataDir: tempDir('tokenbench-data-') };
    made(dirs);
  });
  afterEach(async () => {
    await stop();
    rmSync(dirs.folder, { recursive: true, force: true });
    rmSync(dirs.dataDir, { recursive: true, force: true });
  });
}

/** Writes a file as an editor that saves atomically does: a temporary file renamed over the old one. */
export function saveLikeAnEditor(folder: string, name: string, content: unknown): void {
  const temp = join(folder, `.${name}.swp`);
  writeFileSync(temp, typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  renameSync(temp, join(folder, name));
}
