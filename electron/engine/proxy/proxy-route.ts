import { performance } from 'node:perf_hooks';
import { type BodyKind, bodyKindOf, type CompiledBody, ExpressionBudget, type ExpressionEngine, markersEnd } from '../expressions';
import { LruCache } from '../lru-cache';
import { asBody, type BodyChunks, chunksAreUtf8, joinChunks, prefixOf } from '../server/body-chunks';
import { ApiProblem } from '../server/problem';
import { withoutHeaders } from '../server/raw-headers';
import type { RequestContext, Route } from '../server/route-types';
import { endAtTurnEnd, uncorkAtTurnEnd } from '../server/turn-end-writes';
import type { TokenService } from '../vault/token-service';
import { resolveDestination, type ProxyDestination } from './destination-url';
import { ForwardError, forwardFailure, type Forwarder } from './forwarder';
import { outboundHeaders } from './header-rules';
import { AnswerCapture } from './kept-answer';
import { BODY_KEPT, echoesOf, proxyLogDetails, type ProxyExchange } from './proxy-history';
import { checkExpressionCount, requireProxyCaller } from './proxy-rules';
import { clientResponseHeaders } from './response-headers';

/** What the proxy reads of the engine's config, at each request: Settings may change the last two while it runs. */
export interface ProxyLimits {
  headerPrefix: string;
  historyAnswers: boolean;
  historyAnswerBytes: number;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Statuses whose answer has no body (RFC 9110 §15.3.5, §15.4.5): a body a destination sends with one is dropped. */
const NO_BODY = new Set([204, 304]);

/** What a 204 must not carry (RFC 9110 §8.6). */
const CONTENT_LENGTH = new Set(['content-length']);

/**
 * The header by which a 204 announces a body it must not have (RFC 9110 §8.6, RFC 9112 §6.1), as "Name: value", or
 * null. undici reads no body after a 204 whatever its head says, so the head is all there is to tell the history.
 */
function bodyAnnounced(rawHeaders: readonly string[]): string | null {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i].toLowerCase();
    if ((name === 'content-length' && rawHeaders[i + 1].trim() !== '0') || name === 'transfer-encoding') return `${rawHeaders[i]}: ${rawHeaders[i + 1]}`;
  }
  return null;
}

/** Bodies from this size are compiled from their bytes and rendered with renderBytes; see proxy() for smaller ones. */
const RENDER_BYTES_FROM = 16 * 1024;

/**
 * The ephemeral proxy (docs/api.md, Proxy): detokenize the body's expressions, forward to PFX-PROXY-URL, and stream the
 * destination's answer back with PFX-PROXY-DESTINATION-STATUS. Failures of the proxy itself are `{"proxy_error": …}`
 * (the server wraps every ApiProblem thrown here) and never carry the destination-status header.
 */
export function proxyRoutes(limits: ProxyLimits, tokens: TokenService, expressions: ExpressionEngine, forwarder: Forwarder): Route[] {
  const prefix = limits.headerPrefix;
  const responseHeaders = clientResponseHeaders(prefix);
  // A client calls the same few endpoints over and over: parse each proxy URL + path once.
  const destinations = new LruCache<string, ProxyDestination>(1000);
  const destinationOf = (proxyUrl: string | undefined, target: string) =>
    proxyUrl === undefined
      ? resolveDestination(proxyUrl, target, prefix)
      : destinations.getOrCreate(`${proxyUrl}\n${target}`, () => resolveDestination(proxyUrl, target, prefix));

  /** @param body the body decoded, or its chunks to compile from bytes, `reach` being their markersEnd */
  function compile(body: string | readonly Buffer[], kind: BodyKind, reach: number, exchange: ProxyExchange): CompiledBody {
    const compiled = typeof body === 'string' ? expressions.compileBody(body, kind) : expressions.compileBodyBytes(body, kind, reach);
    exchange.expressionCount = compiled.expressionCount;
    exchange.tokenIds = compiled.tokenIds;
    const warning = checkExpressionCount(compiled.expressionCount, expressions);
    if (warning) exchange.warnings.push(warning.message);
    return compiled;
  }

  async function handle(ctx: RequestContext): Promise<'sent'> {
    const exchange: ProxyExchange = { warnings: [], expressionCount: 0, tokenIds: [], startedAt: ctx.startedAt };
    if (limits.historyAnswers) exchange.answer = new AnswerCapture(limits.historyAnswerBytes);
    try {
      return await proxy(ctx, exchange);
    } catch (error) {
      if (error instanceof ApiProblem) exchange.failure ??= error;
      throw error;
    } finally {
      // After the response is out: masking the outbound body and the answer for history costs the client nothing.
      const { details, answerText } = proxyLogDetails(exchange, tokens, ctx.log.secrets);
      ctx.log.details = details;
      ctx.log.answerText = answerText;
    }
  }

  async function proxy(ctx: RequestContext, exchange: ProxyExchange): Promise<'sent'> {
    const { req, res } = ctx;
    requireProxyCaller(ctx.caller);

    const destination = destinationOf(ctx.prefixed('PROXY-URL'), req.url ?? '/proxy');
    exchange.destination = destination.href;
    for (const warning of destination.warnings) exchange.warnings.push(warning.message);
    const headers = outboundHeaders(req.rawHeaders, prefix);
    for (const warning of headers.warnings) exchange.warnings.push(warning.message);

    const received = await ctx.body();
    const kind = bodyKindOf(req.headers['content-type']);
    const reach = markersEnd(received.chunks, kind);
    const utf8 = chunksAreUtf8(received);
    // The body as sent, expressions and all: it never holds a detokenized value. A copy, so the history worker
    // receives these bytes and not the whole buffer they may share memory with.
    if (received.size > 0) ctx.log.rawBody = { bytes: received.size, utf8, kept: prefixOf(received, BODY_KEPT) };
    const detokenizeStart = performance.now();
    let outbound: Buffer | BodyChunks = received;
    if (reach > 0) {
      // A large body, and one that is not UTF-8 (a binary part in a multipart upload), is compiled from its bytes and
      // rendered straight into bytes: every byte outside the expressions goes out as it came, and the body is never
      // joined or decoded; past its last expression it is not even read or copied. For a small one, copying its
      // pieces one by one costs more than decoding it and encoding the rendered string, and its template is cached by
      // its text.
      const fromBytes = !utf8 || received.size >= RENDER_BYTES_FROM;
      const compiled = compile(fromBytes ? received.chunks : joinChunks(received).toString('utf8'), kind, reach, exchange);
      const records = tokens.tokensForExpressions(compiled.tokenIds, ctx.caller, 'token:use');
      // One budget for the body's expressions, and their results for history's masking of what the destination echoes.
      const budget = new ExpressionBudget();
      const values = (exchange.detokenized = []);
      outbound = fromBytes ? asBody(compiled.renderBytes(records, received.chunks, budget, values)) : Buffer.from(compiled.render(records, budget, values));
      exchange.render = { kind, compiled, records, utf8, chunks: fromBytes ? received.chunks : undefined };
      // The workbench shows the answer with these values masked; any other client gets it as the destination sent it.
      if (ctx.workbench) ctx.workbench.answer = echoesOf(exchange, tokens);
    }
    exchange.detokenizeMs = performance.now() - detokenizeStart;
    exchange.outbound = { method: ctx.method, headers: headers.headers, bytes: Buffer.isBuffer(outbound) ? outbound.length : outbound.size };

    // A client gone while its body was read or detokenized: the destination never hears of it.
    if (res.destroyed) throw new ForwardError('aborted', 'the client went away before the request was forwarded');
    // Set once the head of an answer that has no body is out: the client's answer is then complete.
    let bodiless = false;
    const forwarding = forwarder.forward(
      { origin: destination.origin, path: destination.path, method: ctx.method, headers: headers.headers, body: outbound },
      {
        start(status, rawHeaders, headersMs) {
          exchange.response = { status, headers: rawHeaders, bytes: 0, headersMs };
          const relayed = responseHeaders(rawHeaders, status, ctx.traceId);
          if (NO_BODY.has(status)) {
            bodiless = true;
            const announced = status === 204 ? bodyAnnounced(rawHeaders) : null;
            if (announced) exchange.warnings.push(`the destination announced a body with its 204 answer, which has none (${announced}); it was dropped`);
            res.writeHead(status, status === 204 ? withoutHeaders(relayed, CONTENT_LENGTH) : relayed);
            endAtTurnEnd(res);
            return;
          }
          res.writeHead(status, relayed);
          // Node sends the head on its own before the first chunk unless the socket is corked: one send for the
          // head, the chunks of this turn and the end when it comes in the same turn, instead of two or three.
          res.cork();
          uncorkAtTurnEnd(res);
        },
        write(chunk) {
          exchange.response!.bytes += chunk.length;
          if (bodiless) return true;
          exchange.answer?.add(chunk);
          return res.write(chunk);
        },
        // Node's end() uncorks at once: it waits for the turn's end too, or a short reply would leave on its own.
        end: () => bodiless || endAtTurnEnd(res),
      },
    );
    res.on('drain', forwarding.resume);
    res.once('close', () => {
      if (!res.writableFinished) forwarding.cancel();
    });
    try {
      await forwarding.done;
    } catch (error) {
      if (!res.headersSent) throw error;
      // Headers are gone: the only honest signal left is to cut the connection.
      exchange.failure = forwardFailure(error) ?? new ForwardError('bad_response', 'The destination response failed mid-body');
      res.destroy();
    }
    return 'sent';
  }

  return METHODS.flatMap((method) =>
    ['/proxy', '/proxy/*'].map((path): Route => ({ method, path, proxy: true, handler: handle })),
  );
}

