import { decryptedWith, type EncryptedRequests } from '../encryption-keys/encrypted-requests';
import { causeOf } from '../server/event-cause';
import { ApiProblem } from '../server/problem';
import type { RequestContext, Route } from '../server/route-types';
import { parseWith } from '../server/validation';
import { parseSearchQuery } from './search-query';
import type { TokenQueries, TokenFilter } from './token-queries';
import {
  clientTokenRequest,
  createTokenRequest,
  isConversion,
  listV1Query,
  listV2Query,
  metadataFilter,
  requireSingleValues,
  searchV1Request,
  searchV2Request,
  tokenOrConversion,
  updateTokenRequest,
} from './token-requests';
import { parseTokenRequest, tokenizeBodyForLog } from './token-request-log';
import type { AnyUnitRunner } from '../storage/unit';
import { TOKENS_PER_BUDGET, TOO_MANY_TOKENS, type TokenService, type WriteContext } from './token-service';

/** Who writes, and in which transaction; the history notes the transaction (kept only when the request succeeds). */
function writeContext(ctx: RequestContext): WriteContext {
  const transactionId = ctx.prefixed('TRANSACTION-ID');
  ctx.log.transactionId = transactionId;
  return { caller: ctx.caller, transactionId, cause: causeOf(ctx) };
}

/**
 * The tokens endpoints (docs/api.md: Tokens, Search, Tokenize and detokenize); `encrypted` opens token requests whose
 * data came encrypted with a client encryption key. Over either runner: a read that answers a Promise (PostgreSQL's) is
 * awaited, one that answers at once (SQLite's) is not.
 */
export function tokenRoutes(tokens: TokenService<AnyUnitRunner>, queries: TokenQueries, encrypted: EncryptedRequests): Route[] {
  const id = (ctx: RequestContext) => ctx.params.id as string;
  return [
    {
      method: 'POST',
      path: '/tokens',
      idempotent: true,
      handler: async (ctx) => {
        const sent = parseTokenRequest(ctx.log, await ctx.json(), (body) => parseWith(tokenOrConversion(body, clientTokenRequest), body));
        const input = isConversion(sent) ? sent : await encrypted.open(sent, 'encrypted', decryptedWith(ctx));
        return { status: 201, body: await tokens.createGrouped(input, writeContext(ctx)) };
      },
    },
    {
      method: 'GET',
      path: '/tokens/:id',
      handler: (ctx) => {
        const view = tokens.read(id(ctx), ctx.caller, causeOf(ctx));
        return view instanceof Promise ? view.then((body) => ({ status: 200, body })) : { status: 200, body: view };
      },
    },
    {
      method: 'PATCH',
      path: '/tokens/:id',
      idempotent: true,
      handler: async (ctx) => {
        const type = ctx.req.headers['content-type']?.split(';')[0].trim().toLowerCase();
        if (type !== 'application/merge-patch+json') {
          throw new ApiProblem(415, 'PATCH /tokens/{id} takes Content-Type: application/merge-patch+json');
        }
        const patch = parseTokenRequest(ctx.log, await ctx.json(), (body) => parseWith(updateTokenRequest, body));
        return { status: 200, body: await tokens.update(id(ctx), patch, writeContext(ctx)) };
      },
    },
    {
      method: 'DELETE',
      path: '/tokens/:id',
      handler: async (ctx) => {
        ctx.log.tokenType = await tokens.delete(id(ctx), writeContext(ctx));
        return { status: 204 };
      },
    },
    {
      method: 'GET',
      path: '/tokens',
      handler: async (ctx) => {
        const query = ctx.query();
        const { page, size } = parseWith(listV1Query, Object.fromEntries(query));
        const filter: TokenFilter = { ids: query.getAll('id'), metadata: metadataFilter(query, 'ignore'), metadataAnyCase: true };
        return { status: 200, body: await queries.pageV1(ctx.caller, 'token:read', filter, page, size, causeOf(ctx)) };
      },
    },
    {
      method: 'GET',
      path: '/v2/tokens',
      handler: async (ctx) => {
        const query = ctx.query();
        requireSingleValues(query);
        const q = parseWith(listV2Query, Object.fromEntries(query));
        const filter: TokenFilter = { ...q, metadata: metadataFilter(query, 'refuse') };
        return { status: 200, body: await queries.pageV2(ctx.caller, 'token:read', filter, q.start, q.size, causeOf(ctx)) };
      },
    },
    {
      method: 'POST',
      path: '/tokens/search',
      handler: async (ctx) => {
        const body = parseWith(searchV1Request, await ctx.json());
        const filter = { search: parseSearchQuery(body.query), metadataAnyCase: true };
        return { status: 200, body: await queries.pageV1(ctx.caller, 'token:search', filter, body.page, body.size, causeOf(ctx)) };
      },
    },
    {
      method: 'POST',
      path: '/v2/tokens/search',
      handler: async (ctx) => {
        const body = parseWith(searchV2Request, await ctx.json());
        const filter = { search: parseSearchQuery(body.query) };
        return { status: 200, body: await queries.pageV2(ctx.caller, 'token:search', filter, body.start, body.size, causeOf(ctx)) };
      },
    },
    {
      method: 'POST',
      path: '/tokenize',
      idempotent: true,
      handler: async (ctx) => {
        const sent = await ctx.json();
        ctx.log.requestBody = tokenizeBodyForLog(sent);
        const body = await encrypted.openAll(sent, decryptedWith(ctx), TOKENS_PER_BUDGET, TOO_MANY_TOKENS);
        const result = await tokens.tokenize(body, writeContext(ctx), (value, path) => parseWith(tokenOrConversion(value, createTokenRequest), value, path));
        return { status: 200, body: result };
      },
    },
    {
      method: 'POST',
      path: '/detokenize',
      handler: async (ctx) => {
        const body = await ctx.json();
        // Expressions, not values: the body as sent is safe to keep.
        ctx.log.requestBody = body;
        const detokenized = tokens.detokenize(body, ctx.caller, causeOf(ctx));
        return { status: 200, body: detokenized instanceof Promise ? await detokenized : detokenized };
      },
    },
  ];
}
