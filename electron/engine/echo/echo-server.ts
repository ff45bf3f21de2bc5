/**
 * The built-in destination: answers every request with a JSON description of exactly what arrived,
 * so a developer (and our tests) can see what left the proxy, hop-by-hop headers included.
 * `/status/<code>` and `/delay/<ms>` (combinable, e.g. `/delay/100/status/503`) shape the answer.
 * It is a loopback test destination, not an open door: the API's Host and Origin guards and body limit apply.
 */
import { isUtf8 } from 'node:buffer';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { localUrl } from '../server/local-url';
import { readBody } from '../server/body';
import { joinChunks } from '../server/body-chunks';
import { allowedHosts, guardFailure, ownOrigins } from '../server/guards';
import { answerClientError, sendJson } from '../server/http-server';
import { ApiProblem } from '../server/problem';

export interface EchoServerOptions {
  host?: string;
  /** 0 picks a free port. */
  port: number;
  /** Largest body echoed, as for the API (default 1 MiB); more is a 413. */
  maxBodyBytes?: number;
  /** Browser origins allowed besides the echo's own (the API's --allow-origin: a page's proxied calls carry its Origin). */
  allowedOrigins?: readonly string[];
}

export interface EchoServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

export interface EchoReply {
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  /** Raw names lower-cased; a name sent more than once maps to its values in arrival order. */
  headers: Record<string, string | string[]>;
  /** The body as UTF-8, or null when it is not valid UTF-8 (then `body_base64` carries it). */
  body: string | null;
  body_base64?: string;
  body_bytes: number;
}

/** Longest `/delay/<ms>` honoured, so a typo cannot pin a connection for hours. */
export const MAX_ECHO_DELAY_MS = 60_000;

interface EchoShape {
  status: number;
  delayMs: number;
}

/** Reads `/delay/<ms>` and `/status/<code>` segment pairs anywhere in the path; anything else is just echoed. */
function shapeFromPath(path: string): EchoShape {
  const shape: EchoShape = { status: 200, delayMs: 0 };
  const segments = path.split('/');
  for (let i = 0; i < segments.length - 1; i++) {
    if (!/^\d+$/.test(segments[i + 1])) continue;
    const value = Number(segments[i + 1]);
    if (segments[i] === 'status' && value >= 200 && value <= 599) shape.status = value;
    if (segments[i] === 'delay') shape.delayMs = Math.min(value, MAX_ECHO_DELAY_MS);
  }
  return shape;
}

function groupPairs(pairs: Iterable<[string, string]>): Record<string, string | string[]> {
  const grouped: Record<string, string | string[]> = {};
  for (const [name, value] of pairs) {
    const previous = grouped[name];
    if (previous === undefined) grouped[name] = value;
    else if (Array.isArray(previous)) previous.push(value);
    else grouped[name] = [previous, value];
  }
  return grouped;
}

function* rawHeaderPairs(rawHeaders: string[]): Generator<[string, string]> {
  for (let i = 0; i < rawHeaders.length; i += 2) yield [rawHeaders[i].toLowerCase(), rawHeaders[i + 1]];
}

function describe(req: http.IncomingMessage, target: URL, body: Buffer): EchoReply {
  const reply: EchoReply = {
    method: req.method ?? '',
    path: target.pathname,
    query: groupPairs(target.searchParams),
    headers: groupPairs(rawHeaderPairs(req.rawHeaders)),
    body: null,
    body_bytes: body.length,
  };
  if (isUtf8(body)) reply.body = body.toString('utf8');
  else reply.body_base64 = body.toString('base64');
  return reply;
}

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

async function echo(req: http.IncomingMessage, res: http.ServerResponse, maxBodyBytes: number): Promise<void> {
  const body = joinChunks(await readBody(req, maxBodyBytes));
  const target = new URL(req.url ?? '/', 'http://echo.invalid');
  const reply = Buffer.from(JSON.stringify(describe(req, target, body)));
  const shape = shapeFromPath(target.pathname);
  const answer = () => {
    res.writeHead(shape.status, { 'content-type': 'application/json', 'content-length': reply.length }).end(reply);
  };
  if (shape.delayMs === 0) return answer();
  const timer = setTimeout(answer, shape.delayMs);
  // The client gave up: stop waiting rather than hold a timer for nobody.
  res.on('close', () => clearTimeout(timer));
}

function sendProblem(res: http.ServerResponse, problem: ApiProblem): void {
  res.shouldKeepAlive = false;
  sendJson(res, problem.status, problem.toBody());
}

export function startEchoServer(options: EchoServerOptions): Promise<EchoServer> {
  const host = options.host ?? '127.0.0.1';
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  let origins = new Set<string>();
  let hosts = new Set<string>();
  const server = http.createServer({ keepAlive: true, requireHostHeader: false }, (req, res) => {
    const guard = guardFailure(req, hosts, origins);
    if (guard) return sendProblem(res, guard);
    // Whatever goes wrong here stays with this request: the echo runs in the engine's process.
    echo(req, res, maxBodyBytes).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else sendProblem(res, error instanceof ApiProblem ? error : new ApiProblem(500, 'The echo destination failed to answer'));
    });
  });
  server.on('clientError', answerClientError);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      const port = (server.address() as AddressInfo).port;
      origins = new Set([...ownOrigins(port), ...(options.allowedOrigins ?? [])]);
      hosts = allowedHosts(port);
      resolve({
        url: localUrl(host, port),
        port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            // Idle keep-alive sockets and delayed answers would otherwise hold close() open.
            server.closeAllConnections();
          }),
      });
    });
  });
}
