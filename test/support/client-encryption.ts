import { CompactEncrypt, importJWK } from 'jose';

/**
 * Encrypts token data as the vendor's Elements do (its web, React Native and Android SDKs): the "PEM" body is the raw
 * X25519 public key, used as the JWK's `x`; the JWE is ECDH-ES with A256GCM, `kid` the key's id, its payload the data
 * as JSON. `header` replaces parts of the protected header, for tests of what the engine refuses.
 */
export async function encryptLikeElements(data: unknown, publicKeyPem: string, keyId: string, header: Record<string, string> = {}): Promise<string> {
  const raw = publicKeyPem.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '').replace(/\s/g, '');
  const key = await importJWK({ kty: 'OKP', crv: 'X25519', x: Buffer.from(raw, 'base64').toString('base64url') }, 'ECDH-ES');
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(data)))
    .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A256GCM', kid: keyId, ...header })
    .encrypt(key);
}
