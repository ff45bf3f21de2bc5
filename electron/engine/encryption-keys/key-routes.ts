import { z } from 'zod';
import { managed } from '../access/managed-route';
import type { Route } from '../server/route-types';
import { futureInstant, parseWith } from '../server/validation';
import type { ClientKeyStore } from './client-key-store';

/** The vendor's limit: a key lives at most a year, and one made without expires_at gets that year. */
const MAX_LIFE_MS = 365 * 24 * 3600 * 1000;
const EXPIRY = 'expires_at must be an ISO 8601 date and time in the future, at most a year away';

/** POST /keys, and the workbench's key made in Settings: the same checks. */
export const createKeyRequest = z.object({
  expires_at: futureInstant(EXPIRY, () => new Date(Date.now() + MAX_LIFE_MS).toISOString(), MAX_LIFE_MS),
});

/**
 * Client encryption keys (docs/api.md, Client encryption keys), for management applications holding `keys:*`; and the
 * path the webhooks' signing key is published at (`webhookKeyPem`, the public half as PEM), which is no key id.
 */
export function clientKeyRoutes(keys: ClientKeyStore, webhookKeyPem: () => Promise<string>): Route[] {
  const id = (params: Record<string, string | undefined>) => params.id as string;
  return [
    {
      method: 'POST',
      path: '/keys',
      idempotent: true,
      handler: managed('keys:create', async (ctx) => {
        // The node SDK sends no body when create() is called without a request.
        const body = (await ctx.body()).size === 0 ? {} : await ctx.json();
        const input = parseWith(createKeyRequest, body);
        ctx.log.requestBody = input;
        const created = await keys.create(input.expires_at, ctx.caller.application.id);
        ctx.log.details = { client_encryption_key: created.key_id };
        return { status: 201, body: created };
      }),
    },
    {
      method: 'GET',
      path: '/keys',
      handler: managed('keys:read', async () => ({ status: 200, body: await keys.list() })),
    },
    {
      method: 'GET',
      path: '/keys/webhooks.v1.key',
      public: true,
      // Served as the vendor's CDN serves its own: the PEM text, for a receiver to verify PFX-SIGNATURE with.
      handler: async (ctx): Promise<'sent'> => {
        const pem = await webhookKeyPem();
        ctx.res.writeHead(200, { 'content-type': 'application/x-pem-file', 'content-length': Buffer.byteLength(pem) });
        ctx.res.end(pem);
        return 'sent';
      },
    },
    {
      method: 'GET',
      path: '/keys/:id',
      handler: managed('keys:read', async (ctx) => ({ status: 200, body: await keys.require(id(ctx.params)) })),
    },
    {
      method: 'DELETE',
      path: '/keys/:id',
      handler: managed('keys:delete', async (ctx) => {
        await keys.delete(id(ctx.params));
        ctx.log.details = { client_encryption_key: id(ctx.params) };
        return { status: 204 };
      }),
    },
  ];
}
