import { randomUUID } from 'node:crypto';
import { nowIso } from '../../clock';
import type { Sealer } from '../../storage/crypto';
import type { Db } from '../../storage/database';
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
}

/**
 * The id (and a proxy's invocation key) of each file proxy and file reactor (migrations 14 and 20), by the file's
 * path in the proxies folder: a file reloaded, the engine restarted, or the file gone and back (a branch switched)
 * keeps them, so an integration's configuration keeps working. A row outlives its file on purpose. One instance
 * serves one kind, so an identity never passes from a proxy to a reactor.
 */
export class FileIdentities {
  private readonly stmt;
  /** A sealed key opens only in its own row. */
  private readonly binding = (id: string) => `${this.kind}-file:${id}`;

  constructor(
    db: Db,
    private readonly sealer: Sealer,
    private readonly kind: 'proxy' | 'reactor',
  ) {
    this.stmt = {
      get: db.prepare('SELECT * FROM proxy_files WHERE file = ? AND kind = ?'),
      byId: db.prepare('SELECT * FROM proxy_files WHERE id = ? AND kind = ?'),
      insert: db.prepare('INSERT INTO proxy_files (file, id, sealed_key, created_at, kind) VALUES (@file, @id, @sealed_key, @created_at, @kind)'),
      move: db.prepare('UPDATE proxy_files SET file = ? WHERE file = ? AND kind = ?'),
      taken: db.prepare('SELECT 1 FROM proxy_files WHERE file = ?'),
      delete: db.prepare('DELETE FROM proxy_files WHERE file = ?'),
    };
  }

  private open(row: IdentityRow): FileIdentity {
    return { id: row.id, key: this.sealer.open(row.sealed_key, this.binding(row.id)).toString('utf8'), created_at: row.created_at };
  }

  /** The identity of the file at `file`, made on its first load. */
  of(file: string): FileIdentity {
    const row = this.stmt.get.get(file, this.kind) as IdentityRow | undefined;
    if (row) return this.open(row);
    return this.claim(file, { id: randomUUID(), key: this.kind === 'proxy' ? newProxyKey() : '', created_at: nowIso() });
  }

  /** Whether some file's proxy (or reactor) has this id (now, or when its file comes back). */
  hasId(id: string): boolean {
    return this.stmt.byId.get(id.toLowerCase(), this.kind) !== undefined;
  }

  /** Gives the file at `file` this identity (an export, an import): whatever the path had before is replaced. */
  claim(file: string, identity: FileIdentity): FileIdentity {
    const id = identity.id.toLowerCase();
    this.stmt.delete.run(file);
    this.stmt.insert.run({ file, id, sealed_key: this.sealer.seal(identity.key, this.binding(id)), created_at: identity.created_at, kind: this.kind });
    return { ...identity, id };
  }

  /** A file renamed (its content unchanged): its identity follows it, unless the new path has one of its own. */
  move(from: string, to: string): boolean {
    if (this.stmt.taken.get(to)) return false;
    return this.stmt.move.run(to, from, this.kind).changes > 0;
  }
}
