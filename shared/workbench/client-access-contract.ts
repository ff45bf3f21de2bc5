import { z } from 'zod';
import { clientKeyInfoSchema } from './application-contract';

/**
 * What Settings changes of what front ends use beside an application's key (docs/api.md, Client encryption keys and
 * Sessions); the lists are in application-contract.ts.
 */

/** What every client encryption key is; the JWE made with its public half is ECDH-ES with A256GCM. */
export const CLIENT_KEY_ALGORITHM = 'X25519';

/** A key to make: `expires_at` as POST /keys takes it (in the future, at most a year away); left out, a year. */
export const newClientKeySchema = z.strictObject({ expires_at: z.string().max(100).optional() });

/** A key just made: its public half is in this one answer; the engine does not keep it. */
export const newClientKeyReplySchema = z.object({ key: clientKeyInfoSchema, public_key_pem: z.string() });

export const clientKeyRefSchema = z.strictObject({ key_id: z.string().min(1).max(200) });

export const sessionRefSchema = z.strictObject({ id: z.string().min(1).max(200) });
