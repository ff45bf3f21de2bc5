import { timingSafeEqual } from 'node:crypto';
import type { Db } from './database';
import { loadOrCreateMasterKey, readMasterKeyFile, Sealer } from './crypto';

const CHECK_SETTING = 'master_key_check';

/** The vault was sealed under another master key than the one this start has: nothing may be written with it. */
export class WrongMasterKeyError extends Error {
  constructor(readonly dataDir: string | null) {
    super(`this vault was sealed with another master key: start with the key it was made with${dataDir === null ? '' : ` (the key file in ${dataDir})`}`);
  }
}

function recordedCheck(db: Db): Buffer | null {
  // Read before the migrations run, so a new database has no settings table yet.
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'settings'").get();
  if (!table) return null;
  const row = db.prepare('SELECT value FROM settings WHERE key = ?').get(CHECK_SETTING) as { value: string } | undefined;
  return row ? Buffer.from(row.value, 'base64') : null;
}

/**
 * The sealer of the vault in `db`, under the key the caller supplied, else the data folder's key file, else a new
 * one. It reads only, so a wrong key is refused before anything is written: the vault's check value must match; a
 * vault from before check values was opened with its folder's key file, so a supplied key must equal that file's.
 * A new key file is made only where no vault says it was sealed already.
 */
export function unlockVault(db: Db, dataDir: string | null, supplied?: Buffer): Sealer {
  const recorded = recordedCheck(db);
  const fileKey = dataDir === null ? null : readMasterKeyFile(dataDir);
  const key = supplied ?? fileKey;
  if (key === null && recorded !== null) throw new WrongMasterKeyError(dataDir);
  const masterKey = key ?? loadOrCreateMasterKey(dataDir);
  const sealer = new Sealer(masterKey);
  const check = sealer.checkValue;
  const matches = recorded ? recorded.length === check.length && timingSafeEqual(recorded, check) : fileKey === null || fileKey.equals(masterKey);
  if (!matches) throw new WrongMasterKeyError(dataDir);
  return sealer;
}

/** Stores the check value of a vault that has none yet (a new vault, or one from before check values). */
export function recordKeyCheck(db: Db, sealer: Sealer): void {
  db.prepare('INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)').run(CHECK_SETTING, sealer.checkValue.toString('base64'));
}
