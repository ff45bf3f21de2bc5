import type { Caller } from './authenticator';
import { AccessPolicy, TOKEN_PERMISSIONS } from './permissions';

/** The engine acting for itself (seeding): every token permission, on every container. */
export function systemCaller(tenantId: string): Caller {
  const application = {
    id: 'system',
    tenant_id: tenantId,
    name: 'Tokenbench',
    type: 'private' as const,
    permissions: [...TOKEN_PERMISSIONS],
    rules: [],
    keys: [],
    created_by: null,
    created_at: new Date(0).toISOString(),
    modified_by: null,
    modified_at: null,
  };
  return { application, keyId: 'system', policy: new AccessPolicy(application) };
}
