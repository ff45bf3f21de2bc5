import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { ComposedRequest, Exchange } from '../../../shared/workbench/composer-contract';
import type { SentHistoryEntry } from '../../../shared/workbench/history-contract';
import type { PageId } from '../../../shared/workbench/pages';
import type { EngineEvents } from '../engine-events';
import { actingPerson } from '../people/acting-person';
import type { ResolvedRequest, WireParts } from '../environments/resolve-references';
import type { ValuesAsReferences } from '../secrets/values-as-references';
import { headersForLog } from '../server/log-headers';
import { ApiProblem } from '../server/problem';
import type { AnswerMasker, WorkbenchSent } from '../server/route-types';
import { type HeldAnswer, HeldAnswers } from './held-answers';

/** A composed request's exchange as the engine sends it (its history entry not yet read by the contract). */
export type SentExchange = Omit<Exchange, 'entry'> & { entry: SentHistoryEntry | null };

/** The most of an answer the workbench keeps for display; the rest is counted, not kept. */
export const MAX_SHOWN_BYTES = 10 * 1024 * 1024;
/** How long to wait, after the answer, for the history entry the server writes once the response has closed. */
const ENTRY_WAIT_MS = 2000;

export interface FrontDoorOptions {
  /** The service's own address (known once it listens). */
  baseUrl: () => string;
  headerPrefix: string;
  events: EngineEvents;
  /**
   * A composed request with its `${secret:…}` and `${env:…}` references put in (a 400 when one cannot be), and the
   * environment they were read from.
   */
  resolve(request: WireParts): { resolved: ResolvedRequest; environment: string | null };
}

/** The key a composed request is sent with, and for a remote target, where it goes instead of this service. */
export interface SendTo {
  apiKey: string;
  /** A remote target's address: its history is its own, so no entry of this engine's is awaited. */
  remoteBaseUrl?: string;
  /** The workbench page the request is sent from, for this service's history; none when the call named none. */
  page?: PageId;
  /** Sent as given, its references not put in: the Tokens page's writes carry token data, which may hold any text. */
  literal?: boolean;
}

export interface FrontDoor {
  /**
   * Sends the request to the service's own address (or the remote's) with the key, unless the request carries a key
   * itself. Through this service's proxy, the answer comes back with the values the proxy detokenized masked.
   */
  send(composed: ComposedRequest, to: SendTo): Promise<SentExchange>;
  /** The answer of a request sent here and shown masked, as received: the user's explicit reveal (a 404 once not held). */
  revealAnswer(entryId: string): HeldAnswer;
  /** Drops every answer held for a reveal (the vault is wiped). */
  forgetAnswers(): void;
  /** Stops a request in flight; false when none has that id. */
  cancel(id: string): boolean;
  /**
   * For the service, as a request arrives on `socket`: the page and resolved secrets of the workbench request that
   * connection carries, or undefined when it is not the workbench's. Answered once per request.
   */
  claim(socket: Socket): WorkbenchSent | undefined;
}

/** Reads a body up to the shown limit, counting the rest. */
async function readShown(body: AsyncIterable<Buffer>): Promise<{ shown: Buffer; bytes: number }> {
  const chunks: Buffer[] = [];
  let kept = 0;
  let bytes = 0;
  for await (const chunk of body) {
    bytes += chunk.length;
    if (kept >= MAX_SHOWN_BYTES) continue;
    const part = chunk.subarray(0, MAX_SHOWN_BYTES - kept);
    chunks.push(part);
    kept += part.length;
  }
  return { shown: Buffer.concat(chunks), bytes };
}

/**
 * The headers a client sends: the composed ones, then those it leaves out that every client sends (Host, and the
 * body's length) and the application's key; a header the user wrote wins, so a wrong key can be tried on purpose.
 */
function withClientHeaders(composed: [string, string][], defaults: Record<string, string>): [string, string][] {
  const given = new Set(composed.map(([name]) => name.toLowerCase()));
  return [...composed, ...Object.entries(defaults).filter(([name]) => !given.has(name.toLowerCase()))];
}

/**
 * One request over node:http, which keeps the answer's header names, order and reason phrase as they came;
 * `onSocket` hears the connection it is given before the service can have read the request.
 */
function exchange(url: string, method: string, headers: string[], body: Buffer | null, signal: AbortSignal, onSocket: (socket: Socket) => void): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const outgoing = (url.startsWith('https:') ? httpsRequest : httpRequest)(url, { method, headers, signal }, resolve);
    outgoing.once('socket', onSocket);
    outgoing.on('error', reject);
    outgoing.end(body ?? undefined);
  });
}

/**
 * The answer as the page may see it (`shown`): secrets written back as their references, and the values the proxy
 * detokenized masked; and as received, with only the secrets written back (`received`), for a reveal.
 */
async function answerOf(rawHeaders: readonly string[], body: Buffer, secrets: ValuesAsReferences | undefined, masker: AnswerMasker | undefined) {
  const received: HeldAnswer = { headers: [], body: secrets?.bytesAsReferences(body) ?? body };
  const shownHeaders: [string, string][] = [];
  let masked = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const value = secrets?.asReferences(rawHeaders[i + 1]) ?? rawHeaders[i + 1];
    const shown = masker?.maskLatin1(value) ?? { text: value, masked: 0 };
    received.headers.push([rawHeaders[i], value]);
    shownHeaders.push([rawHeaders[i], shown.text]);
    masked += shown.masked;
  }
  const shownBody = (await masker?.maskBytes(received.body)) ?? { bytes: received.body, masked: 0 };
  return { shown: { headers: shownHeaders, body: shownBody.bytes }, received, masked: masked + shownBody.masked };
}

/** Why a connection to the service failed, in the socket's words, with its code (ECONNREFUSED, …) beside them. */
function unreachable(error: unknown): { kind: 'unreachable'; code: string | null; detail: string } {
  const code = (error as { code?: unknown }).code;
  const reason = (error as Error).message || String(error);
  return { kind: 'unreachable', code: typeof code === 'string' ? code : null, detail: reason };
}

/**
 * The workbench's way to send a composed request: over real HTTP to the service's own front door, so it passes the
 * same guards, is recorded in history like any client's, and carries exactly the bytes a client would send.
 */
export function frontDoor(options: FrontDoorOptions): FrontDoor {
  const inFlight = new Map<string, AbortController>();
  /**
   * The workbench's requests not yet arrived, by the connection each travels on. The service tells them from any
   * client's by that connection (its address and port, which no other client can hold at the same time), never by
   * a header, which any client could send and which would change the bytes a request carries.
   */
  const unclaimed = new Map<string, { socket: Socket; sent: WorkbenchSent }>();
  const held = new HeldAnswers();
  const keyHeader = `${options.headerPrefix}-API-KEY`;
  const traceHeader = `${options.headerPrefix}-trace-id`.toLowerCase();

  /** Resolves with the history entry of a trace once the server records it, or null after a short wait. */
  function entryOf(traceId: string, seen: Map<string, SentHistoryEntry>, listen: (listener: () => void) => void): Promise<SentHistoryEntry | null> {
    const found = seen.get(traceId);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(null), ENTRY_WAIT_MS);
      listen(() => {
        const entry = seen.get(traceId);
        if (!entry) return;
        clearTimeout(timer);
        resolve(entry);
      });
    });
  }

  async function send(composed: ComposedRequest, to: SendTo): Promise<SentExchange> {
    if (inFlight.has(composed.id)) throw new ApiProblem(409, `A request with id ${composed.id} is already running`);
    // The last moment before the request leaves: secret values exist only in the bytes sent, never in what is shown.
    const resolution = to.literal ? null : options.resolve(composed);
    const resolved = resolution?.resolved ?? composed;
    const secrets = resolution?.resolved.asWritten;
    const controller = new AbortController();
    inFlight.set(composed.id, controller);
    const body = resolved.body === null ? null : Buffer.from(resolved.body, 'utf8');
    const url = (to.remoteBaseUrl ?? options.baseUrl()) + resolved.path;
    const headers = withClientHeaders(resolved.headers, {
      host: new URL(url).host,
      [keyHeader]: to.apiKey,
      ...(body ? { 'content-length': String(body.length) } : {}),
    });
    const sent = { method: composed.method, url: secrets?.asReferences(url) ?? url, headers: headersForLog(headers.flat(), secrets), bytes: body?.length ?? 0 };

    // Entries are heard from the moment the request leaves: the server records it as its response closes.
    const seen = new Map<string, SentHistoryEntry>();
    let onEntry: (() => void) | null = null;
    const collect = (entry: SentHistoryEntry) => {
      if (entry.trace_id) seen.set(entry.trace_id, entry);
      onEntry?.();
    };
    options.events.on('request', collect);
    const started = performance.now();
    // What the service learns of the request as it arrives; through its proxy, what the request detokenized.
    const workbenchSent: WorkbenchSent = {
      page: to.page ?? null,
      secrets,
      writtenPath: resolution?.resolved.writtenPath,
      environment: resolution?.environment ?? null,
      person: actingPerson(),
    };
    try {
      const response = await exchange(url, composed.method, headers.flat(), body, controller.signal, (socket) =>
        unclaimed.set(composed.id, { socket, sent: workbenchSent }),
      );
      const { shown, bytes } = await readShown(response);
      const duration_ms = performance.now() - started;
      // A destination that echoes the request (the echo destination does) shows the references, not the secrets, and
      // the masks, not the tokens' values. A remote's proxy detokenized what this engine cannot know: it shows all.
      const answer = await answerOf(response.rawHeaders, shown, secrets, workbenchSent.answer);
      const traceId = to.remoteBaseUrl === undefined ? response.headers[traceHeader] : undefined;
      const entry = typeof traceId === 'string' ? await entryOf(traceId, seen, (listener) => (onEntry = listener)) : null;
      if (answer.masked > 0 && entry) held.hold(entry.id, answer.received);
      return {
        request: sent,
        outcome: {
          kind: 'response',
          status: response.statusCode ?? 0,
          status_text: response.statusMessage ?? '',
          headers: answer.shown.headers,
          body_base64: answer.shown.body.toString('base64'),
          bytes,
          truncated: bytes > shown.length,
          // Without its entry no reveal could name the request: its answer is then shown masked, and not held.
          masked: answer.masked,
        },
        duration_ms,
        entry,
      };
    } catch (error) {
      const duration_ms = performance.now() - started;
      if (controller.signal.aborted) {
        return { request: sent, outcome: { kind: 'cancelled' }, duration_ms, entry: null };
      }
      return { request: sent, outcome: unreachable(error), duration_ms, entry: null };
    } finally {
      unclaimed.delete(composed.id);
      options.events.off('request', collect);
      inFlight.delete(composed.id);
    }
  }

  return {
    send,
    revealAnswer: (entryId) => held.reveal(entryId),
    forgetAnswers: () => held.forget(),
    cancel(id) {
      const controller = inFlight.get(id);
      controller?.abort();
      return controller !== undefined;
    },
    claim(socket) {
      // Empty unless the workbench is sending: any other client's request costs this one check.
      if (unclaimed.size === 0) return undefined;
      for (const [id, waiting] of unclaimed) {
        if (waiting.socket.localPort !== socket.remotePort || waiting.socket.localAddress !== socket.remoteAddress) continue;
        unclaimed.delete(id);
        return waiting.sent;
      }
      return undefined;
    },
  };
}
