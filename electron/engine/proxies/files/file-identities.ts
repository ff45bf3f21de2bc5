import { randomUUID } from 'node:crypto';
import { nowIso } from '../../clock';
import type { Sealer } from '../../storage/crypto';
import { query, tx, type AnyUnitRunner, type Unit } from '../../storage/unit';
import { newProxyKey } from '../proxy-store';

/** Who a file proxy or reactor is: what the engine keeps of it, since its file is its definition. */
export interface FileIdentity {
  id: string;
  /** A proxy's invocation key; '' for a reactor, which has none. */
  key: string;
  created_at: string;
}

interface IdentityRow {
  file: string;
  id: string;
  sealed_key: Buffer;
  created_at: string;
  kind: string;
}

const identityOf = query<IdentityRow>('file identity', 'SELECT * FROM proxy_files WHERE file = ? AND kind = ?');
const idKept = query('file identity with id', 'SELECT 1 FROM proxy_files WHERE id = ? AND kind = ?');
const insertIdentity = query('file identity claimed', 'INSERT INTO proxy_files (file, id, sealed_key, created_at, kind) VALUES (@file, @id, @sealed_key, @created_at, @kind)');
const insertIfNone = query(
  'file identity made',
  'INSERT INTO proxy_files (file, id, sealed_key, created_at, kind) VALUES (@file, @id, @sealed_key, @created_at, @kind) ON CONFLICT (file) DO NOTHING',
);
const moveIdentity = query('file identity moved', 'UPDATE proxy_files SET file = ? WHERE file = ? AND kind = ?');
const pathTaken = query('file identity path taken', 'SELECT 1 FROM proxy_files WHERE file = ?');
const deleteOfPath = query('file identity of path deleted', 'DELETE FROM proxy_files WHERE file = ?');
const deleteClaim = query('file identity claim undone', 'DELETE FROM proxy_files WHERE file = ? AND id = ? AND kind = ?');
const deleteOtherKind = query('file identity of another kind deleted', 'DELETE FROM proxy_files WHERE file = ? AND kind <> ?');

/**
 * The path's identity, or `made` kept as it: a replica loading the same new file at once waits on the first's insert,
 * does nothing, and reads the first's back, so every replica serves the file with one id and key.
 */
function* identityMade(made: IdentityRow): Unit<IdentityRow> {
  const kept = yield* tx.get(identityOf, [made.file, made.kind]);
  if (kept) return kept;
  yield* tx.run(deleteOtherKind, [made.file, made.kind]);
  yield* tx.run(insertIfNone, made);
  return (yield* tx.get(identityOf, [made.file, made.kind]))!;
}

function* identityClaimed(row: IdentityRow): Unit<IdentityRow> {
  yield* tx.run(deleteOfPath, [row.file]);
  yield* tx.run(insertIdentity, row);
  return row;
}

function* identityMoved(from: string, to: string, kind: string): Unit<boolean> {
  if (yield* tx.get(pathTaken, [to])) return false;
  return (yield* tx.run(moveIdentity, [to, from, kind])).changes > 0;
}

/**
 * The id (and a proxy's invocation key) of each file proxy and file reactor (migrations 14 and 20), by the file's
 * path in the proxies folder: a file reloaded, the engine restarted, or the file gone and back (a branch switched)
 * keeps them, so an integration's configuration keeps working; kept in the database, so every replica loading the
 * same folder serves a file with the same id and key. A row outlives its file on purpose. One instance serves one
 * kind, so an identity never passes from a proxy to a reactor.
 */
export class FileIdentities {
  /** A sealed key opens only in its own row. */
  private readonly binding = (id: string) => `${this.kind}-file:${id}`;

  constructor(
    private readonly units: AnyUnitRunner,
    private readonly sealer: Sealer,
    private readonly kind: 'proxy' | 'reactor',
  ) {}

  private open(row: IdentityRow): FileIdentity {
    return { id: row.id, key: this.sealer.open(row.sealed_key, this.binding(row.id)).toString('utf8'), created_at: row.created_at };
  }

  private rowOf(file: string, identity: FileIdentity): IdentityRow {
    const id = identity.id.toLowerCase();
    return { file, id, sealed_key: this.sealer.seal(identity.key, this.binding(id)), created_at: identity.created_at, kind: this.kind };
  }

  /** A new identity: a proxy's with a new key. */
  private made(): FileIdentity {
    return { id: randomUUID(), key: this.kind === 'proxy' ? newProxyKey() : '', created_at: nowIso() };
  }

  /** The identity of the file at `file`, made on its first load. */
  async of(file: string): Promise<FileIdentity> {
    const made = this.rowOf(file, this.made());
    return this.open(await this.units.run(() => identityMade(made)));
  }

  /** Whether some file's proxy (or reactor) has this id (now, or when its file comes back). */
  async hasId(id: string): Promise<boolean> {
    return (await this.units.read(() => tx.get(idKept, [id.toLowerCase(), this.kind]))) !== undefined;
  }

  /** Gives the file at `file` this identity (an export, an import): whatever the path had before is replaced. */
  async claim(file: string, identity: FileIdentity): Promise<FileIdentity> {
    const row = this.rowOf(file, identity);
    await this.units.run(() => identityClaimed(row));
    return { ...identity, id: row.id };
  }

  /** Undoes `claim` of this id for the file (its files were not kept); a claim made since stays. */
  async release(file: string, id: string): Promise<void> {
    await this.units.run(() => tx.run(deleteClaim, [file, id.toLowerCase(), this.kind]));
  }

  /** A file renamed (its content unchanged): its identity follows it, unless the new path has one of its own. */
  async move(from: string, to: string): Promise<boolean> {
    return await this.units.run(() => identityMoved(from, to, this.kind));
  }
}
