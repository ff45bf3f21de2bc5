import { z } from 'zod';

/** The vault's applications: the one the workbench acts as, and each as Settings edits it, with its rules, keys and permissions. */

const isoTimeSchema = z.string();

/** An application of the local engine, as the workbench picks one to act as. */
export const applicationChoiceSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(['private', 'public', 'management']),
  /** The key the workbench sends with for this application, minted on its first use; null until then or once revoked. */
  workbench_key: z.object({ id: z.string(), created_at: isoTimeSchema, key_last4: z.string().nullable() }).nullable(),
});
export type ApplicationChoice = z.output<typeof applicationChoiceSchema>;

/** The kinds of application the vault knows (docs/api.md, Applications and keys). */
export const APPLICATION_TYPES = ['private', 'public', 'management'] as const;
const applicationIdSchema = z.string().min(1).max(200);

/** An access rule as stored: tried in ascending priority (docs/api.md, Permissions and access rules). */
export const accessRuleSchema = z.object({
  description: z.string(),
  priority: z.number(),
  container: z.string(),
  transform: z.enum(['redact', 'mask', 'reveal']),
  permissions: z.array(z.string()),
});
export type AccessRuleView = z.output<typeof accessRuleSchema>;

/** An application as Settings shows it: its permissions, rules and keys (never a key's secret, nor its hash). */
export const applicationDetailSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(APPLICATION_TYPES),
  permissions: z.array(z.string()),
  rules: z.array(accessRuleSchema),
  /**
   * `kept`: a key Tokenbench keeps to use again, `workbench` (the Composer sends with it), `export` (seed files carry
   * it) or `runtime` (code transforms call back with it); null for a key made for a client. `key_last4`: how the workbench names the key (null for a key made before
   * Tokenbench kept them: it is named by its id).
   */
  keys: z.array(
    z.object({ id: z.string(), created_at: isoTimeSchema, key_last4: z.string().nullable(), kept: z.enum(['workbench', 'export', 'runtime']).nullable() }),
  ),
  created_at: isoTimeSchema,
  modified_at: isoTimeSchema.nullable(),
});
export type ApplicationDetail = z.output<typeof applicationDetailSchema>;

/**
 * An application's fields as Settings edits them. The shape is checked here; what they mean (a permission the type may
 * hold, a container's form) the engine checks as POST and PUT /applications do, naming each field it refuses.
 */
const applicationFieldsSchema = {
  name: z.string().max(200),
  permissions: z.array(z.string().max(100)).max(100),
  rules: z.array(z.unknown()).max(100),
};
export const newApplicationSchema = z.strictObject({ ...applicationFieldsSchema, type: z.enum(APPLICATION_TYPES) });
export const applicationChangeSchema = z.strictObject({ ...applicationFieldsSchema, id: applicationIdSchema });
export const applicationRefSchema = z.strictObject({ application_id: applicationIdSchema });
export const keyRefSchema = z.strictObject({ application_id: applicationIdSchema, key_id: z.string().min(1).max(200) });

/** A key just made: its secret is in this one answer and nowhere else, ever. */
export const newKeySchema = z.object({
  application: applicationDetailSchema,
  key: z.object({ id: z.string(), created_at: isoTimeSchema, key: z.string() }),
});

/** A permission an application may hold, in the vendor's words, and the types that may hold it. */
export const permissionInfoSchema = z.object({
  type: z.string(),
  description: z.string(),
  application_types: z.array(z.enum(APPLICATION_TYPES)),
});
export type PermissionInfo = z.output<typeof permissionInfoSchema>;

/** A live client encryption key as Settings shows it: never its public or private half. */
export const clientKeyInfoSchema = z.object({
  key_id: z.string(),
  expires_at: z.string(),
  created_at: z.string(),
  /** The application that made it; null when the engine did. */
  created_by: z.string().nullable(),
});
export type ClientKeyInfo = z.output<typeof clientKeyInfoSchema>;

/** A live session as Settings shows it: whose, and what an authorization granted it; never its key or nonce. */
export const sessionInfoSchema = z.object({
  id: z.string(),
  application_id: z.string(),
  application_name: z.string(),
  authorized: z.boolean(),
  permissions: z.array(z.string()),
  /** A rule with conditions covers the tokens they name (its container is then `/`). */
  rules: z.array(accessRuleSchema.extend({ conditions: z.array(z.object({ attribute: z.string(), operator: z.string(), value: z.string() })).optional() })),
  /** The private application that authorized it; null while waiting. */
  authorized_by: z.string().nullable(),
  created_at: z.string(),
  expires_at: z.string(),
});
export type SessionInfo = z.output<typeof sessionInfoSchema>;
