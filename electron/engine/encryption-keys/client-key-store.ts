import { createPrivateKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { nowIso } from '../clock';
import { ApiProblem } from '../server/problem';
import type { Sealer } from '../storage/crypto';
import type { Db } from '../storage/database';
import { query } from '../storage/unit';

/** The vault's wipe: every client encryption key goes. */
export const deleteAllClientKeys = query('delete all client keys', 'DELETE FROM client_keys');

/** A client encryption key as every route but create answers it: never its public or private half. */
export interface ClientKeyInfo {
  key_id: string;
  expires_at: string;
}

/** POST /keys: the public half, which is answered this once. */
export interface NewClientKey extends ClientKeyInfo {
  public_key_pem: string;
}

interface ClientKeyRow {
  id: string;
  sealed_private: Buffer;
  expires_at: string;
  created_by: string | null;
  created_at: string;
}

/** The sealed private half is bound to its key's id: a blob copied onto another row does not open. */
const binding = (id: string) => `client-key:${id}`;

/**
 * The vendor's key "PEM" wraps the raw 32-byte X25519 public key, not an SPKI structure: its Elements strip the armour
 * and use the base64 body as the JWK's `x`, so that is what is answered.
 */
function vendorPem(publicKey: KeyObject): string {
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url');
  return `-----BEGIN PUBLIC KEY-----\n${raw.toString('base64')}\n-----END PUBLIC KEY-----`;
}

const info = (row: ClientKeyRow): ClientKeyInfo => ({ key_id: row.id, expires_at: row.expires_at });

/**
 * Client encryption keys (docs/api.md, Client encryption keys): X25519 pairs whose public half encrypts in the browser
 * and whose private half, sealed at rest, decrypts here. An expired key is gone: purged on a schedule and on access.
 */
export class ClientKeyStore {
  private readonly stmt;

  constructor(
    db: Db,
    private readonly sealer: Sealer,
  ) {
    this.stmt = {
      insert: db.prepare('INSERT INTO client_keys (id, sealed_private, expires_at, created_by, created_at) VALUES (?, ?, ?, ?, ?)'),
      get: db.prepare('SELECT id, sealed_private, expires_at FROM client_keys WHERE id = ? AND expires_at > ?'),
      list: db.prepare('SELECT * FROM client_keys WHERE expires_at > ? ORDER BY created_at, id'),
      delete: db.prepare('DELETE FROM client_keys WHERE id = ? AND expires_at > ?'),
      purge: db.prepare('DELETE FROM client_keys WHERE expires_at <= ?'),
    };
  }

  create(expiresAt: string, createdBy: string | null): NewClientKey {
    const { publicKey, privateKey } = generateKeyPairSync('x25519');
    const id = randomUUID();
    const sealed = this.sealer.seal(privateKey.export({ format: 'der', type: 'pkcs8' }), binding(id));
    this.stmt.insert.run(id, sealed, expiresAt, createdBy, nowIso());
    return { key_id: id, public_key_pem: vendorPem(publicKey), expires_at: expiresAt };
  }

  list(): ClientKeyInfo[] {
    return (this.stmt.list.all(nowIso()) as ClientKeyRow[]).map(info);
  }

  /** The live keys with who made them and when, for the workbench. */
  details(): (ClientKeyInfo & { created_at: string; created_by: string | null })[] {
    return (this.stmt.list.all(nowIso()) as ClientKeyRow[]).map((row) => ({ ...info(row), created_at: row.created_at, created_by: row.created_by }));
  }

  /** A live key, or undefined when there is none by that id (never made, deleted or expired). */
  find(id: string): ClientKeyInfo | undefined {
    const row = this.stmt.get.get(id, nowIso()) as ClientKeyRow | undefined;
    return row && info(row);
  }

  require(id: string): ClientKeyInfo {
    const found = this.find(id);
    if (!found) throw new ApiProblem(404, `Client encryption key ${id} not found`);
    return found;
  }

  delete(id: string): void {
    if (this.stmt.delete.run(id, nowIso()).changes === 0) throw new ApiProblem(404, `Client encryption key ${id} not found`);
  }

  /** The private half of a live key, to decrypt with; undefined when there is no such key. */
  privateKey(id: string): KeyObject | undefined {
    const row = this.stmt.get.get(id, nowIso()) as ClientKeyRow | undefined;
    return row && createPrivateKey({ key: this.sealer.open(row.sealed_private, binding(id)), format: 'der', type: 'pkcs8' });
  }

  /** Deletes the keys past their expiry; the reads above already treat them as gone. */
  purgeExpired(): number {
    return this.stmt.purge.run(nowIso()).changes;
  }
}
