import { z } from 'zod';
import { managed } from '../access/managed-route';
import { causeOf } from '../server/event-cause';
import { ApiProblem } from '../server/problem';
import type { Route } from '../server/route-types';
import { parseWith } from '../server/validation';
import type { ActiveTokens } from '../vault/active-tokens';
import type { TokenStore } from '../vault/token-store';
import type { AnyUnitRunner } from '../storage/unit';
import { tenantSettingsSchema } from './tenant-settings';
import type { TenantStore } from './tenant-store';

const NAME_RULE = 'name must be a string of 1 to 200 characters';

/** PUT /tenants/self: a name, and the settings map that replaces the one kept (absent or null: every default). */
export const updateTenantRequest = z.object({
  name: z.string({ error: NAME_RULE }).min(1, { error: NAME_RULE }).max(200, { error: NAME_RULE }),
  settings: tenantSettingsSchema.nullish().transform((settings) => settings ?? {}),
});

/** Why DELETE /tenants/self is refused, and how to allow it. */
export const DELETE_DISABLED = 'tenant deletion is disabled: start the engine with --allow-tenant-delete, or allow it in Settings (Tenant)';

/** What GET /tenants/self/reports/usage answers: the node SDK's `total_tokens` and the docs' `token_report`, both. */
export interface UsageReport {
  total_tokens: number;
  token_report: {
    metrics_by_type: Record<string, { count: number; last_created_at: string }>;
    included_monthly_active_tokens: number;
    monthly_active_tokens: number;
    total_tokens: number;
  };
}

/** The usage report over either database: its counts are read (awaited) at each call. */
export async function usageReport(tokens: TokenStore<AnyUnitRunner>, active: ActiveTokens<AnyUnitRunner>): Promise<UsageReport> {
  const [byType, monthlyActive] = await Promise.all([tokens.countsByType(), active.count()]);
  const total = byType.reduce((sum, { count }) => sum + count, 0);
  return {
    total_tokens: total,
    token_report: {
      metrics_by_type: Object.fromEntries(byType.map(({ type, count, last_created_at }) => [type, { count, last_created_at }])),
      // The hosted plans' allowance: Tokenbench bills nothing, so none is included.
      included_monthly_active_tokens: 0,
      monthly_active_tokens: monthlyActive,
      total_tokens: total,
    },
  };
}

export interface TenantRouteDeps {
  tenant: TenantStore;
  usage: () => Promise<UsageReport>;
  /** Whether the engine allows DELETE /tenants/self now (`--allow-tenant-delete`, or Settings). */
  deletable: () => boolean;
  /** Wipes every resource and makes the tenant new, the seed applied again. */
  remove: () => void | Promise<void>;
}

/** The tenant endpoints (docs/api.md, Tenant): management permissions only, as the vendor's. */
export function tenantRoutes({ tenant, usage, deletable, remove }: TenantRouteDeps): Route[] {
  return [
    { method: 'GET', path: '/tenants/self', handler: managed('tenant:read', () => ({ status: 200, body: tenant.view() })) },
    {
      method: 'PUT',
      path: '/tenants/self',
      idempotent: true,
      handler: managed('tenant:update', async (ctx) => {
        const input = parseWith(updateTenantRequest, await ctx.json());
        ctx.log.requestBody = input;
        return { status: 200, body: await tenant.update(input, causeOf(ctx)) };
      }),
    },
    {
      method: 'DELETE',
      path: '/tenants/self',
      handler: managed('tenant:delete', async () => {
        if (!deletable()) throw new ApiProblem(422, DELETE_DISABLED);
        await remove();
        return { status: 204 };
      }),
    },
    { method: 'GET', path: '/tenants/self/reports/usage', handler: managed('report:read', async () => ({ status: 200, body: await usage() })) },
  ];
}
