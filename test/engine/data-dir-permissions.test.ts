import { chmodSync, existsSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { HISTORY_FILE } from '../../electron/engine/history/history-store';
import { DATABASE_FILE } from '../../electron/engine/storage/database';
import { startTestEngine, tempDir, type TestEngine } from '../support/test-engine';

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);
/** The files right in the data folder (the vault, its history, the key), not the folders beside them. */
const filesOf = (dir: string) => readdirSync(dir, { withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name);

let running: TestEngine | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await running?.stop();
  running = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = tempDir();
  dirs.push(dir);
  return dir;
}

/** A start that leaves every file it makes: the vault with its WAL, the key, the history with its journal. */
async function startAndWrite(dir: string): Promise<void> {
  running = await startTestEngine({ dataDir: dir });
  expect((await running.call('POST', '/tokens', { key: running.privateKey, body: { type: 'token', data: 'x' } })).status).toBe(201);
  await running.engine.history.flush();
}

it('creates every file of the data dir readable by its owner only, and restricts a data dir others can read', async () => {
  const dir = dataDir();
  chmodSync(dir, 0o755);
  await startAndWrite(dir);
  expect(modeOf(dir)).toBe('700');
  const files = filesOf(dir);
  for (const expected of [DATABASE_FILE, `${DATABASE_FILE}-wal`, HISTORY_FILE, `${HISTORY_FILE}-journal`, 'master.key']) {
    expect(files).toContain(expected);
  }
  for (const file of files) expect(modeOf(join(dir, file)), file).toBe('600');
  // The saved requests' folder inside it is its owner's alone too.
  expect(modeOf(join(dir, 'collections'))).toBe('700');
});

it('restricts the vault and history files an earlier version left readable by others', async () => {
  const dir = dataDir();
  await startAndWrite(dir);
  await running!.engine.stop();
  const loosened = filesOf(dir).map((file) => join(dir, file));
  for (const file of loosened) chmodSync(file, 0o644);
  // A journal or WAL left behind is its database's data too.
  if (!existsSync(join(dir, `${DATABASE_FILE}-wal`))) writeFileSync(join(dir, `${DATABASE_FILE}-wal`), '', { mode: 0o644 });

  running = await startTestEngine({ dataDir: dir });
  for (const file of filesOf(dir)) expect(modeOf(join(dir, file)), file).toBe('600');
});
