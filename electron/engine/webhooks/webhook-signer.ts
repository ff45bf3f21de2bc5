/**
 * The install's webhook signing key (vendor-surfaces.md §5.4): one RSA-2048 pair, made the first time it is needed, its
 * private half sealed at rest under the master key. Deliveries are signed RSASSA-PSS with SHA-256 (MGF1 SHA-256, salt
 * 32) over the body, which is sent already in the canonical form a receiver re-creates (keys sorted, no whitespace).
 */
import { constants, createPrivateKey, generateKeyPair, sign, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import stringify from 'json-stable-stringify';
import { nowIso } from '../clock';
import type { Sealer } from '../storage/crypto';
import { query, tx, type AnyUnitRunner, type Unit } from '../storage/unit';

const BINDING = 'webhook-signing-key';
const makePair = promisify(generateKeyPair);
const signAsync = promisify(sign);

interface KeptKey {
  sealed_private: Buffer;
  public_pem: string;
}

const keptKey = query<KeptKey>('webhook signing key', 'SELECT sealed_private, public_pem FROM webhook_signing_key WHERE id = 1');
const keepKey = query('webhook signing key kept', 'INSERT INTO webhook_signing_key (id, sealed_private, public_pem, created_at) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO NOTHING');

/** Keeps a new pair unless one is kept already, and answers the kept one: replicas making theirs at once keep one. */
function* keeping(sealedPrivate: Buffer, publicPem: string, createdAt: string): Unit<KeptKey> {
  yield* tx.run(keepKey, [sealedPrivate, publicPem, createdAt]);
  return (yield* tx.get(keptKey))!;
}

interface SigningKey {
  privateKey: KeyObject;
  publicPem: string;
}

/** The bytes a delivery sends and signs: the JSON form that json-stable-stringify gives of the parsed body. */
export function canonicalJson(value: unknown): string {
  return stringify(value)!;
}

export class WebhookSigner {
  private key: Promise<SigningKey> | null = null;

  constructor(
    private readonly units: AnyUnitRunner,
    private readonly sealer: Sealer,
  ) {}

  /** The public half as PEM (SPKI), what `GET /keys/webhooks.v1.key` serves. */
  async publicKeyPem(): Promise<string> {
    return (await this.signingKey()).publicPem;
  }

  /**
   * The base64 signature of `body` (PFX-SIGNATURE). Signed on libuv's thread pool: an RSA-2048 signature takes
   * milliseconds, which a burst of events would otherwise take from every other client on the main thread.
   */
  async sign(body: string): Promise<string> {
    const { privateKey } = await this.signingKey();
    return (await signAsync('sha256', Buffer.from(body), { key: privateKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 32 })).toString('base64');
  }

  private signingKey(): Promise<SigningKey> {
    // Made off the main thread on first use: an install that never sends a webhook never pays for it.
    this.key ??= this.loadOrCreate().catch((error: unknown) => {
      this.key = null;
      throw error;
    });
    return this.key;
  }

  private async loadOrCreate(): Promise<SigningKey> {
    const kept = await this.units.read(() => tx.get(keptKey));
    if (kept) return this.opened(kept);
    const { publicKey, privateKey } = await makePair('rsa', { modulusLength: 2048 });
    const publicPem = publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const sealed = this.sealer.seal(privateKey.export({ format: 'der', type: 'pkcs8' }), BINDING);
    return this.opened(await this.units.run(() => keeping(sealed, publicPem, nowIso())));
  }

  private opened(kept: KeptKey): SigningKey {
    return { privateKey: createPrivateKey({ key: this.sealer.open(kept.sealed_private, BINDING), format: 'der', type: 'pkcs8' }), publicPem: kept.public_pem };
  }
}
