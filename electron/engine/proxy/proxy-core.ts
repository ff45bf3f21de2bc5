/**
 * The steps every /proxy call is made of, whichever kind (docs/api.md, Proxy and Invoking a pre-configured proxy):
 * where it goes, its body read and detokenized, its headers' proxy expressions evaluated, and the destination's answer
 * streamed back (or gathered, for a pre-configured proxy's response transforms); and its history entry once it is over.
 */
import { performance } from 'node:perf_hooks';
import type { Caller } from '../access/authenticator';
import type { EventCause, EventOutbox } from '../events/event-outbox';
import { type BodyKind, bodyKindOf, type CompiledBody, ExpressionBudget, ExpressionError, type ExpressionEngine, markersEnd, type TemplateScope, type TokenRecord } from '../expressions';
import { LruCache } from '../lru-cache';
import { asBody, type BodyChunks, chunksAreUtf8, joinChunks, prefixOf } from '../server/body-chunks';
import { causeOf } from '../server/event-cause';
import { ApiProblem } from '../server/problem';
import { withoutHeaders } from '../server/raw-headers';
import type { RequestContext } from '../server/route-types';
import { endAtTurnEnd, uncorkAtTurnEnd } from '../server/turn-end-writes';
import type { AnyUnitRunner } from '../storage/unit';
import type { TokenService } from '../vault/token-service';
import { resolveDestination, type ProxyDestination } from './destination-url';
import { ForwardError, forwardFailure, type Forwarder, type ForwardRequest } from './forwarder';
import type { OutboundHeaders } from './header-rules';
import { AnswerCapture } from './kept-answer';
import { BODY_KEPT, echoesOf, proxyLogDetails, type ProxyExchange } from './proxy-history';
import { raiseInvoked } from './proxy-invoked';
import { checkExpressionCount, headerExpressionProblem } from './proxy-rules';
import { clientResponseHeaders } from './response-headers';

/** Statuses whose answer has no body (RFC 9110 §15.3.5, §15.4.5): a body a destination sends with one is dropped. */
const NO_BODY = new Set([204, 304]);

/** What a 204 must not carry (RFC 9110 §8.6); and what a rewritten body must not keep. */
const CONTENT_LENGTH = new Set(['content-length']);

/** Bodies from this size are compiled from their bytes and rendered with renderBytes; see detokenize() for smaller ones. */
const RENDER_BYTES_FROM = 16 * 1024;

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

/** The body as the client sent it. */
export interface ReceivedBody {
  chunks: BodyChunks;
  kind: BodyKind;
  utf8: boolean;
}

/** A destination's answer gathered whole (for response transforms), or one the proxy makes up. */
export interface GatheredResponse {
  status: number;
  /** Flat raw pairs. */
  headers: string[];
  body: Buffer;
}

/** What the proxy reads of the engine's config, at each request: Settings may change the last two while it runs. */
export interface ProxyCoreOptions {
  headerPrefix: string;
  historyAnswers: boolean;
  historyAnswerBytes: number;
}

/** The request headers as the `proxy` object of header expressions shows them: names as sent, repeats joined. */
export function headerObject(rawHeaders: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    out[name] = Object.hasOwn(out, name) ? `${out[name]}, ${rawHeaders[i + 1]}` : rawHeaders[i + 1];
  }
  return out;
}

export const bodyText = (body: Buffer | BodyChunks): string => (Buffer.isBuffer(body) ? body : joinChunks(body)).toString('utf8');

/** The vault's records for a body's expressions: at once when they are read synchronously, else once read. */
export type ExpressionRecords = ReadonlyMap<string, TokenRecord> | Promise<ReadonlyMap<string, TokenRecord>>;

export type ProxyCore = ReturnType<typeof createProxyCore>;

export function createProxyCore(options: ProxyCoreOptions, tokens: TokenService<AnyUnitRunner>, expressions: ExpressionEngine, forwarder: Forwarder, outbox: EventOutbox) {
  const prefix = options.headerPrefix;
  const responseHeaders = clientResponseHeaders(prefix);
  // A client calls the same few endpoints over and over: parse each proxy URL + path once.
  const destinations = new LruCache<string, ProxyDestination>(1000);

  /** @param label what errors call the URL, when it is not the `PFX-PROXY-URL` header */
  function destinationOf(proxyUrl: string | undefined, target: string, label?: string): ProxyDestination {
    if (proxyUrl === undefined) return resolveDestination(proxyUrl, target, prefix, label);
    return destinations.getOrCreate(`${proxyUrl}\n${target}`, () => resolveDestination(proxyUrl, target, prefix, label));
  }

  /** @param body the body decoded, or its chunks to compile from bytes, `reach` being their markersEnd */
  function compile(body: string | readonly Buffer[], kind: BodyKind, reach: number, exchange: ProxyExchange): CompiledBody {
    const compiled = typeof body === 'string' ? expressions.compileBody(body, kind) : expressions.compileBodyBytes(body, kind, reach);
    exchange.expressionCount = compiled.expressionCount;
    exchange.tokenIds = compiled.tokenIds;
    const warning = checkExpressionCount(compiled.expressionCount, expressions);
    if (warning) exchange.warnings.push(warning.message);
    return compiled;
  }

  /** Reads the body; history keeps it as sent, expressions and all: it never holds a detokenized value. */
  async function receive(ctx: RequestContext): Promise<ReceivedBody> {
    const chunks = await ctx.body();
    const utf8 = chunksAreUtf8(chunks);
    // A copy, so the history worker receives these bytes and not the whole buffer they may share memory with.
    if (chunks.size > 0) ctx.log.rawBody = { bytes: chunks.size, utf8, kept: prefixOf(chunks, BODY_KEPT) };
    return { chunks, kind: bodyKindOf(ctx.req.headers['content-type']), utf8 };
  }

  /**
   * The body with its expressions detokenized; the body itself when it holds none. At once when the records are (over
   * SQLite, and for hot tokens over PostgreSQL), so the request goes on in the same turn; once they are read otherwise.
   * @param records the tokens the compiled body names, as the caller may use them (the vault checks the access)
   */
  function detokenize(body: ReceivedBody, exchange: ProxyExchange, records: (compiled: CompiledBody) => ExpressionRecords): Buffer | BodyChunks | Promise<Buffer | BodyChunks> {
    const { chunks: received, kind, utf8 } = body;
    const reach = markersEnd(received.chunks, kind);
    const started = performance.now();
    let outbound: Buffer | BodyChunks = received;
    if (reach > 0) {
      // A large body, and one that is not UTF-8 (a binary part in a multipart upload), is compiled from its bytes and
      // rendered straight into bytes: every byte outside the expressions goes out as it came, and the body is never
      // joined or decoded; past its last expression it is not even read or copied. For a small one, copying its
      // pieces one by one costs more than decoding it and encoding the rendered string, and its template is cached by
      // its text.
      const fromBytes = !utf8 || received.size >= RENDER_BYTES_FROM;
      const compiled = compile(fromBytes ? received.chunks : joinChunks(received).toString('utf8'), kind, reach, exchange);
      const found = records(compiled);
      if (found instanceof Promise) {
        return found.then((read) => {
          const rendered = render(body, compiled, fromBytes, read, exchange);
          exchange.detokenizeMs = performance.now() - started;
          return rendered;
        });
      }
      outbound = render(body, compiled, fromBytes, found, exchange);
    }
    exchange.detokenizeMs = performance.now() - started;
    return outbound;
  }

  /** The compiled body rendered over the records its expressions read; the exchange keeps what history needs of it. */
  function render(body: ReceivedBody, compiled: CompiledBody, fromBytes: boolean, found: ReadonlyMap<string, TokenRecord>, exchange: ProxyExchange): Buffer | BodyChunks {
    const { chunks: received, kind, utf8 } = body;
    // One budget for the body's expressions, and their results for history's masking of what the destination echoes.
    const budget = new ExpressionBudget();
    const values = (exchange.detokenized = []);
    const outbound = fromBytes ? asBody(compiled.renderBytes(found, received.chunks, budget, values)) : Buffer.from(compiled.render(found, budget, values));
    exchange.render = { kind, compiled, records: found, utf8, chunks: fromBytes ? received.chunks : undefined };
    return outbound;
  }

  /**
   * The vault's tokens for a body's expressions, as `caller` may use them (token:use); each raises token.read naming
   * the call (`readBy`).
   */
  const tokensFor =
    (caller: Caller, readBy: EventCause) =>
    (compiled: CompiledBody): ExpressionRecords =>
      tokens.tokensForExpressions(compiled.tokenIds, caller, 'token:use', undefined, readBy);

  /**
   * The headers to forward, with every proxy expression evaluated over `scope` (the `proxy` object); history keeps the
   * headers as the client wrote them.
   */
  function evaluateHeaders(headers: OutboundHeaders, scope: () => TemplateScope): string[] {
    if (headers.templated.length === 0) return headers.headers;
    const out = [...headers.headers];
    const variables = scope();
    const budget = new ExpressionBudget();
    for (const at of headers.templated) {
      try {
        out[at + 1] = expressions.headerTemplate(out[at + 1]).renderText(variables, budget);
      } catch (error) {
        if (!(error instanceof ExpressionError)) throw error;
        throw headerExpressionProblem(out[at], error);
      }
      if (/[\r\n\0]/.test(out[at + 1])) throw new ApiProblem(400, `Header ${out[at]}: its expression gave a value with CR, LF or NUL, which cannot be sent`);
    }
    return out;
  }

  /** The `proxy` object of header expressions: the request as received (body after detokenization) and the configuration. */
  const proxyScope =
    (ctx: RequestContext, body: Buffer | BodyChunks, config: Readonly<Record<string, string>>) =>
    (): TemplateScope => ({ proxy: { request: { headers: headerObject(ctx.req.rawHeaders), body: bodyText(body) }, config } });

  /**
   * Forwards `request` and streams the destination's answer to the client as it arrives, with
   * PFX-PROXY-DESTINATION-STATUS. A failure before the answer's head is thrown (the server answers it as a
   * proxy_error); after it, the connection is cut.
   */
  async function relay(ctx: RequestContext, exchange: ProxyExchange, request: ForwardRequest, afterStart?: () => void): Promise<'sent'> {
    const { res } = ctx;
    // A client gone while its body was read or detokenized: the destination never hears of it.
    if (res.destroyed) throw new ForwardError('aborted', 'the client went away before the request was forwarded');
    // The workbench shows the answer with the detokenized values masked; any other client gets it as the destination sent it.
    if (ctx.workbench) ctx.workbench.answer = echoesOf(exchange, tokens);
    // Set once the head of an answer that has no body is out: the client's answer is then complete.
    let bodiless = false;
    const forwarding = forwarder.forward(request, {
      start(status, rawHeaders, headersMs) {
        exchange.response = { status, headers: rawHeaders, bytes: 0, headersMs };
        afterStart?.();
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
    });
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

  /** Forwards `request` and gathers the destination's whole answer, for transforms to change before the client sees it. */
  async function gather(ctx: RequestContext, exchange: ProxyExchange, request: ForwardRequest): Promise<GatheredResponse> {
    if (ctx.res.destroyed) throw new ForwardError('aborted', 'the client went away before the request was forwarded');
    if (ctx.workbench) ctx.workbench.answer = echoesOf(exchange, tokens);
    const chunks: Buffer[] = [];
    const forwarding = forwarder.forward(request, {
      start(status, headers, headersMs) {
        exchange.response = { status, headers, bytes: 0, headersMs };
      },
      write(chunk) {
        exchange.response!.bytes += chunk.length;
        // History keeps the destination's answer, before any response transform.
        exchange.answer?.add(chunk);
        chunks.push(chunk);
        return true;
      },
      end: () => undefined,
    });
    ctx.res.once('close', () => {
      if (!ctx.res.writableFinished) forwarding.cancel();
    });
    await forwarding.done;
    const { status, headers } = exchange.response!;
    return { status, headers, body: NO_BODY.has(status) ? Buffer.alloc(0) : Buffer.concat(chunks) };
  }

  /** Writes a gathered (and perhaps transformed) answer, with its length as it is now. */
  function answer(ctx: RequestContext, response: GatheredResponse): 'sent' {
    const headers = withoutHeaders(responseHeaders(response.headers, response.status, ctx.traceId), CONTENT_LENGTH);
    if (!NO_BODY.has(response.status)) headers.push('Content-Length', String(response.body.length));
    ctx.res.writeHead(response.status, headers);
    endAtTurnEnd(ctx.res, NO_BODY.has(response.status) ? undefined : response.body);
    return 'sent';
  }

  /** Runs one call with its exchange, and makes its history entry from it once it is over. */
  async function run(ctx: RequestContext, call: (exchange: ProxyExchange) => Promise<'sent'>): Promise<'sent'> {
    const exchange: ProxyExchange = { warnings: [], expressionCount: 0, tokenIds: [], startedAt: ctx.startedAt };
    if (options.historyAnswers) exchange.answer = new AnswerCapture(options.historyAnswerBytes);
    try {
      return await call(exchange);
    } catch (error) {
      if (error instanceof ApiProblem) exchange.failure ??= error;
      throw error;
    } finally {
      // After the response is out: masking the outbound body and the answer for history costs the client nothing.
      const { details, answerText, outboundText } = proxyLogDetails(exchange, tokens, ctx.log.secrets);
      ctx.log.details = details;
      ctx.log.answerText = answerText;
      ctx.log.outboundText = outboundText;
      raiseInvoked(outbox, exchange, { details, answerText, clientBody: ctx.log.rawBody, status: ctx.res.statusCode }, causeOf(ctx));
    }
  }

  return { prefix, destinationOf, receive, detokenize, tokensFor, evaluateHeaders, proxyScope, relay, gather, answer, run };
}
