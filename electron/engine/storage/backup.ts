import Database from 'better-sqlite3';
import { closeSync, existsSync, fsyncSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createTempBeside, placeTemp } from './atomic-file';
import { DATABASE_FILE } from './database';

/** Why a backup was not made, in words for its user. */
export class BackupError extends Error {}

const taken = (target: string) => new BackupError(`${target} exists: choose another file, or pass --force to replace it`);

/** More pages than any vault has: the backup's one step copies them all. */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the vault database of `dataDir` (tokens, applications, the secret store, settings: everything but the
 * history, the saved requests and the master key) into `target`, while a serve may be writing to it. SQLite's
 * online backup in one step reads one snapshot, so the copy holds exactly what was committed when it began; the
 * writer goes on meanwhile (WAL). The copy takes its name whole or not at all.
 */
export async function backupVault(dataDir: string, target: string, { replace }: { replace: boolean }): Promise<void> {
  const source = join(dataDir, DATABASE_FILE);
  if (!existsSync(source)) throw new BackupError(`${dataDir} holds no vault (no ${DATABASE_FILE}): give the data folder serve uses with --data-dir`);
  if (!replace && existsSync(target)) throw taken(target);
  const db = new Database(source, { fileMustExist: true, readonly: true });
  const { temp, fd } = createTempBeside(target);
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(temp, { progress: () => ALL_PAGES });
    fsyncSync(fd);
    placeTemp(temp, target, replace ? 'replace' : 'create');
  } catch (error) {
    // Made by someone else while the copy ran: theirs stays.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw taken(target);
    throw error;
  } finally {
    closeSync(fd);
    rmSync(temp, { force: true });
    db.close();
  }
}
