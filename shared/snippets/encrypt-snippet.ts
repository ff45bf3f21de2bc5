import { KEY_VARIABLE } from './request-snippet';

/** The variable the snippet reads the card number from, so the how-to itself holds none. */
export const CARD_VARIABLE = 'CARD_NUMBER';

/** What the how-to fills in: where the service is, and the key to encrypt with (null: a placeholder to replace). */
export interface EncryptSnippetInput {
  url: string;
  headerPrefix: string;
  key: { key_id: string; public_key_pem: string } | null;
}

/**
 * A Node.js module (ESM, `jose`) that encrypts a card as the vendor's Elements do and sends it to POST /tokens as
 * `encrypted`: the key "PEM" body is the raw X25519 public key, so it becomes the JWK's `x`. The private
 * application's key is read from $BT_API_KEY, as the request snippets read it, and the card number from $CARD_NUMBER.
 */
export function encryptSnippet({ url, headerPrefix, key }: EncryptSnippetInput): string {
  const keyId = key?.key_id ?? 'KEY_ID';
  const pem = key?.public_key_pem ?? '-----BEGIN PUBLIC KEY-----\nPUBLIC_KEY\n-----END PUBLIC KEY-----';
  return `import { CompactEncrypt, importJWK } from 'jose';

const keyId = ${JSON.stringify(keyId)};
const publicKeyPem = \`${pem}\`;

// The PEM's body is the raw X25519 public key: the JWK's x, in base64url.
const x = Buffer.from(publicKeyPem.replace(/-----[^-]+-----|\\s/g, ''), 'base64').toString('base64url');
const publicKey = await importJWK({ kty: 'OKP', crv: 'X25519', x }, 'ECDH-ES');
// What a card form collects: here a test card's number from $${CARD_VARIABLE}.
const data = { number: process.env.${CARD_VARIABLE}, expiration_month: 12, expiration_year: 2030, cvc: '123' };
const encrypted = await new CompactEncrypt(new TextEncoder().encode(JSON.stringify(data)))
  .setProtectedHeader({ alg: 'ECDH-ES', enc: 'A256GCM', kid: keyId })
  .encrypt(publicKey);

// Your back end sends the JWE in place of data, with a key holding token:create.
const response = await fetch(${JSON.stringify(`${url}/tokens`)}, {
  method: 'POST',
  headers: { ${JSON.stringify(`${headerPrefix}-API-KEY`)}: process.env.${KEY_VARIABLE}, 'Content-Type': 'application/json' },
  body: JSON.stringify({ type: 'card', encrypted }),
});
console.log(response.status, await response.text());
`;
}
