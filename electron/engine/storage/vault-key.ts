import { timingSafeEqual } from 'node:crypto';
import type { Db } from './database';
import { loadOrCreateMasterKey, readMasterKeyFile, Sealer } from './crypto';
import { query, tx, type AnyUnitRunner, type Unit } from './unit';

const CHECK_SETTING = 'master_key_check';

/** The vault was sealed under another master key than the one this start has: nothing may be written with it. */
export class WrongMasterKeyError extends Error {
  constructor(readonly dataDir: string | null) {
    super(`this vault was sealed with another master key: start with the key it was made with${dataDir === null ? '' : ` (the key file in ${dataDir})`}`);
  }
}

const sameCheck = (recorded: Buffer, sealer: Sealer) => recorded.length === sealer.checkValue.length && timingSafeEqual(recorded, sealer.checkValue);

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
  const matches = recorded ? sameCheck(recorded, sealer) : fileKey === null || fileKey.equals(masterKey);
  if (!matches) throw new WrongMasterKeyError(dataDir);
  return sealer;
}

const keptCheck = query<string>('master key check', 'SELECT value FROM settings WHERE key = ?', { pluck: true });
const keepCheck = query('master key check kept', 'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING');

/** Whether the vault's check value is this key's; it writes nothing, and a vault without one matches. */
function* matchingCheck(sealer: Sealer): Unit<boolean> {
  const kept = yield* tx.get(keptCheck, [CHECK_SETTING]);
  return kept === undefined || sameCheck(Buffer.from(kept, 'base64'), sealer);
}

/**
 * Keeps the check value of a vault that has none yet (a new vault, one from before check values), and refuses a key
 * whose check differs from the kept one. Two starts at once on a new database keep one value: the second's insert
 * waits for the first's and then does nothing, and what it reads back is the first's.
 */
function* recordingCheck(sealer: Sealer): Unit<boolean> {
  if (!(yield* matchingCheck(sealer))) return false;
  yield* tx.run(keepCheck, [CHECK_SETTING, sealer.checkValue.toString('base64')]);
  return sameCheck(Buffer.from((yield* tx.get(keptCheck, [CHECK_SETTING]))!, 'base64'), sealer);
}

/** Refuses the key when the vault keeps another's check value; writes nothing (a start checks before migrating). */
export async function refuseOtherKey(units: AnyUnitRunner, sealer: Sealer, dataDir: string | null): Promise<void> {
  if (!(await units.read(() => matchingCheck(sealer)))) throw new WrongMasterKeyError(dataDir);
}

/** Keeps this key's check value in a vault that has none, and refuses the key if the vault keeps another's. */
export async function recordKeyCheck(units: AnyUnitRunner, sealer: Sealer, dataDir: string | null): Promise<void> {
  if (!(await units.run(() => recordingCheck(sealer)))) throw new WrongMasterKeyError(dataDir);
}
