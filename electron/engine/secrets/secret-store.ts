import { ApiProblem } from '../server/problem';
import type { Sealer } from '../storage/crypto';
import type { Db } from '../storage/database';

interface SecretRow {
  name: string;
  sealed_value: Buffer;
  created_at: string;
  updated_at: string;
}

/** A secret as anyone but an explicit reveal sees it: its name and when it was set, never its value. */
export interface SecretEntry {
  name: string;
  created_at: string;
  updated_at: string;
}

/** A sealed value is bound to its name: a blob copied to another row does not open. */
const valueBinding = (name: string) => `secret-value:${name}`;

const entryOf = ({ name, created_at, updated_at }: SecretRow): SecretEntry => ({ name, created_at, updated_at });

/**
 * Credentials kept out of saved requests' files, by name, each value sealed under the master key. The engine opens
 * one to send a request that refers to it, and for the user's explicit reveal; nothing else reads a value.
 */
export class SecretStore {
  private readonly stmt;

  constructor(
    private readonly db: Db,
    private readonly sealer: Sealer,
  ) {
    this.stmt = {
      all: db.prepare('SELECT * FROM secrets ORDER BY name'),
      get: db.prepare('SELECT * FROM secrets WHERE name = ?'),
      upsert: db.prepare(
        `INSERT INTO secrets (name, sealed_value, created_at, updated_at) VALUES (@name, @sealed_value, @created_at, @updated_at)
         ON CONFLICT (name) DO UPDATE SET sealed_value = excluded.sealed_value, updated_at = excluded.updated_at`,
      ),
      delete: db.prepare('DELETE FROM secrets WHERE name = ?'),
    };
  }

  list(): SecretEntry[] {
    return (this.stmt.all.all() as SecretRow[]).map(entryOf);
  }

  has(name: string): boolean {
    return this.stmt.get.get(name) !== undefined;
  }

  /** Sets a secret, or replaces the value of one of that name. */
  set(name: string, value: string): SecretEntry {
    const now = new Date().toISOString();
    this.stmt.upsert.run({ name, sealed_value: this.sealer.seal(value, valueBinding(name)), created_at: now, updated_at: now });
    return entryOf(this.stmt.get.get(name) as SecretRow);
  }

  delete(name: string): boolean {
    return this.stmt.delete.run(name).changes > 0;
  }

  /** A secret's value; undefined when none has the name. */
  value(name: string): string | undefined {
    const row = this.stmt.get.get(name) as SecretRow | undefined;
    return row && this.sealer.open(row.sealed_value, valueBinding(row.name)).toString('utf8');
  }

  /** A secret's value, for its explicit reveal: a 404 naming it when none has the name. */
  reveal(name: string): string {
    const value = this.value(name);
    if (value === undefined) throw new ApiProblem(404, `No secret is named “${name}”`);
    return value;
  }

  /**
   * Every value kept, with the (first) name it is kept under: to find a value already stored. Each row is opened, so a
   * caller moving many values builds this once.
   */
  namesByValue(): Map<string, string> {
    const names = new Map<string, string>();
    for (const row of this.stmt.all.all() as SecretRow[]) {
      const value = this.sealer.open(row.sealed_value, valueBinding(row.name)).toString('utf8');
      if (!names.has(value)) names.set(value, row.name);
    }
    return names;
  }

  /** Runs `change` as one SQLite transaction: the secrets it sets stay only if it returns. */
  atomically<T>(change: () => T): T {
    return this.db.transaction(change)();
  }
}
