import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_FILE, openDatabase } from '../storage/database';
import { unitsOf } from '../storage/sqlite/unit-driver';
import { CredentialStore } from './credential-store';

/**
 * The credentials of the vault in `dataDir`, opened beside a `serve` that may be running on it (SQLite's WAL lets both
 * write; the engine reads the store at each request). null when the folder holds no vault: a mistyped folder must not
 * get a vault of its own.
 */
export function openCredentials(dataDir: string, nativeBinding?: string): { store: CredentialStore; close(): void } | null {
  if (!existsSync(join(dataDir, DATABASE_FILE))) return null;
  const db = openDatabase({ dataDir, nativeBinding });
  return { store: new CredentialStore(unitsOf(db)), close: () => db.close() };
}
