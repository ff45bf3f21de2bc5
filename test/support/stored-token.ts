import type { StoredToken } from '../../electron/engine/vault/token-store';

/** A token as the vault stores it, for the store suites: plain data named after its id, `fields` over the rest. */
export const storedToken = (id: string, fields: Partial<StoredToken> = {}): StoredToken => ({
  id,
  tenant_id: 'tenant-1',
  type: 'token',
  data: `secret of ${id}`,
  containers: ['/general/high/'],
  metadata: {},
  mask: null,
  fingerprint: null,
  fingerprint_expression: null,
  search_indexes: [],
  expires_at: null,
  created_by: 'app-1',
  created_at: '2026-01-01T00:00:00.000Z',
  modified_by: null,
  modified_at: null,
  ...fields,
});
