import { randomUUID } from 'node:crypto';
import type { RemoteTarget } from '../../../shared/workbench/composer-contract';
import { ApiProblem } from '../server/problem';
import type { Sealer } from '../storage/crypto';
import { query, tx, type AnyUnitRunner } from '../storage/unit';

interface RemoteTargetRow {
  id: string;
  name: string;
  base_url: string;
  sealed_key: Buffer;
  created_at: string;
}

/** Where to send to a remote target: its address and its key, which never leave the engine. */
export interface RemoteConnection {
  baseUrl: string;
  apiKey: string;
}

const every = query<RemoteTargetRow>('every remote target', 'SELECT * FROM remote_targets ORDER BY created_at, id');
const one = query<RemoteTargetRow>('remote target', 'SELECT * FROM remote_targets WHERE id = ?');
const insert = query('insert remote target', 'INSERT INTO remote_targets (id, name, base_url, sealed_key, created_at) VALUES (@id, @name, @base_url, @sealed_key, @created_at)');
const deleteOne = query('delete remote target', 'DELETE FROM remote_targets WHERE id = ?');

/** A sealed key is bound to its target: a blob copied to another row does not open. */
const keyBinding = (id: string) => `remote-target-key:${id}`;

/** The service's address as requests are appended to it: http or https, no credentials, query or fragment. */
export function remoteBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ApiProblem(400, `“${text}” is not a URL: write it whole, such as https://api.basistheory.com`, { base_url: ['not a URL'] });
  }
  const refuse = (why: string) => new ApiProblem(400, `The base URL ${why}`, { base_url: [why] });
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse(`must use http or https, not ${url.protocol.slice(0, -1)}`);
  if (url.username !== '' || url.password !== '') throw refuse('must not hold a user name or password: the API key is given apart');
  if (url.search !== '' || url.hash !== '') throw refuse('must not hold a query or fragment: paths are appended to it');
  return url.href.replace(/\/+$/, '');
}

/**
 * The services the Composer may send to instead of this engine (another Tokenbench, the hosted service), each with the
 * API key the user pasted, sealed under the master key. Only the key's last four characters are ever shown.
 */
export class RemoteTargets {
  constructor(
    private readonly units: AnyUnitRunner,
    private readonly sealer: Sealer,
  ) {}

  async list(): Promise<RemoteTarget[]> {
    return (await this.units.read(() => tx.all(every))).map((row) => this.shown(row));
  }

  async add(input: { name: string; base_url: string; api_key: string }): Promise<RemoteTarget> {
    const row: RemoteTargetRow = { id: randomUUID(), name: input.name, base_url: remoteBaseUrl(input.base_url), sealed_key: Buffer.alloc(0), created_at: new Date().toISOString() };
    row.sealed_key = this.sealer.seal(input.api_key, keyBinding(row.id));
    await this.units.run(() => tx.run(insert, row));
    return this.shown(row);
  }

  async delete(id: string): Promise<boolean> {
    return (await this.units.run(() => tx.run(deleteOne, [id]))).changes > 0;
  }

  async connection(id: string): Promise<RemoteConnection> {
    const row = await this.units.read(() => tx.get(one, [id]));
    if (!row) throw new ApiProblem(404, `Remote target ${id} not found: it may have been deleted`);
    return { baseUrl: row.base_url, apiKey: this.keyOf(row) };
  }

  private keyOf(row: RemoteTargetRow): string {
    return this.sealer.open(row.sealed_key, keyBinding(row.id)).toString('utf8');
  }

  private shown(row: RemoteTargetRow): RemoteTarget {
    const key = [...this.keyOf(row)];
    // A key so short that four characters would be most of it shows none.
    const last4 = key.length > 8 ? key.slice(-4).join('') : '';
    return { id: row.id, name: row.name, base_url: row.base_url, key_last4: last4, created_at: row.created_at };
  }
}
