/**
 * Sends a prepared proxy request to its destination over one pooled keep-alive undici Agent and hands back the
 * destination's answer as a stream. Failures come out as a ForwardError whose `kind` (a closed union) the proxy
 * records in history and whose status the client gets: policy 400, timeout 408, unreachable/bad_response 502.
 */
import type { Readable } from 'node:stream';
import { Agent, errors } from 'undici';
import { ApiProblem } from '../server/problem';
import { createPolicyConnector, DestinationRefusedError } from './destination-policy';
import { toUndiciHeaders } from './hop-header-passthrough';

export type ForwardFailureKind = 'policy' | 'unreachable' | 'bad_response' | 'timeout' | 'aborted';

const STATUS_OF: Record<ForwardFailureKind, number> = {
  policy: 400,
  unreachable: 502,
  bad_response: 502,
  timeout: 408,
  // The client went away, so nobody reads this; nginx's "client closed request" keeps history readable.
  aborted: 499,
};

export class ForwardError extends ApiProblem {
  constructor(
    readonly kind: ForwardFailureKind,
    detail: string,
  ) {
    super(STATUS_OF[kind], detail);
    this.name = 'ForwardError';
  }
}

export interface ForwardRequest {
  url: URL;
  method: string;
  /** Flat raw pairs, as produced by `outboundHeaders`. */
  headers: string[];
  body: Buffer | null;
}

export interface ForwardResult {
  status: number;
  /** Flat raw pairs, names and order as the destination sent them. */
  headers: string[];
  /** Streamed, not buffered; errors with a ForwardError when the deadline passes mid-body. */
  body: Readable;
  timings: { headersMs: number };
}

export interface ForwarderOptions {
  /** Deadline for the whole exchange: connect, response headers and response body. */
  timeoutMs: number;
  denyPrivateDestinations: boolean;
  ownPorts: () => readonly number[];
  /** Most sockets kept per destination origin. */
  connections?: number;
}

export interface Forwarder {
  forward(req: ForwardRequest, signal?: AbortSignal): Promise<ForwardResult>;
  close(): Promise<void>;
}

const UNREACHABLE_DETAIL = new Map([
  ['ECONNREFUSED', 'connection refused'],
  ['ENOTFOUND', 'host name not found'],
  ['EAI_AGAIN', 'host name lookup failed'],
  ['ECONNRESET', 'connection reset'],
  ['EPIPE', 'connection reset'],
  ['EHOSTUNREACH', 'host unreachable'],
  ['ENETUNREACH', 'network unreachable'],
  ['UND_ERR_SOCKET', 'connection closed by the destination'],
  ['UND_ERR_CONNECT_TIMEOUT', 'connect timed out'],
]);
/** errno-style codes (ECONNREFUSED, ETIMEDOUT, …): the network, not us. */
const SYSTEM_ERROR = /^E[A-Z0-9]+$/;
const TLS_FAILURE = /^ERR_TLS_|^ERR_SSL_|CERT|SELF_SIGNED|^UNABLE_TO_/;
const BAD_RESPONSE = new Set(['UND_ERR_HEADERS_OVERFLOW', 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH']);

/**
 * The ForwardError for a failure of `forward()` or of the result's body stream, or undefined when the error is a
 * fault of the service itself (e.g. undici refusing arguments), which should surface as a 500.
 */
export function forwardFailure(err: unknown): ForwardError | undefined {
  if (err instanceof ForwardError) return err;
  if (err instanceof DestinationRefusedError) return new ForwardError('policy', `destination refused by policy: ${err.message}`);
  if (err instanceof errors.HTTPParserError) return new ForwardError('bad_response', 'destination sent an invalid HTTP response');
  const code: unknown = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  if (BAD_RESPONSE.has(code)) return new ForwardError('bad_response', `destination sent an invalid HTTP response (${code})`);
  if (TLS_FAILURE.test(code)) return new ForwardError('unreachable', `destination unreachable: TLS failed (${code})`);
  if (UNREACHABLE_DETAIL.has(code) || SYSTEM_ERROR.test(code)) {
    return new ForwardError('unreachable', `destination unreachable: ${UNREACHABLE_DETAIL.get(code) ?? code}`);
  }
  return undefined;
}

function noop(): void {}

/** Rejects as soon as the signal aborts, even while undici is still connecting (it only looks once connected). */
function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

export function createForwarder(options: ForwarderOptions): Forwarder {
  const { timeoutMs } = options;
  const agent = new Agent({
    connections: options.connections ?? 32,
    connect: createPolicyConnector({ denyPrivateDestinations: options.denyPrivateDestinations, ownPorts: options.ownPorts }),
  });

  async function forward(req: ForwardRequest, signal?: AbortSignal): Promise<ForwardResult> {
    const callerGone = () => new ForwardError('aborted', 'the client went away before the destination finished');
    // undici would still open a connection for an already-aborted request.
    if (signal?.aborted) throw callerGone();
    const started = performance.now();
    const deadline = new AbortController();
    let answered = false;
    const timer = setTimeout(() => {
      const what = answered ? 'finish its response' : 'answer';
      deadline.abort(new ForwardError('timeout', `destination did not ${what} within ${timeoutMs} ms`));
    }, timeoutMs);
    const onCallerAbort = () => deadline.abort(callerGone());
    signal?.addEventListener('abort', onCallerAbort, { once: true });
    const settle = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCallerAbort);
    };

    const { headers, reset } = toUndiciHeaders(req.headers);
    const pending = agent.request({
      origin: req.url.origin,
      path: req.url.pathname + req.url.search,
      method: req.method,
      headers,
      body: req.body,
      reset,
      signal: deadline.signal,
      responseHeaders: 'raw',
      // Our deadline covers headers and body together; undici's separate idle timers would only muddle it.
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    pending.catch(noop); // the race below may have settled first
    try {
      const response = await Promise.race([pending, untilAborted(deadline.signal)]);
      answered = true;
      response.body.once('close', settle);
      return {
        status: response.statusCode,
        // responseHeaders: 'raw' makes these flat string pairs; undici's types only describe the parsed form.
        headers: response.headers as unknown as string[],
        body: response.body,
        timings: { headersMs: performance.now() - started },
      };
    } catch (err) {
      settle();
      throw forwardFailure(err) ?? err;
    }
  }

  return { forward, close: () => agent.close() };
}
