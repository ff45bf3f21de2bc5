/**
 * Sends a prepared proxy request to its destination over one pooled keep-alive undici Agent and relays the
 * destination's answer, as it arrives, to a sink. Failures come out as a ForwardError whose `kind` (a closed union)
 * the proxy records in history and whose status the client gets: policy 400, timeout 408, unreachable and
 * bad_response 502.
 */
import { Agent, errors, type Dispatcher } from 'undici';
import type { BodyChunks } from '../server/body-chunks';
import { type NetworkReason, networkFailureOf } from '../../../shared/workbench/network-failures';
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
    /** Why the destination could not be reached (`unreachable` only): what to check differs for each. */
    readonly reason?: NetworkReason,
  ) {
    super(STATUS_OF[kind], detail);
    this.name = 'ForwardError';
  }
}

export interface ForwardRequest {
  /** `scheme://host[:port]`: which pool of kept-alive connections serves it. */
  origin: string;
  /** Path and query for the request line. */
  path: string;
  method: string;
  /** Flat raw pairs, as produced by `outboundHeaders`. */
  headers: string[];
  /** One buffer, or the chunks a body arrived in (sent one after the other, with their total as Content-Length). */
  body: Buffer | BodyChunks | null;
}

/** Where the destination's answer goes as it arrives (the proxy route writes it to its client). */
export interface ResponseSink {
  /** Status and header pairs (names and order as the destination sent them), once, before any body chunk. */
  start(status: number, headers: string[], headersMs: number): void;
  /** A body chunk; false when the sink is full, and the forwarder pauses until `resume()`. */
  write(chunk: Buffer): boolean;
  /** The whole body was delivered. */
  end(): void;
}

export interface Forwarding {
  /** Settles once the sink got `end()`; rejects with a ForwardError, before `start` or mid-body. */
  readonly done: Promise<void>;
  /** The sink has room again. */
  resume(): void;
  /** The client went away: stop, and reject `done` with an 'aborted' ForwardError unless it already settled. */
  cancel(): void;
}

export interface ForwarderOptions {
  /** Deadline for the whole exchange: connect, response headers and response body. */
  timeoutMs: number;
  denyPrivateDestinations: boolean;
  ownPorts: () => readonly number[];
  echoPorts?: () => readonly number[];
  /** Most sockets kept per destination origin. */
  connections?: number;
}

export interface Forwarder {
  forward(req: ForwardRequest, sink: ResponseSink): Forwarding;
  /** Changes the deadline and the destination policy for the requests that start from now on. */
  configure(limits: Pick<ForwarderOptions, 'timeoutMs' | 'denyPrivateDestinations'>): void;
  close(): Promise<void>;
}

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
  const network = networkFailureOf(code);
  return network && new ForwardError('unreachable', `destination unreachable: ${network.words}`, network.reason);
}

const toText = (raw: Buffer[]) => raw.map((b) => b.toString('latin1'));

/**
 * What undici sends: nothing, a buffer, or the chunks one after the other. undici takes an iterable body (its docs;
 * its types say otherwise) and sends it chunked unless given its length, which is added to `headers`.
 */
function undiciBody(body: Buffer | BodyChunks | null, headers: string[]): Buffer | null {
  if (body === null || Buffer.isBuffer(body)) return body?.length ? body : null;
  if (body.size === 0) return null;
  if (body.chunks.length === 1) return body.chunks[0];
  headers.push('content-length', String(body.size));
  return body.chunks as unknown as Buffer;
}

export function createForwarder(options: ForwarderOptions): Forwarder {
  let { timeoutMs, denyPrivateDestinations } = options;
  const agentFor = (deny: boolean) =>
    new Agent({ connections: options.connections ?? 32, connect: createPolicyConnector({ denyPrivateDestinations: deny, ownPorts: options.ownPorts, echoPorts: options.echoPorts }) });
  let agent = agentFor(denyPrivateDestinations);
  /** Agents replaced by a policy change, closing once their requests are done. */
  const retired = new Set<Promise<void>>();

  /**
   * undici's dispatch handler writes straight into the sink: no intermediate stream or AbortSignal per request, which
   * would add allocations to every call. undici hands out its controller only once a connection is assigned, so a
   * stop asked for earlier is remembered and applied then, while `done` rejects at once.
   */
  function forward(req: ForwardRequest, sink: ResponseSink): Forwarding {
    const started = performance.now();
    let controller: Dispatcher.DispatchController | null = null;
    let stopped: ForwardError | null = null;
    let settled = false;
    let answered = false;
    let settle!: (error?: unknown) => void;
    const done = new Promise<void>((resolve, reject) => {
      settle = (error) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error === undefined) resolve();
        else reject(forwardFailure(error) ?? error);
      };
    });
    const stop = (reason: ForwardError) => {
      stopped ??= reason;
      controller?.abort(reason);
      settle(reason);
    };
    // The deadline in force when the request starts holds for all of it, whatever Settings changes meanwhile.
    const deadline = timeoutMs;
    const timer = setTimeout(() => {
      stop(new ForwardError('timeout', `destination did not ${answered ? 'finish its response' : 'answer'} within ${deadline} ms`));
    }, deadline);

    /** A sink that throws must not throw into undici's parser: that request fails instead. */
    const guarded = (c: Dispatcher.DispatchController, relay: () => void) => {
      if (settled) return;
      try {
        relay();
      } catch (error) {
        c.abort(error as Error);
        settle(error);
      }
    };
    const { headers, reset } = toUndiciHeaders(req.headers);
    const body = undiciBody(req.body, headers);
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(c) {
        controller = c;
        if (stopped) c.abort(stopped);
      },
      onResponseStart(c, status) {
        // 1xx interim answers are not relayed; the final status follows.
        if (status < 200) return;
        answered = true;
        // The parsed header object loses names' case, order and duplicates; the controller keeps the raw list.
        guarded(c, () => sink.start(status, toText(c.rawHeaders as Buffer[]), performance.now() - started));
      },
      onResponseData(c, chunk) {
        guarded(c, () => {
          if (!sink.write(chunk)) c.pause();
        });
      },
      onResponseEnd(c) {
        guarded(c, () => {
          sink.end();
          settle();
        });
      },
      onResponseError(_c, error) {
        settle(error);
      },
    };
    agent.dispatch(
      {
        origin: req.origin,
        path: req.path,
        method: req.method,
        headers,
        body,
        reset,
        // Our deadline covers headers and body together; undici's separate idle timers would only muddle it.
        headersTimeout: 0,
        bodyTimeout: 0,
      },
      handler,
    );
    return {
      done,
      resume: () => controller?.resume(),
      cancel: () => stop(new ForwardError('aborted', 'the client went away before the destination finished')),
    };
  }

  function configure(limits: Pick<ForwarderOptions, 'timeoutMs' | 'denyPrivateDestinations'>): void {
    timeoutMs = limits.timeoutMs;
    if (limits.denyPrivateDestinations === denyPrivateDestinations) return;
    denyPrivateDestinations = limits.denyPrivateDestinations;
    // The policy is checked when a socket connects: a kept-alive socket to a destination now refused would skip it.
    // A new agent connects afresh under the new policy; the old one finishes what it carries, then closes.
    const old = agent;
    agent = agentFor(denyPrivateDestinations);
    const closing = old.close().finally(() => retired.delete(closing));
    retired.add(closing);
  }

  return { forward, configure, close: () => Promise.all([agent.close(), ...retired]).then(() => undefined) };
}
