import { decryptedWith, type EncryptedRequests } from '../encryption-keys/encrypted-requests';
import { causeOf } from '../server/event-cause';
import type { Route } from '../server/route-types';
import { parseWith } from '../server/validation';
import { parseTokenRequest } from '../vault/token-request-log';
import { createIntentRequest } from './intent-requests';
import type { AnyUnitRunner } from '../storage/unit';
import type { TokenIntents } from './token-intents';

/**
 * The token-intents endpoints (docs/api.md, Token intents). History keeps a create's type, its data redacted; data may
 * come encrypted with a client encryption key, as for POST /tokens.
 */
export function intentRoutes(intents: TokenIntents<AnyUnitRunner>, encrypted: EncryptedRequests): Route[] {
  return [
    {
      method: 'POST',
      path: '/token-intents',
      idempotent: true,
      handler: async (ctx) => {
        const sent = parseTokenRequest(ctx.log, await ctx.json(), (body) => parseWith(createIntentRequest, body));
        const input = await encrypted.open(sent, 'encrypted', decryptedWith(ctx));
        return { status: 201, body: await intents.create(input, ctx.caller, causeOf(ctx)) };
      },
    },
    {
      method: 'GET',
      path: '/token-intents/:id',
      handler: async (ctx) => ({ status: 200, body: await intents.get(ctx.params.id as string, ctx.caller) }),
    },
    {
      method: 'DELETE',
      path: '/token-intents/:id',
      handler: async (ctx) => {
        await intents.delete(ctx.params.id as string, ctx.caller, causeOf(ctx));
        return { status: 204 };
      },
    },
  ];
}
