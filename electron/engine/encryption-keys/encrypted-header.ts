import type { TokenRecord } from '../expressions';
import { ApiProblem } from '../server/problem';
import type { ClientKeyStore } from './client-key-store';
import { decryptJwe } from './jwe-decryption';

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isEncryptedRequest = (value: unknown): value is { type: string; encrypted: string } =>
  isObject(value) && typeof value.type === 'string' && typeof value.encrypted === 'string';

/**
 * A proxy call's PFX-ENCRYPTED header (docs/api.md, Client encryption keys), opened: base64 of one token request
 * `{type, encrypted}`, or of a map of names to them, each `encrypted` a JWE of its data. The result is what the
 * `encrypted` root of the body's expressions reads: `{type, data}`, or a map of names to them. A header of any other
 * shape is a 400 saying which; one that does not decrypt, a 400 naming the entry. `opened` hears of each key used, for
 * History (which names keys, never data).
 */
export async function openEncryptedHeader(keys: ClientKeyStore, value: string, header: string, opened: (keyId: string) => void): Promise<TokenRecord> {
  const shape = `${header} must be base64 of a JSON token request {"type", "encrypted"}, or of an object of them by name`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
  } catch {
    throw new ApiProblem(400, shape);
  }
  const open = async (request: { type: string; encrypted: string }, field: string) => {
    const { data, keyId } = await decryptJwe(keys, request.encrypted, field);
    opened(keyId);
    return { type: request.type, data };
  };
  if (isEncryptedRequest(parsed)) return (await open(parsed, `${header}.encrypted`)) as unknown as TokenRecord;
  if (!isObject(parsed) || Object.keys(parsed).length === 0 || !Object.values(parsed).every(isEncryptedRequest)) throw new ApiProblem(400, shape);
  const entries = await Promise.all(
    Object.entries(parsed as Record<string, { type: string; encrypted: string }>).map(async ([name, request]) => [name, await open(request, `${header}.${name}.encrypted`)] as const),
  );
  return Object.fromEntries(entries) as unknown as TokenRecord;
}
