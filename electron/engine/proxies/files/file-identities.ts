import { randomUUID } from 'node:crypto';
import { nowIso } from '../../clock';
import type { Sealer } from '../../storage/crypto';
import type { Db } from '../../storage/database';
import { newProxyKey } from '../proxy-store';

/** Who a file proxy is: what the engine keeps of it, since its file is its definition. */
export interface FileIdentity {
  id: string;
  key: string;
  created_at: string;
}

interface IdentityRow {
  file: string;
  id: string;
  sealed_key: Buffer;
  created_at: string;
}

/** A sealed key opens only in its own row. */
const binding = (id: string) => `proxy-file:${id}`;

/**
 * The id and invocation key of each file proxy (migration 14), by the file's path in the proxies folder: a file
 * reloaded, the engine restarted, or the file gone and back (a branch switched) keeps both, so an integration's
 * configuration keeps working. A row outlives its file on purpose.
 */
export class FileIdentities {
  private readonly stmt;

  constructor(
    db: Db,
    private readonly sealer: Sealer,
  ) {
    this.stmt = {
      get: db.prepare('SELECT * FROM proxy_files WHERE file = ?'),
      byId: db.prepare('SELECT * FROM proxy_files WHERE id = ?'),
      insert: db.prepare('INSERT INTO proxy_files (file, id, sealed_key, created_at) VALUES (@file, @id, @sealed_key, @created_at)'),
      move: db.prepare('UPDATE proxy_files SET file = ? WHERE file = ?'),
      delete: db.prepare('DELETE FROM proxy_files WHERE file = ?'),
    };
  }

  private open(row: IdentityRow): FileIdentity {
    return { id: row.id, key: this.sealer.open(row.sealed_key, binding(row.id)).toString('utf8'), created_at: row.created_at };
  }

  /** The identity of the file at `file`, made on its first load. */
  of(file: string): FileIdentity {
    const row = this.stmt.get.get(file) as IdentityRow | undefined;
    if (row) return this.open(row);
    return this.claim(file, { id: randomUUID(), key: newProxyKey(), created_at: nowIso() });
  }

  /** Whether some file's proxy has this id (now, or when its file comes back). */
  hasId(id: string): boolean {
    return this.stmt.byId.get(id.toLowerCase()) !== undefined;
  }

  /** Gives the file at `file` this identity (an export, an import): whatever the path had before is replaced. */
  claim(file: string, identity: FileIdentity): FileIdentity {
    this.stmt.delete.run(file);
    this.stmt.insert.run({ file, id: identity.id.toLowerCase(), sealed_key: this.sealer.seal(identity.key, binding(identity.id.toLowerCase())), created_at: identity.created_at });
    return { ...identity, id: identity.id.toLowerCase() };
  }

  /** A file renamed (its content unchanged): its identity follows it, unless the new path has one of its own. */
  move(from: string, to: string): boolean {
    if (this.stmt.get.get(to)) return false;
    return this.stmt.move.run(to, from).changes > 0;
  }
}
