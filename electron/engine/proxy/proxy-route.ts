import type { Caller } from '../access/authenticator';
import { missingKeyProblem } from '../access/authenticator';
import type { ProxyExchange } from './proxy-history';
import { causeOf } from '../server/event-cause';
import type { RequestContext, Route } from '../server/route-types';
import { encryptedRoot, withEncrypted, type OpenEncryptedHeader } from './encrypted-root';
import { outboundHeaders } from './header-rules';
import type { ProxyCore } from './proxy-core';
import { requireProxyCaller } from './proxy-rules';
import { ApiProblem } from '../server/problem';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** A call of a pre-configured proxy: the proxies feature answers it on the same routes. */
export interface PreconfiguredCalls {
  /** The proxy key the request names (`PFX-PROXY-KEY`, else the query parameter), or undefined: an ephemeral call. */
  keyOf(ctx: RequestContext): string | undefined;
  handle(ctx: RequestContext, exchange: ProxyExchange, key: string): Promise<'sent'>;
}

/**
 * /proxy (docs/api.md, Proxy): a request naming a proxy key goes to that pre-configured proxy; any other is ephemeral:
 * detokenize the body's expressions, forward to PFX-PROXY-URL, and stream the destination's answer back with
 * PFX-PROXY-DESTINATION-STATUS. Failures of the proxy itself are `{"proxy_error": …}` (the server wraps every ApiProblem
 * thrown here) and never carry the destination-status header. The key is checked by the server when one is given; a
 * pre-configured proxy may do without.
 */
export function proxyRoutes(
  core: ProxyCore,
  openEncrypted: OpenEncryptedHeader,
  preconfigured?: PreconfiguredCalls,
  /** The tenant's `disable_ephemeral_proxy` turned off, read at each call. */
  ephemeralAllowed: () => boolean = () => true,
): Route[] {
  const { prefix } = core;
  const apiKeyHeader = `${prefix}-API-KEY`;

  async function ephemeral(ctx: RequestContext, exchange: ProxyExchange): Promise<'sent'> {
    const { req } = ctx;
    const caller = ctx.caller as Caller | undefined;
    if (!caller) throw missingKeyProblem(apiKeyHeader);
    requireProxyCaller(caller);
    if (!ephemeralAllowed()) throw new ApiProblem(403, "The tenant's disable_ephemeral_proxy setting is on: call a pre-configured proxy by its key instead");

    const destination = core.destinationOf(ctx.prefixed('PROXY-URL'), req.url ?? '/proxy');
    exchange.destination = destination.href;
    for (const warning of destination.warnings) exchange.warnings.push(warning.message);
    const headers = outboundHeaders(req.rawHeaders, prefix);
    for (const warning of headers.warnings) exchange.warnings.push(warning.message);

    const encrypted = await encryptedRoot(ctx, exchange, prefix, openEncrypted);
    const received = await core.receive(ctx);
    const detokenized = core.detokenize(received, exchange, withEncrypted(core.tokensFor(caller, causeOf(ctx)), encrypted));
    // Awaited only when the vault reads the tokens later (a cold read over PostgreSQL): otherwise it goes on in this turn.
    const outbound = detokenized instanceof Promise ? await detokenized : detokenized;
    exchange.outbound = { method: ctx.method, headers: headers.headers, bytes: Buffer.isBuffer(outbound) ? outbound.length : outbound.size };
    const sent = core.evaluateHeaders(headers, core.proxyScope(ctx, outbound, {}));
    return core.relay(ctx, exchange, { origin: destination.origin, path: destination.path, method: ctx.method, headers: sent, body: outbound });
  }

  const handler = (ctx: RequestContext) =>
    core.run(ctx, (exchange) => {
      const key = preconfigured?.keyOf(ctx);
      return key === undefined ? ephemeral(ctx, exchange) : preconfigured!.handle(ctx, exchange, key);
    });

  return METHODS.flatMap((method) =>
    ['/proxy', '/proxy/*'].map((path): Route => ({ method, path, proxy: true, keyOptional: true, handler })),
  );
}
