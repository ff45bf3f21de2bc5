import { createPrivateKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { nowIso } from '../clock';
import { ApiProblem } from '../server/problem';
import type { Sealer } from '../storage/crypto';
import { query, tx, type AnyUnitRunner } from '../storage/unit';

/** The vault's wipe: every client encryption key goes. */
export const deleteAllClientKeys = query('delete all client keys', 'DELETE FROM client_keys');
const insert = query('insert client key', 'INSERT INTO client_keys (id, sealed_private, expires_at, created_by, created_at) VALUES (?, ?, ?, ?, ?)');
const live = query<ClientKeyRow>('live client key', 'SELECT id, sealed_private, expires_at FROM client_keys WHERE id = ? AND expires_at > ?');
const allLive = query<ClientKeyRow>('live client keys', 'SELECT * FROM client_keys WHERE expires_at > ? ORDER BY created_at, id');
const deleteLive = query('delete client key', 'DELETE FROM client_keys WHERE id = ? AND expires_at > ?');
const purge = query('purge client keys', 'DELETE FROM client_keys WHERE expires_at <= ?');

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
  constructor(
    private readonly units: AnyUnitRunner,
    private readonly sealer: Sealer,
  ) {}

  async create(expiresAt: string, createdBy: string | null): Promise<NewClientKey> {
    const { publicKey, privateKey } = generateKeyPairSync('x25519');
    const id = randomUUID();
    const sealed = this.sealer.seal(privateKey.export({ format: 'der', type: 'pkcs8' }), binding(id));
    await this.units.run(() => tx.run(insert, [id, sealed, expiresAt, createdBy, nowIso()]));
    return { key_id: id, public_key_pem: vendorPem(publicKey), expires_at: expiresAt };
  }

  async list(): Promise<ClientKeyInfo[]> {
    return (await this.units.read(() => tx.all(allLive, [nowIso()]))).map(info);
  }

  /** The live keys with who made them and when, for the workbench. */
  async details(): Promise<(ClientKeyInfo & { created_at: string; created_by: string | null })[]> {
    return (await this.units.read(() => tx.all(allLive, [nowIso()]))).map((row) => ({ ...info(row), created_at: row.created_at, created_by: row.created_by }));
  }

  /** A live key, or undefined when there is none by that id (never made, deleted or expired). */
  async find(id: string): Promise<ClientKeyInfo | undefined> {
    const row = await this.live(id);
    return row && info(row);
  }

  async require(id: string): Promise<ClientKeyInfo> {
    const found = await this.find(id);
    if (!found) throw new ApiProblem(404, `Client encryption key ${id} not found`);
    return found;
  }

  async delete(id: string): Promise<void> {
    const { changes } = await this.units.run(() => tx.run(deleteLive, [id, nowIso()]));
    if (changes === 0) throw new ApiProblem(404, `Client encryption key ${id} not found`);
  }

  /** The private half of a live key, to decrypt with; undefined when there is no such key. */
  async privateKey(id: string): Promise<KeyObject | undefined> {
    const row = await this.live(id);
    return row && createPrivateKey({ key: this.sealer.open(row.sealed_private, binding(id)), format: 'der', type: 'pkcs8' });
  }

  /** Deletes the keys past their expiry; the reads above already treat them as gone. */
  async purgeExpired(): Promise<number> {
    return (await this.units.run(() => tx.run(purge, [nowIso()]))).changes;
  }

  private async live(id: string): Promise<ClientKeyRow | undefined> {
    return await this.units.read(() => tx.get(live, [id, nowIso()]));
  }
}
