import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Caller } from '../access/authenticator';
import type { KeptBody } from '../history/kept-body';
import type { BodyChunks } from './body-chunks';
import type { ResolvedSecrets } from './log-headers';
import type { PageId } from '../../../shared/workbench/pages';

/** The values a request detokenized, masked wherever its answer repeats one (proxy/echoed-values). */
export interface AnswerMasker {
  /** Latin-1 text (a header value, as HTTP reads one) with every value it repeats masked, and how many places were. */
  maskLatin1(text: string): { text: string; masked: number };
  /** A body likewise, searched a part per turn of the event loop. */
  maskBytes(bytes: Buffer): Promise<{ bytes: Buffer; masked: number }>;
}

/**
 * A request the workbench sent (its front door): the page it was sent from, the references the engine put in it, and
 * the environment they were read from.
 */
export interface WorkbenchSent {
  /** null: the call named no page. */
  page: PageId | null;
  secrets: ResolvedSecrets | undefined;
  /** The path as the user wrote it, when references in it were put in: history keeps it so. */
  writtenPath?: string;
  /** The environment active when it was sent; null: none. */
  environment: string | null;
  /** The named person the workbench sent it for; undefined for its owner. */
  person?: { id: string; name: string };
  /** Set by the proxy once it has detokenized the request, for the front door to mask the answer it shows. */
  answer?: AnswerMasker;
}

/** What the request log keeps of one request; routes fill in what only they know (never plaintext token data). */
export interface LogDraft {
  kind: 'api' | 'proxy' | 'workbench';
  applicationId: string | null;
  /** The workbench page that sent the request (null: the workbench, no page named); undefined for any other client. */
  workbenchPage?: PageId | null;
  /** The secrets the workbench's references resolved to in this request: history writes them back as references. */
  secrets?: ResolvedSecrets;
  /** The environment the workbench sent the request with (null: none); undefined for any other client. */
  workbenchEnvironment?: string | null;
  /** The request body as it may be shown, with token data masked. */
  requestBody?: unknown;
  /** Instead of `requestBody`: the body as sent, kept as bytes (the proxy's, with its expressions). */
  rawBody?: KeptBody;
  /** The proxy's destination answer body, masked, when history keeps answers: stored apart from the entry. */
  answerText?: string;
  /**
   * The proxy's outbound body as history keeps it, each detokenized value masked but not yet the card numbers the
   * client wrote itself: the history worker masks those and puts it in the details (see NewRequestLogEntry).
   */
  outboundText?: string;
  /** Feature-specific details (the proxy's outbound request, timings, warnings, …). */
  details?: Record<string, unknown>;
  /** The transaction the request worked in (a write staged, a read of its view, its commit or rollback). */
  transactionId?: string;
  /** The type of the token a request deleted, which its empty answer does not show: its log line names card, bank or token. */
  tokenType?: string;
}

export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  readonly path: string;
  /** The query string's parameters (parsed on first call). */
  query(): URLSearchParams;
  readonly params: Record<string, string | undefined>;
  readonly traceId: string;
  readonly startedAt: number;
  /** The authenticated application; set before any route that requires a key runs (a keyOptional route may have none). */
  caller: Caller;
  /** A service header by its unprefixed name: `prefixed('API-KEY')` reads `BT-API-KEY`; given twice, a 400. */
  prefixed(name: string): string | undefined;
  /** The whole body, read once, limited to the configured size (413 beyond it), in the chunks it arrived in. */
  body(): Promise<BodyChunks>;
  /** The body parsed as JSON (400 with the parser's reason when malformed). */
  json(): Promise<unknown>;
  readonly log: LogDraft;
  /** The workbench's request this is (its front door's), or undefined for any other client's. */
  readonly workbench: WorkbenchSent | undefined;
}

export interface JsonReply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A route either returns a JSON reply or has already written the response itself (the proxy streams). */
export type Handler = (ctx: RequestContext) => Promise<JsonReply | 'sent'> | JsonReply | 'sent';

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  handler: Handler;
  /** Routes reachable without an API key (none of the wire API; the workbench uses its own session). */
  public?: boolean;
  /**
   * A key, when given, is checked (401 when unknown) before the route runs; without one the route runs with no caller
   * and decides itself (/proxy: a pre-configured proxy may not require one).
   */
  keyOptional?: boolean;
  /** PFX-IDEMPOTENCY-KEY applies (POST/PUT/PATCH outside /proxy). */
  idempotent?: boolean;
  /** Failures answer `{"proxy_error": problem}` instead of a bare problem. */
  proxy?: boolean;
}
