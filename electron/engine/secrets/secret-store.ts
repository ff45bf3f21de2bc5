import { ApiProblem } from '../server/problem';
import { keepRowsCoherent } from '../storage/coherent-memory';
import type { Sealer } from '../storage/crypto';
import { query, tx, type AnyUnitRunner, type Unit } from '../storage/unit';

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

/** What a change that moves values into Secrets sees and does while it is staged (`SecretStore.atomically`). */
export interface SecretWrites {
  has(name: string): boolean;
  /** Sets `name` to `value` when the change's secrets are kept. */
  set(name: string, value: string): void;
  /** Every value kept or staged, with the (first) name it is under; each kept row is opened, so a caller builds it once. */
  namesByValue(): Map<string, string>;
}

/** The change feed's channel of the secrets table, naming the secret. */
const CHANNEL = 'secrets';

/** A sealed value is bound to its name: a blob copied to another row does not open. */
const valueBinding = (name: string) => `secret-value:${name}`;

const entryOf = ({ name, created_at, updated_at }: SecretRow): SecretEntry => ({ name, created_at, updated_at });

const allSecrets = query<SecretRow>('secrets', 'SELECT * FROM secrets ORDER BY name');
const secretNamed = query<SecretRow>('secret', 'SELECT * FROM secrets WHERE name = ?');
const upsertSecret = query(
  'secret set',
  `INSERT INTO secrets (name, sealed_value, created_at, updated_at) VALUES (@name, @sealed_value, @created_at, @updated_at)
   ON CONFLICT (name) DO UPDATE SET sealed_value = excluded.sealed_value, updated_at = excluded.updated_at`,
);
const deleteSecret = query('secret deleted', 'DELETE FROM secrets WHERE name = ?');
// Only where the row still holds what the change wrote (each seal is unique): a value set since then stays.
const putBack = query(
  'secret put back',
  'UPDATE secrets SET sealed_value = @sealed_value, created_at = @created_at, updated_at = @updated_at WHERE name = @name AND sealed_value = @written',
);
const takeBack = query('secret taken back', 'DELETE FROM secrets WHERE name = ? AND sealed_value = ?');

/** Each row set, answering each as kept (a replaced secret keeps its creation time). */
function* setting(rows: readonly SecretRow[]): Unit<SecretRow[]> {
  const kept: SecretRow[] = [];
  for (const row of rows) {
    yield* tx.run(upsertSecret, row);
    yield* tx.notify(CHANNEL, row.name);
    kept.push((yield* tx.get(secretNamed, [row.name]))!);
  }
  return kept;
}

/** The compensating step of a change whose file was not written: each secret it set as it was before, if unchanged since. */
function* puttingBack(changes: readonly { written: SecretRow; before: SecretRow | undefined }[]): Unit<[string, SecretRow | undefined][]> {
  const now: [string, SecretRow | undefined][] = [];
  for (const { written, before } of changes) {
    if (before) yield* tx.run(putBack, { ...before, written: written.sealed_value });
    else yield* tx.run(takeBack, [written.name, written.sealed_value]);
    yield* tx.notify(CHANNEL, written.name);
    now.push([written.name, yield* tx.get(secretNamed, [written.name])]);
  }
  return now;
}

function* deleting(name: string): Unit<boolean> {
  if ((yield* tx.run(deleteSecret, [name])).changes === 0) return false;
  yield* tx.notify(CHANNEL, name);
  return true;
}

/**
 * Credentials kept out of saved requests' files, by name, each value sealed under the master key. The engine opens
 * one to send a request that refers to it, and for the user's explicit reveal; nothing else reads a value. Every row
 * is held (sealed) in memory, since the workbench's sends and the proxies folder's loader read them as they go.
 */
export class SecretStore {
  private readonly rows = new Map<string, SecretRow>();

  constructor(
    private readonly units: AnyUnitRunner,
    private readonly sealer: Sealer,
  ) {
    keepRowsCoherent(units, CHANNEL, secretNamed, (name, row) => this.settle(name, row), () => this.load());
  }

  /** Reads every secret: at start, and again when another replica's notices may have been lost. */
  async load(): Promise<void> {
    const rows = await this.units.read(() => tx.all(allSecrets));
    this.rows.clear();
    for (const row of rows) this.settle(row.name, row);
  }

  /** The one place the held rows change: after this process's own change commits, or another replica's. */
  private settle(name: string, row: SecretRow | undefined): void {
    if (row) this.rows.set(name, row);
    else this.rows.delete(name);
  }

  private sorted(): SecretRow[] {
    return [...this.rows.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  private sealed(name: string, value: string): SecretRow {
    const now = new Date().toISOString();
    return { name, sealed_value: this.sealer.seal(value, valueBinding(name)), created_at: now, updated_at: now };
  }

  private opened(row: SecretRow): string {
    return this.sealer.open(row.sealed_value, valueBinding(row.name)).toString('utf8');
  }

  list(): SecretEntry[] {
    return this.sorted().map(entryOf);
  }

  has(name: string): boolean {
    return this.rows.has(name);
  }

  /** Sets a secret, or replaces the value of one of that name. */
  async set(name: string, value: string): Promise<SecretEntry> {
    const [kept] = await this.units.run(() => setting([this.sealed(name, value)]));
    this.settle(name, kept);
    return entryOf(kept);
  }

  async delete(name: string): Promise<boolean> {
    const deleted = await this.units.run(() => deleting(name));
    this.settle(name, undefined);
    return deleted;
  }

  /** A secret's value; undefined when none has the name. */
  value(name: string): string | undefined {
    const row = this.rows.get(name);
    return row && this.opened(row);
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
    for (const row of this.sorted()) {
      const value = this.opened(row);
      if (!names.has(value)) names.set(value, row.name);
    }
    return names;
  }

  /**
   * A change of secrets and the file that goes with them, the two together or neither. `stage` chooses the secrets
   * (seeing what it set); they are kept first, in one unit, and only then `write` writes the file: a file never refers
   * to a secret that was not kept. If `write` fails, a compensating unit puts each secret back as it was (unless
   * changed since), so what is left of a failure between the two is at most a secret no file refers to.
   */
  async atomically<S, T>(stage: (staged: SecretWrites) => S, write: (staged: S) => T | Promise<T>): Promise<T> {
    const staged = new Map<string, string>();
    const writes: SecretWrites = {
      has: (name) => staged.has(name) || this.has(name),
      set: (name, value) => void staged.set(name, value),
      namesByValue: () => {
        const names = this.namesByValue();
        for (const [name, value] of staged) if (!names.has(value)) names.set(value, name);
        return names;
      },
    };
    const value = stage(writes);
    const rows = [...staged].map(([name, secret]) => this.sealed(name, secret));
    const changes = rows.map((written) => ({ written, before: this.rows.get(written.name) }));
    if (rows.length > 0) for (const row of await this.units.run(() => setting(rows))) this.settle(row.name, row);
    try {
      return await write(value);
    } catch (error) {
      if (rows.length > 0) for (const [name, row] of await this.units.run(() => puttingBack(changes))) this.settle(name, row);
      throw error;
    }
  }
}
