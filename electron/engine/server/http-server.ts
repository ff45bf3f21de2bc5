import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import FindMyWay from 'find-my-way';
import type { Authenticator } from '../access/authenticator';
import type { RequestLog } from '../history/request-log';
import type { EngineConfig } from '../engine-config';
import { readBody, parseJsonBody } from './body';
import type { BodyChunks } from './body-chunks';
import { grantCrossOrigin, preflightHeaders } from './cross-origin';
import { absoluteTarget, allowedHosts, guardFailure, ownOrigins } from './guards';
import type { IdempotencyStore } from './idempotency';
import { ApiProblem } from './problem';
import type { LogDraft, RequestContext, Route, WorkbenchSent } from './route-types';
import { headersForLog, pathForLog, withReferences } from './log-headers';
import { endAtTurnEnd } from './turn-end-writes';
import { localUrl } from './local-url';
import type { ClientActivity } from './client-activity';
import { activitiesOf } from '../logs/entity-activity';

const TRAILING_SLASH = /(?<=.)\/$/;
const PROXY_REQUEST_LINE = /^[A-Z]+ (?:https?:\/\/[^/\s]*)?\/proxy(?:[/?\s]|$)/i;
const ROUTE_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const satisfies readonly Route['method'][];

/**
 * A header that carries one value. Node joins repeated headers with ", ", which would turn two `PFX-PROXY-URL`s into
 * one wrong URL, so a second copy is a 400. A single value may hold a comma (a URL's query), hence the raw count.
 */
function singleHeader(req: IncomingMessage, name: string): string | undefined {
  const lower = name.toLowerCase();
  const value = req.headers[lower] as string | undefined;
  if (value?.includes(',')) {
    let copies = 0;
    for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i].toLowerCase() === lower) copies++;
    if (copies > 1) throw new ApiProblem(400, `The ${name} header is given ${copies} times; send it once`);
  }
  return value;
}

export interface HttpServerDeps {
  config: EngineConfig;
  routes: Route[];
  authenticator: Authenticator;
  idempotency: IdempotencyStore;
  requestLog: RequestLog;
  /** Told of each routed request's start and end, so background work can give way while clients are served. */
  clients: ClientActivity;
  /** Routes that do not belong to the wire API (the workbench UI); answers true when it handled the request. */
  fallback?: (req: IncomingMessage, res: ServerResponse, path: string) => boolean;
  /**
   * Whether the request arriving on a connection is one the workbench sent (its front door): from which page, with
   * which secrets resolved in it; undefined for every other client. Its history entry says so.
   */
  workbenchSentOn?: (socket: Socket) => WorkbenchSent | undefined;
}

interface NoRouteReply {
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export interface RunningHttpServer {
  server: Server;
  port: number;
  url: string;
  close(): Promise<void>;
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  const type = (body as { type?: unknown } | undefined)?.type === 'about:blank' ? 'application/problem+json' : 'application/json';
  if (body === undefined || status === 204) {
    res.writeHead(status, headers);
    endAtTurnEnd(res);
    return;
  }
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'content-length': Buffer.byteLength(payload), ...headers });
  endAtTurnEnd(res, payload);
}

/**
 * Requests Node's parser refuses (CR/LF in a header, a smuggling attempt, oversized headers) still get an answer in
 * the API's problem format (docs/api.md, Errors) rather than a bare status line. For a server's 'clientError'.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (!socket.writable) return;
  const [status, detail] =
    error.code === 'HPE_HEADER_OVERFLOW' ? [431, 'The request headers are too large'] : [400, 'The request is not well-formed HTTP'];
  const reason = STATUS_CODES[status];
  const problem = { type: 'about:blank', title: reason, status, detail };
  // A refused /proxy request answers like every other proxy failure (docs/api.md, Proxy), when the part the parser saw
  // shows the request line.
  const proxied = PROXY_REQUEST_LINE.test((error as { rawPacket?: Buffer }).rawPacket?.toString('latin1', 0, 64) ?? '');
  const body = JSON.stringify(proxied ? { proxy_error: problem } : problem);
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\n` +
      `Content-Type: application/${proxied ? 'json' : 'problem+json'}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function toProblem(error: unknown, log: (line: string) => void): ApiProblem {
  if (error instanceof ApiProblem) return error;
  // A fault of ours, never of the client's input: log the stack (no request data), answer a bare 500.
  log(`internal error: ${(error as Error)?.stack ?? String(error)}`);
  return new ApiProblem(500, 'The service failed to handle this request');
}

export function startHttpServer(deps: HttpServerDeps): Promise<RunningHttpServer> {
  const { config, authenticator, idempotency, requestLog } = deps;
  const prefix = config.headerPrefix.toLowerCase();
  const apiKeyHeader = `${config.headerPrefix}-API-KEY`;
  const proxyKeyParam = `${prefix}-proxy-key`;
  const traceHeaderName = `${config.headerPrefix}-TRACE-ID`;
  const replayedHeaderName = `${config.headerPrefix}-IDEMPOTENCY-REPLAYED`;
  const router = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true });
  for (const route of deps.routes) router.on(route.method, route.path, () => undefined, route);

  /**
   * HEAD is GET without the body (RFC 9110 §9.3.2); Node drops the body of a HEAD response by itself. Not for the
   * proxy: its methods are the hosted service's five.
   */
  function headAsGet(path: string) {
    const get = router.find('GET', path);
    return get && !(get.store as Route).proxy ? get : null;
  }

  /** The routes of a path, whatever their method, and the methods they take (`GET, HEAD, POST`). */
  function routesOf(path: string): { routes: Route[]; allowed: string } {
    const routes = ROUTE_METHODS.map((m) => router.find(m, path)?.store as Route | undefined).filter((r) => r !== undefined);
    return { routes, allowed: routes.flatMap((r) => (r.method === 'GET' && !r.proxy ? ['GET', 'HEAD'] : [r.method])).join(', ') };
  }

  /**
   * A known path asked with another method is a 405 naming the methods it takes; an unknown path a 404. A browser's
   * preflight (OPTIONS from an allowed origin) of a known path is answered 204 with what the path takes.
   */
  function noRouteReply(req: IncomingMessage, method: string, path: string, crossOrigin: boolean): NoRouteReply {
    const { routes, allowed } = routesOf(path);
    if (routes.length === 0) return { status: 404, body: new ApiProblem(404, `No route for ${method} ${path}`).toBody(), headers: {} };
    if (crossOrigin && method === 'OPTIONS' && req.headers['access-control-request-method']) {
      return { status: 204, body: undefined, headers: preflightHeaders(allowed, req.headers['access-control-request-headers']) };
    }
    const problem = new ApiProblem(405, `${path} does not take ${method}; it takes ${allowed}`).toBody();
    return { status: 405, body: routes[0].proxy ? { proxy_error: problem } : problem, headers: { allow: allowed } };
  }

  let port = config.port;
  const allowedOrigins = new Set(config.allowedOrigins);
  let own = ownOrigins(port, config.publicUrls);
  let origins = new Set([...own, ...allowedOrigins]);
  let hosts = allowedHosts(port, config.publicUrls);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const startedAt = performance.now();
    // Rewritten in place, so that every route (the proxy's destination, the workbench's query) reads the origin form.
    const absolute = absoluteTarget(req.url ?? '/');
    if (absolute) req.url = absolute.path;
    const rawUrl = req.url ?? '/';
    const queryAt = rawUrl.indexOf('?');
    const path = queryAt === -1 ? rawUrl : rawUrl.slice(0, queryAt);
    const method = req.method ?? 'GET';
    const traceId = (req.headers[`${prefix}-trace-id`] as string | undefined) || randomUUID();
    // Asked as the request arrives, of its connection: no header can make a client the workbench.
    const sent = deps.workbenchSentOn?.(req.socket);
    const log: LogDraft = { kind: 'api', applicationId: null, workbenchPage: sent?.page, secrets: sent?.secrets, workbenchEnvironment: sent?.environment };

    // Every request that reaches the engine is recorded, once the response is gone and the route has finished
    // filling in its log (the proxy completes its entry after streaming the destination's body).
    let waitingFor = 2; // the response's 'close' and the route's end, in either order
    let routed = false;
    // The route that handled the request and its JSON answer: what its `GET /logs` lines are made of.
    let handled: { route: Route; params: Record<string, string | undefined>; body: unknown } | undefined;
    const settle = () => {
      if (--waitingFor > 0) return;
      if (routed) deps.clients.requestEnded();
      const succeeded = handled !== undefined && res.statusCode < 400;
      requestLog.record({
        kind: log.kind,
        method,
        path: sent?.writtenPath ?? pathForLog(rawUrl, proxyKeyParam),
        status: res.statusCode,
        duration_ms: Math.round((performance.now() - startedAt) * 1000) / 1000,
        application_id: log.applicationId,
        workbench_page: log.workbenchPage,
        workbench_environment: log.workbenchEnvironment,
        workbench_person: sent?.person,
        trace_id: traceId,
        // A refused request worked in no transaction, whatever its header named.
        transaction_id: res.statusCode < 400 ? (log.transactionId ?? null) : null,
        request_headers: headersForLog(req.rawHeaders, log.secrets),
        // A secret the workbench put in the body (a secret variable's) is kept as its reference, as is one echoed back.
        request_body: log.secrets ? withReferences(log.requestBody, log.secrets) : log.requestBody,
        raw_body: log.secrets && log.rawBody ? { ...log.rawBody, kept: log.secrets.bytesAsReferences(log.rawBody.kept) } : log.rawBody,
        answer_text: log.secrets && log.answerText ? log.secrets.asReferences(log.answerText) : log.answerText,
        outbound_text: log.outboundText,
        details: log.details,
        activities: succeeded
          ? activitiesOf(`${handled!.route.method} ${handled!.route.path}`, log.applicationId, {
              params: handled!.params,
              body: handled!.body,
              details: log.details,
              tokenType: log.tokenType,
            })
          : undefined,
      });
    };
    const guard = guardFailure(req, hosts, origins, absolute?.host);
    if (guard) {
      res.shouldKeepAlive = false;
      const problem = guard.toBody();
      const proxied = routesOf(path).routes.some((r) => r.proxy);
      sendJson(res, problem.status, proxied ? { proxy_error: problem } : problem, { [traceHeaderName]: traceId });
      settle();
      res.once('close', settle);
      return;
    }
    // A page the developer allowed (--allow-origin) reaches the wire API, and only it: never the workbench's endpoints.
    const origin = req.headers.origin?.toLowerCase();
    const crossOrigin = origin !== undefined && allowedOrigins.has(origin) && !own.has(origin);
    if (crossOrigin) grantCrossOrigin(res, origin);
    const match = router.find(method as FindMyWay.HTTPMethod, path) ?? (method === 'HEAD' ? headAsGet(path) : null);
    if (!match) {
      // The workbench's own files and session calls are not API traffic: they stay out of the history.
      if (!crossOrigin && deps.fallback?.(req, res, path)) return;
      const reply = noRouteReply(req, method, path, crossOrigin);
      reply.headers[traceHeaderName] = traceId;
      sendJson(res, reply.status, reply.body, reply.headers);
      settle();
      res.once('close', settle);
      return;
    }
    const route = match.store as Route;
    // Only routed requests count as clients being served: refusals cost little, and the workbench's streams never end.
    routed = true;
    deps.clients.requestStarted();
    if (route.proxy) log.kind = 'proxy';
    res.once('close', settle);

    let bodyRead: Promise<BodyChunks> | undefined;
    let query: URLSearchParams | undefined;
    const ctx: RequestContext = {
      req,
      res,
      method,
      path,
      // Parsed on first use: the proxy and most writes never look at it. A method, not a getter: a getter in an
      // object literal gives each request its own hidden class, made in the old generation, which keeps every
      // request's objects alive through young-generation collections.
      query: () => (query ??= new URLSearchParams(queryAt === -1 ? '' : rawUrl.slice(queryAt + 1))),
      params: match.params,
      traceId,
      startedAt,
      caller: undefined as never,
      prefixed: (name) => singleHeader(req, `${config.headerPrefix}-${name}`),
      body: () => (bodyRead ??= readBody(req, config.maxBodyBytes)),
      json: async () => parseJsonBody(await ctx.body()),
      log,
      workbench: sent,
    };

    try {
      const key = route.public ? undefined : ctx.prefixed('API-KEY');
      if (key !== undefined || (!route.public && !route.keyOptional)) {
        ctx.caller = authenticator.authenticate(key, apiKeyHeader);
        log.applicationId = ctx.caller.application.id;
      }
      const idempotencyKey = route.idempotent ? ctx.prefixed('IDEMPOTENCY-KEY') : undefined;
      const reply = idempotencyKey
        ? await idempotency.run(
            // `/tokens/` and `/tokens` are one route (docs/api.md, Conventions), so one request for the key's scope.
            { applicationId: ctx.caller.application.id, key: idempotencyKey, method, path: path.replace(TRAILING_SLASH, '') + rawUrl.slice(path.length) },
            async () => {
              const r = await route.handler(ctx);
              if (r === 'sent') throw new Error('An idempotent route must return its reply');
              return r;
            },
          )
        : await route.handler(ctx);
      handled = { route, params: match.params, body: reply === 'sent' ? undefined : reply.body };
      if (reply !== 'sent') {
        // Passed to writeHead, never setHeader: Node drops duplicate raw headers (the proxy's Set-Cookie) once
        // setHeader has been used on a response.
        const headers = reply.headers ? { ...reply.headers } : {};
        headers[traceHeaderName] = traceId;
        if ((reply as { replayed?: boolean }).replayed) headers[replayedHeaderName] = 'true';
        sendJson(res, reply.status, reply.body, headers);
      }
    } catch (error) {
      const problem = toProblem(error, config.log).toBody();
      if (res.headersSent) res.destroy();
      else sendJson(res, problem.status, route.proxy ? { proxy_error: problem } : problem, { [traceHeaderName]: traceId });
    } finally {
      settle();
    }
  }

  // Node's own answer to a missing Host is a bare 400; the guard answers it in the API's problem format instead.
  const server = createServer({ requestTimeout: 120_000, requireHostHeader: false }, (req, res) => {
    handle(req, res).catch((error) => {
      config.log(`request handling failed: ${(error as Error)?.stack ?? error}`);
      if (!res.headersSent) sendJson(res, 500, new ApiProblem(500).toBody());
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 30_000;
  server.on('clientError', answerClientError);

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      port = (server.address() as AddressInfo).port;
      own = ownOrigins(port, config.publicUrls);
      origins = new Set([...own, ...allowedOrigins]);
      hosts = allowedHosts(port, config.publicUrls);
      resolve({
        server,
        port,
        url: localUrl(config.host, port),
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

