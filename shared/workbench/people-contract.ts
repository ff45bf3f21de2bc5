import { z } from 'zod';

/** A person the workbench acts for: a named credential's id and name. */
export const personSchema = z.object({ id: z.string(), name: z.string() });

/** Who the workbench acts for in this page: a named person, or null for its owner (the desktop app, serve's printed session). */
export const identitySchema = z.object({ person: personSchema.nullable() });

/** A named workbench credential as listed: never its secret, which only its creation answers. */
export const credentialInfoSchema = personSchema.extend({ created_at: z.string(), last_used_at: z.string().nullable() });
export type CredentialInfo = z.output<typeof credentialInfoSchema>;

export const newCredentialSchema = z.strictObject({ name: z.string() });
/** A new credential with its secret: shown this once, kept by the engine only as a hash. */
export const newCredentialReplySchema = z.object({ credential: credentialInfoSchema, secret: z.string() });
export const credentialRefSchema = z.strictObject({ name: z.string() });
