import { isUtf8 } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import { bodyKindOf, type CompiledBody, type ExpressionEngine } from '../expressions';
import { ApiProblem } from '../server/problem';
import type { RequestContext, Route } from '../server/route-types';
import type { TokenService } from '../vault/token-service';
import { resolveDestination } from './destination-url';
import { ForwardError, forwardFailure, type Forwarder, type ForwardResult } from './forwarder';
import { outboundHeaders } from './header-rules';
import { keptBody, proxyLogDetails, type ProxyExchange } from './proxy-history';
import { clientResponseHeaders } from './response-headers';

export interface ProxyLimits {
  headerPrefix: string;
  maxExpressions: number;
}

/** The hosted service detokenizes at most this many expressions per request (its proxies docs). */
export const HOSTED_EXPRESSION_LIMIT = 20;

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const mayHoldExpressions = (body: Buffer) => body.includes('{{') || body.includes('%7B%7B') || body.includes('%7b%7b');

/** Only a private application may detokenize, and it needs token:use even when this body uses no token. */
function authorize(ctx: RequestContext): void {
  const { application, policy } = ctx.caller;
  if (application.type !== 'private') {
    throw new ApiProblem(403, `The proxy takes a private application key; this key belongs to a ${application.type} application`);
  }
  if (!policy.has('token:use')) throw new ApiProblem(403, 'The application lacks token:use (or proxy:invoke)');
}

/**
 * The ephemeral proxy (wire contract §5): detokenize the body's expressions, forward to PFX-PROXY-URL, and stream the
 * destination's answer back with PFX-PROXY-DESTINATION-STATUS. Failures of the proxy itself are `{"proxy_error": …}`
 * (the server wraps every ApiProblem thrown here) and never carry the destination-status header.
 */
export function proxyRoutes(limits: ProxyLimits, tokens: TokenService, expressions: ExpressionEngine, forwarder: Forwarder): Route[] {
  const prefix = limits.headerPrefix;

  /** @param text the body decoded, undefined when it is not UTF-8 */
  function compile(text: string | undefined, contentType: string | undefined, exchange: ProxyExchange): CompiledBody {
    if (text === undefined) {
      throw new ApiProblem(400, 'The request body holds a {{ expression but is not valid UTF-8, so it cannot be detokenized');
    }
    const compiled = expressions.compileBody(text, bodyKindOf(contentType));
    exchange.expressionCount = compiled.expressionCount;
    exchange.tokenIds = compiled.tokenIds;
    if (compiled.expressionCount > limits.maxExpressions) {
      throw new ApiProblem(
        400,
        `The body holds ${compiled.expressionCount} expressions; at most ${limits.maxExpressions} are detokenized per request`,
      );
    }
    if (compiled.expressionCount > HOSTED_EXPRESSION_LIMIT) {
      exchange.warnings.push(`${compiled.expressionCount} expressions; the hosted service detokenizes at most ${HOSTED_EXPRESSION_LIMIT} per request`);
    }
    return compiled;
  }

  async function handle(ctx: RequestContext): Promise<'sent'> {
    const exchange: ProxyExchange = { warnings: [], expressionCount: 0, tokenIds: [], startedAt: ctx.startedAt };
    try {
      return await proxy(ctx, exchange);
    } catch (error) {
      if (error instanceof ApiProblem) exchange.failure ??= error;
      throw error;
    } finally {
      // After the response is out: masking the outbound body for history costs the client nothing.
      ctx.log.details = proxyLogDetails(exchange, tokens, prefix);
    }
  }

  async function proxy(ctx: RequestContext, exchange: ProxyExchange): Promise<'sent'> {
    const { req, res } = ctx;
    authorize(ctx);

    const destination = resolveDestination(ctx.prefixed('PROXY-URL'), req.url ?? '/proxy', prefix);
    exchange.destination = destination.url;
    exchange.warnings.push(...destination.warnings);
    if (destination.url.hostname === 'localhost') {
      exchange.warnings.push('destination is localhost; the hosted service cannot reach your machine');
    }
    const headers = outboundHeaders(req.rawHeaders, prefix);
    exchange.warnings.push(...headers.warnings);

    const body = await ctx.body();
    const utf8 = isUtf8(body);
    const mayDetokenize = body.length > 0 && mayHoldExpressions(body);
    // Decoded once, for detokenizing and for history alike.
    const text = mayDetokenize && utf8 ? body.toString('utf8') : undefined;
    // The body as sent, expressions and all: it never holds a detokenized value.
    ctx.log.requestBody = body.length > 0 ? { bytes: body.length, text: utf8 ? keptBody(body, text) : null } : undefined;
    const detokenizeStart = performance.now();
    const compiled = mayDetokenize ? compile(text, req.headers['content-type'], exchange) : null;
    let outbound = body;
    if (compiled) {
      const records = tokens.tokensForExpressions(compiled.tokenIds, ctx.caller, 'token:use');
      outbound = Buffer.from(compiled.render(records));
      exchange.render = { compiled, records };
    }
    exchange.detokenizeMs = performance.now() - detokenizeStart;
    exchange.outbound = { method: ctx.method, headers: headers.headers, bytes: outbound.length };

    const aborted = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    let result: ForwardResult;
    try {
      result = await forwarder.forward(
        { url: destination.url, method: ctx.method, headers: headers.headers, body: outbound.length > 0 ? outbound : null },
        aborted.signal,
      );
    } catch (error) {
      throw forwardFailure(error) ?? error;
    }
    exchange.response = { status: result.status, headers: result.headers, bytes: 0, headersMs: result.timings.headersMs };
    res.writeHead(result.status, [...clientResponseHeaders(result.headers, result.status, prefix), `${prefix}-TRACE-ID`, ctx.traceId]);
    await new Promise<void>((done) => {
      result.body.on('data', (chunk: Buffer) => {
        exchange.response!.bytes += chunk.length;
        if (!res.write(chunk)) result.body.pause();
      });
      res.on('drain', () => result.body.resume());
      result.body.once('end', () => res.end(done));
      result.body.once('error', (error) => {
        // Headers are gone: the only honest signal left is to cut the connection.
        exchange.failure = forwardFailure(error) ?? new ForwardError('bad_response', 'The destination response failed mid-body');
        res.destroy();
        done();
      });
      res.once('close', done);
    });
    return 'sent';
  }

  return METHODS.flatMap((method) =>
    ['/proxy', '/proxy/*'].map((path): Route => ({ method, path, proxy: true, handler: handle })),
  );
}

