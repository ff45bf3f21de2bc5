import type { Caller } from './authenticator';
import { AccessPolicy, TOKEN_PERMISSIONS } from './permissions';

/**
 * The engine acting for itself (seeding), or on behalf of `as` (a proxy's tokenize transform, whose tokens are created
 * by the calling application or the proxy): every token permission, on every container.
 */
export function systemCaller(tenantId: string, as: { id: string; name: string } = { id: 'system', name: 'Tokenbench' }): Caller {
  const application = {
    id: as.id,
    tenant_id: tenantId,
    name: as.name,
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
