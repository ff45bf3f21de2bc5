import { z } from 'zod';
import { accessRuleSchema } from './application-contract';

/**
 * What front ends use beside an application's key, as Settings shows them (docs/api.md, Client encryption keys and
 * Sessions): client encryption keys, never their private half, and live sessions, never their key or nonce.
 */

/** What every client encryption key is; the JWE made with its public half is ECDH-ES with A256GCM. */
export const CLIENT_KEY_ALGORITHM = 'X25519';

/** A client encryption key as Settings lists it. `created_by`: the application whose key made it; null for Settings. */
export const clientKeyInfoSchema = z.object({
  key_id: z.string(),
  created_at: z.string(),
  expires_at: z.string(),
  algorithm: z.string(),
  created_by: z.object({ id: z.string(), name: z.string().nullable() }).nullable(),
});
export type ClientKeyInfo = z.output<typeof clientKeyInfoSchema>;

/** A key to make: `expires_at` as POST /keys takes it (in the future, at most a year away); left out, a year. */
export const newClientKeySchema = z.strictObject({ expires_at: z.string().max(100).optional() });

/** A key just made: its public half is in this one answer; the engine does not keep it. */
export const newClientKeyReplySchema = z.object({ key: clientKeyInfoSchema, public_key_pem: z.string() });

export const clientKeyRefSchema = z.strictObject({ key_id: z.string().min(1).max(200) });

/**
 * A live session as Settings lists it: the public application it belongs to, and what its authorization granted (null
 * until one; `authorized_by` the private application that granted it).
 */
export const sessionInfoSchema = z.object({
  id: z.string(),
  application: z.object({ id: z.string(), name: z.string() }),
  created_at: z.string(),
  expires_at: z.string(),
  authorization: z
    .object({
      at: z.string(),
      by: z.object({ id: z.string(), name: z.string().nullable() }),
      permissions: z.array(z.string()),
      rules: z.array(accessRuleSchema),
    })
    .nullable(),
});
export type SessionInfo = z.output<typeof sessionInfoSchema>;

export const sessionRefSchema = z.strictObject({ id: z.string().min(1).max(200) });
