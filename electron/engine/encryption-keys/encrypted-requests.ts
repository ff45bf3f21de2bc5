import { ApiProblem, validationProblem } from '../server/problem';
import type { ClientKeyStore } from './client-key-store';
import { decryptJwe } from './jwe-decryption';

/** A token request that may carry its data encrypted (`encrypted`, a JWE) in place of `data`. */
export interface MaybeEncrypted {
  data?: unknown;
  encrypted?: string | null;
}

/**
 * Opens token requests whose data arrived encrypted with a client encryption key, before they are validated and
 * created like any other. `opened` hears of each key used, for History (which names keys, never data).
 */
export interface EncryptedRequests {
  /** The request with `encrypted` decrypted into `data`; `field` names it in errors (`encrypted`, `card.encrypted`). */
  open<T extends MaybeEncrypted>(request: T, field: string, opened: (keyId: string) => void): Promise<Opened<T>>;
  /**
   * A POST /tokenize body with every encrypted token request in it opened; more than `most` of them is `tooMany` (a
   * 400) before any is decrypted, so a large body cannot make the engine decrypt for tokens it will never create.
   */
  openAll(body: unknown, opened: (keyId: string) => void, most: number, tooMany: string): Promise<unknown>;
}

/** A token request once opened: its data in the clear, no `encrypted` left. */
export type Opened<T> = Omit<T, 'encrypted' | 'data'> & { data: unknown };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export function encryptedRequests(keys: ClientKeyStore): EncryptedRequests {
  async function open<T extends MaybeEncrypted>(request: T, field: string, opened: (keyId: string) => void): Promise<Opened<T>> {
    if (request.encrypted === undefined || request.encrypted === null) return request as Opened<T>;
    if (typeof request.encrypted !== 'string') throw validationProblem({ [field]: ['must be a JWE string'] });
    // The vendor takes either: data in the clear, or data encrypted; both at once would leave one of them unread.
    if (request.data !== undefined) throw validationProblem({ [field]: ['comes instead of data: send one of them'] });
    const { data, keyId } = await decryptJwe(keys, request.encrypted, field);
    opened(keyId);
    const { encrypted: _opened, data: _absent, ...rest } = request;
    return { ...rest, data };
  }

  /** POST /tokenize walks its body the same way: an object with a type and encrypted data is one token request. */
  const isEncrypted = (value: Record<string, unknown>) => 'type' in value && 'encrypted' in value;

  function count(body: unknown): number {
    if (Array.isArray(body)) return body.reduce((n: number, item) => n + count(item), 0);
    if (!isObject(body)) return 0;
    if (isEncrypted(body)) return 1;
    return Object.values(body).reduce((n: number, value) => n + count(value), 0);
  }

  async function openEach(body: unknown, opened: (keyId: string) => void, path: string): Promise<unknown> {
    if (Array.isArray(body)) return Promise.all(body.map((item, i) => openEach(item, opened, `${path}[${i}]`)));
    if (!isObject(body)) return body;
    const at = (key: string) => (path ? `${path}.${key}` : key);
    if (isEncrypted(body)) return open(body as MaybeEncrypted, at('encrypted'), opened);
    if ('type' in body && 'data' in body) return body;
    const entries = await Promise.all(Object.entries(body).map(async ([key, value]) => [key, await openEach(value, opened, at(key))] as const));
    return Object.fromEntries(entries);
  }

  return {
    open,
    openAll(body, opened, most, tooMany) {
      if (count(body) > most) throw new ApiProblem(400, tooMany);
      return openEach(body, opened, '');
    },
  };
}
