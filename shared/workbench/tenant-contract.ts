import { z } from 'zod';

/**
 * The tenant's settings (docs/api.md, Tenant): each a string with the values it takes, the first its default. The
 * engine validates PUT /tenants/self against the same table.
 */
export const TENANT_SETTINGS = {
  deduplicate_tokens: ['false', 'true'],
  token_deduplication_behavior: ['read_existing', 'update_existing'],
  fingerprint_tokens: ['true', 'false'],
  disable_ephemeral_proxy: ['false', 'true'],
} as const satisfies Record<string, readonly [string, ...string[]]>;

export type TenantSettingName = keyof typeof TENANT_SETTINGS;

/** Every setting with its value. */
export const tenantSettingsMapSchema = z.strictObject({
  deduplicate_tokens: z.enum(TENANT_SETTINGS.deduplicate_tokens),
  token_deduplication_behavior: z.enum(TENANT_SETTINGS.token_deduplication_behavior),
  fingerprint_tokens: z.enum(TENANT_SETTINGS.fingerprint_tokens),
  disable_ephemeral_proxy: z.enum(TENANT_SETTINGS.disable_ephemeral_proxy),
});
export type TenantSettingsMap = z.output<typeof tenantSettingsMapSchema>;

/** A tenant name: what PUT /tenants/self takes. */
export const tenantNameSchema = z.string().min(1, { error: 'Give the tenant a name (1 to 200 characters)' }).max(200, { error: 'A tenant name has at most 200 characters' });

/** The tenant as Settings shows it, with its usage report. */
export const tenantDetailSchema = z.object({
  tenant: z.object({
    id: z.string(),
    name: z.string(),
    type: z.string(),
    settings: tenantSettingsMapSchema,
    created_at: z.string(),
    modified_at: z.string().optional(),
  }),
  usage: z.object({
    total_tokens: z.number().int().nonnegative(),
    /** Tokens created, read or used this UTC month. */
    monthly_active_tokens: z.number().int().nonnegative(),
    metrics_by_type: z.record(z.string(), z.object({ count: z.number().int().nonnegative(), last_created_at: z.string() })),
  }),
});
export type TenantDetail = z.output<typeof tenantDetailSchema>;

/** A change of the tenant, as PUT /tenants/self makes it: the name and the whole settings map. */
export const tenantChangeSchema = z.strictObject({ name: tenantNameSchema, settings: tenantSettingsMapSchema });

/** Whether DELETE /tenants/self is allowed, or null to go back to the default (refused). */
export const tenantDeleteChangeSchema = z.strictObject({ allowTenantDelete: z.boolean().nullable().optional() });
