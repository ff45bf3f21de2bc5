import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from './atomic-file';
import { ensurePrivateFileIfPresent } from './private-files';

/**
 * Envelope encryption for token data: every sealed value gets its own random data key (AES-256-GCM), and that key
 * is itself wrapped by the install's master key. The associated data binds a ciphertext to its row, so a sealed
 * blob copied onto another token does not decrypt.
 *
 * Layout: version(1) | wrapNonce(12) | wrapTag(16) | wrappedKey(32) | nonce(12) | tag(16) | ciphertext
 */
const VERSION = 1;
const NONCE = 12;
const TAG = 16;
const KEY = 32;
const HEADER = 1 + NONCE + TAG + KEY + NONCE + TAG;

export const MASTER_KEY_FILE = 'master.key';

export class SealError extends Error {}

function gcmEncrypt(key: Buffer, nonce: Buffer, plaintext: Buffer, aad: Buffer): { nonce: Buffer; tag: Buffer; ciphertext: Buffer } {
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { nonce, tag: cipher.getAuthTag(), ciphertext };
}

function gcmDecrypt(key: Buffer, nonce: Buffer, tag: Buffer, ciphertext: Buffer, aad: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, nonce);
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  const plaintext = decipher.update(ciphertext);
  // GCM is a stream mode: final() only checks the tag and returns no bytes, so there is nothing to concatenate.
  const rest = decipher.final();
  return rest.length === 0 ? plaintext : Buffer.concat([plaintext, rest]);
}

export class Sealer {
  private readonly wrapKey: Buffer;
  private readonly fingerprintKey: Buffer;
  private readonly apiKeyHashKey: Buffer;
  /**
   * Stored with the vault so a start with another key is refused before it writes: a MAC of a fixed label under a
   * key derived for this alone, which tells whether a key is the vault's and nothing about the key itself.
   */
  readonly checkValue: Buffer;

  /** Sub-keys are derived from the master key so one secret file (or one keychain entry) protects the install. */
  constructor(masterKey: Buffer) {
    if (masterKey.length !== KEY) throw new SealError('The master key must be 32 bytes');
    const derive = (purpose: string) => Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), purpose, KEY));
    this.wrapKey = derive('tokenbench/wrap-data-keys');
    this.fingerprintKey = derive('tokenbench/fingerprints');
    this.apiKeyHashKey = derive('tokenbench/api-key-hashes');
    this.checkValue = createHmac('sha256', derive('tokenbench/master-key-check')).update('tokenbench master key check').digest();
  }

  seal(plaintext: Buffer | string, associatedData: string): Buffer {
    const aad = Buffer.from(associatedData);
    // One call to the CSPRNG for the data key and both nonces: it is the costliest step of a seal.
    const random = randomBytes(KEY + 2 * NONCE);
    const dataKey = random.subarray(0, KEY);
    const wrapped = gcmEncrypt(this.wrapKey, random.subarray(KEY, KEY + NONCE), dataKey, aad);
    const sealed = gcmEncrypt(dataKey, random.subarray(KEY + NONCE), Buffer.isBuffer(plaintext) ? plaintext : Buffer.from(plaintext), aad);
    return Buffer.concat([
      Buffer.from([VERSION]),
      wrapped.nonce,
      wrapped.tag,
      wrapped.ciphertext,
      sealed.nonce,
      sealed.tag,
      sealed.ciphertext,
    ]);
  }

  open(blob: Buffer, associatedData: string): Buffer {
    if (blob.length < HEADER || blob[0] !== VERSION) throw new SealError('Sealed value has an unknown format');
    const aad = Buffer.from(associatedData);
    let at = 1;
    const take = (n: number) => blob.subarray(at, (at += n));
    const wrapNonce = take(NONCE);
    const wrapTag = take(TAG);
    const wrappedKey = take(KEY);
    const nonce = take(NONCE);
    const tag = take(TAG);
    try {
      const dataKey = gcmDecrypt(this.wrapKey, wrapNonce, wrapTag, wrappedKey, aad);
      return gcmDecrypt(dataKey, nonce, tag, blob.subarray(at), aad);
    } catch {
      throw new SealError('Sealed value failed authentication (tampered, or sealed under another key)');
    }
  }

  sealJson(value: unknown, associatedData: string): Buffer {
    return this.seal(JSON.stringify(value), associatedData);
  }

  openJson<T>(blob: Buffer, associatedData: string): T {
    return JSON.parse(this.open(blob, associatedData).toString('utf8')) as T;
  }

  /** Keyed fingerprint (PCI DSS 3.5.1.1): deterministic within an install, unrelated across installs. */
  fingerprint(value: string): string {
    return createHmac('sha256', this.fingerprintKey).update(value).digest('base64url');
  }

  /** API keys are stored only as this keyed hash; the secret itself is shown once. */
  hashApiKey(key: string): string {
    return createHmac('sha256', this.apiKeyHashKey).update(key).digest('hex');
  }
}

/** The form of a master key anywhere it is given: 32 bytes in standard base64 (`openssl rand -base64 32`). */
export function parseMasterKey(text: string): Buffer | null {
  const trimmed = text.trim();
  return /^[A-Za-z0-9+/]{43}=$/.test(trimmed) ? Buffer.from(trimmed, 'base64') : null;
}

/** The key file a data folder holds, or null where it holds none. */
export function readMasterKeyFile(dataDir: string): Buffer | null {
  const file = join(dataDir, MASTER_KEY_FILE);
  if (!existsSync(file)) return null;
  ensurePrivateFileIfPresent(file);
  const key = parseMasterKey(readFileSync(file, 'utf8'));
  if (!key) throw new SealError(`${file} does not hold a 32-byte base64 key`);
  return key;
}

function createMasterKeyFile(dataDir: string): Buffer {
  try {
    writeFileAtomic(join(dataDir, MASTER_KEY_FILE), randomBytes(KEY).toString('base64') + '\n', 'create');
  } catch (error) {
    // Another start made the key first (two first starts at once): its key is the install's, and data may already
    // be sealed under it, so it is read below rather than replaced.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return readMasterKeyFile(dataDir)!;
}

/**
 * Headless installs without a key of their own keep it in a 0600 file beside the database, made on the first start;
 * the desktop app will wrap it with the OS keychain instead. In-memory runs get a throwaway key.
 */
export function loadOrCreateMasterKey(dataDir: string | null): Buffer {
  if (dataDir === null) return randomBytes(KEY);
  return readMasterKeyFile(dataDir) ?? createMasterKeyFile(dataDir);
}
