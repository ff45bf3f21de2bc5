import type { CompactJWEHeaderParameters } from 'jose';
import { validationProblem } from '../server/problem';
import type { ClientKeyStore } from './client-key-store';

/** The one scheme the vendor's Elements encrypt with: X25519 key agreement straight into an AES-256-GCM key. */
const ALGORITHM = 'ECDH-ES';
const ENCRYPTION = 'A256GCM';

/** What a JWE held, and which key opened it (History names the key, never the data). */
export interface Decrypted {
  data: unknown;
  keyId: string;
}

/**
 * Decrypts the `encrypted` of a token request (or of a PFX-ENCRYPTED entry), whose payload is the request's data as
 * JSON. Anything that does not open is a 400 naming `field` and saying why: not a JWE, another scheme, no key or a key
 * that is gone, a payload changed on the way.
 */
export async function decryptJwe(keys: ClientKeyStore, jwe: string, field: string): Promise<Decrypted> {
  const refuse = (why: string) => validationProblem({ [field]: [why] });
  // Loaded on the first encrypted request: few vaults get one, and every engine start would load it otherwise.
  const { compactDecrypt, decodeProtectedHeader } = await import('jose');
  let header: CompactJWEHeaderParameters;
  try {
    header = decodeProtectedHeader(jwe) as CompactJWEHeaderParameters;
  } catch {
    throw refuse('is not a JWE in compact serialization (five base64url parts joined by dots)');
  }
  if (header.alg !== ALGORITHM || header.enc !== ENCRYPTION) {
    throw refuse(`must be encrypted with alg ${ALGORITHM} and enc ${ENCRYPTION}, as the Elements encrypt with a client encryption key; this one is ${header.alg} and ${header.enc}`);
  }
  if (typeof header.kid !== 'string' || header.kid === '') throw refuse('names no key: its protected header needs kid, the client encryption key\'s id');
  const privateKey = await keys.privateKey(header.kid);
  if (!privateKey) throw refuse(`was encrypted for client encryption key ${header.kid}, which does not exist or has expired`);
  let plaintext: Uint8Array;
  try {
    ({ plaintext } = await compactDecrypt(jwe, privateKey, { keyManagementAlgorithms: [ALGORITHM], contentEncryptionAlgorithms: [ENCRYPTION] }));
  } catch {
    throw refuse(`does not decrypt with client encryption key ${header.kid}: it was changed, or encrypted for another key`);
  }
  try {
    return { data: JSON.parse(Buffer.from(plaintext).toString('utf8')), keyId: header.kid };
  } catch {
    throw refuse('decrypts to something that is not JSON: encrypt the token data as JSON, as the Elements do');
  }
}
