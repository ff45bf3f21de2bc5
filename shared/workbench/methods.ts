import { z } from 'zod';
import {
  applicationChangeSchema,
  applicationChoiceSchema,
  collectionsViewSchema,
  importedRequestsSchema,
  importRequestSchema,
  applicationDetailSchema,
  applicationRefSchema,
  composedRequestSchema,
  engineSettingsSchema,
  engineStatusSchema,
  exchangeSchema,
  harExportSchema,
  harPageSchema,
  historyAnswerSchema,
  historyAnswersChangeSchema,
  historyListSchema,
  historyQuerySchema,
  keyRefSchema,
  limitsChangeSchema,
  liveEventSchema,
  newApplicationSchema,
  newKeySchema,
  permissionInfoSchema,
  revealedOutboundSchema,
  requestPlaceSchema,
  retentionChangeSchema,
  historyEntryQuerySchema,
  savedRequestSchema,
  seedExportRequestSchema,
  seedExportSchema,
  seedImportRequestSchema,
  seedReportSchema,
  transactionPageSchema,
  transactionQuerySchema,
  welcomeSchema,
  wipeReportSchema,
  wipeRequestSchema,
} from './contract';
import {
  expressionPreviewQuerySchema,
  expressionPreviewSchema,
  newRemoteTargetSchema,
  remoteTargetSchema,
  requestCheckQuerySchema,
  requestCheckSchema,
  requestSnippetQuerySchema,
  requestSnippetSchema,
  tokenSuggestionQuerySchema,
  tokenSuggestionSchema,
} from './composer-contract';
import {
  readAsQuerySchema,
  readAsSchema,
  revealedTokenSchema,
  revealTokenQuerySchema,
  tokenDetailSchema,
  tokenPageSchema,
  tokenQuerySchema,
  tokenSearchSchema,
  tokenWriteResultSchema,
  tokenWriteSchema,
} from './token-contract';
import type { PageId } from './pages';

/**
 * The workbench's methods, each written once: its name, what it takes and what it answers, or the events it streams.
 * Everything else follows from this table: the IPC channels and HTTP paths (transport.ts), the preload bridge, the
 * main process's handlers, the engine's /_workbench/ routes and the page's clients. Adding a method is a row here and
 * a method of the engine's workbench model.
 */

/** A request and its one reply. */
interface CallRow<Request extends z.ZodType = z.ZodType, Reply extends z.ZodType = z.ZodType> {
  readonly kind: 'call';
  readonly request: Request;
  readonly reply: Reply;
}

/** A subscription: events until the subscriber leaves. */
interface StreamRow<Event extends z.ZodType = z.ZodType> {
  readonly kind: 'stream';
  readonly event: Event;
}

const call = <Request extends z.ZodType, Reply extends z.ZodType>(request: Request, reply: Reply): CallRow<Request, Reply> => ({
  kind: 'call',
  request,
  reply,
});
const stream = <Event extends z.ZodType>(event: Event): StreamRow<Event> => ({ kind: 'stream', event });

const nothing = z.strictObject({});

export const WORKBENCH_METHODS = {
  /** Where the engine runs and what its vault holds. */
  getStatus: call(nothing, engineStatusSchema),
  /** A page of the request history, newest first. */
  listHistory: call(historyQuerySchema, historyListSchema),
  /** The answer body history kept of a proxied request (masked before it was stored): 404 unknown, 409 none kept. */
  getHistoryAnswer: call(historyEntryQuerySchema, historyAnswerSchema),
  /** Requests from the history as HAR (token data masked, keys cut to a hint), for other tools to import: a page at a time. */
  exportHar: call(harExportSchema, harPageSchema),
  /** A proxied request's outbound body in plaintext: only on the user's explicit action. */
  revealOutbound: call(historyEntryQuerySchema, revealedOutboundSchema),
  /** A page of the kept transactions, newest first, in one state or all, each with its operations (token data masked), and their counts. */
  listTransactions: call(transactionQuerySchema, transactionPageSchema),
  /** The applications the workbench may act as, each with its workbench key (never the key itself). */
  listApplications: call(nothing, z.array(applicationChoiceSchema)),
  /** Sends a composed request to the service's own address as the chosen application, with its workbench key. */
  sendRequest: call(composedRequestSchema, exchangeSchema),
  /** Stops a composed request still in flight; it then answers as cancelled. */
  cancelRequest: call(z.strictObject({ id: z.string().min(1).max(100) }), z.object({ cancelled: z.boolean() })),
  /** Revokes an application's workbench key; the next request sent as it mints a new one. */
  revokeWorkbenchKey: call(z.strictObject({ application_id: z.string().min(1).max(200) }), applicationChoiceSchema),
  /** Flags on a composed request before it is sent: what the proxy would refuse, and what the hosted service would do otherwise. A draft may send its body as a change since its last check (409 when the engine no longer holds that one). */
  checkRequest: call(requestCheckQuerySchema, requestCheckSchema),
  /** The expression at an offset of a body: its token and what it would write, from the token's masked data. */
  previewExpression: call(expressionPreviewQuerySchema, expressionPreviewSchema),
  /** A page of tokens for the editor's completion, found by id, type, container, metadata or masked data. */
  suggestTokens: call(tokenSuggestionQuerySchema, z.array(tokenSuggestionSchema)),
  /** The remote targets the Composer may send to, each with its key's last four characters only. */
  listRemoteTargets: call(nothing, z.array(remoteTargetSchema)),
  /** Keeps a remote target and its API key (sealed; never sent back). */
  addRemoteTarget: call(newRemoteTargetSchema, remoteTargetSchema),
  deleteRemoteTarget: call(z.strictObject({ id: z.string().min(1).max(100) }), z.object({ deleted: z.boolean() })),
  /** A composed request as a cURL command or Node.js script, the key read from $BT_API_KEY unless asked to include it. */
  requestSnippet: call(requestSnippetQuerySchema, requestSnippetSchema),
  /** The saved requests: a folder of collections, a file per request. */
  listCollections: call(nothing, collectionsViewSchema),
  /** Saves a request in a collection (made if new); over one of the same name only with `overwrite`. */
  saveRequest: call(requestPlaceSchema.extend({ request: savedRequestSchema, overwrite: z.boolean().default(false) }), collectionsViewSchema),
  /** Renames a saved request, or moves it to another collection; never over an existing one. */
  moveRequest: call(z.strictObject({ from: requestPlaceSchema, to: requestPlaceSchema }), collectionsViewSchema),
  deleteRequest: call(requestPlaceSchema, collectionsViewSchema),
  /** Reads a pasted cURL command or HAR into requests the Composer can send (parsed in the engine, as curl would). */
  importRequests: call(importRequestSchema, importedRequestsSchema),
  /** Every application with its permissions, access rules and keys, for Settings. */
  listApplicationDetails: call(nothing, z.array(applicationDetailSchema)),
  /** The permissions each type of application may hold, with what each allows. */
  listPermissions: call(nothing, z.array(permissionInfoSchema)),
  /** Creates an application, validated as POST /applications validates one; it has no key until one is made. */
  createApplication: call(newApplicationSchema, applicationDetailSchema),
  /** Renames an application or changes its permissions and rules, validated as PUT /applications/{id}. */
  updateApplication: call(applicationChangeSchema, applicationDetailSchema),
  /** Deletes an application; its keys stop working at once. */
  deleteApplication: call(applicationRefSchema, z.object({ deleted: z.literal(true) })),
  /** Makes a key for an application: its secret is in this answer only. */
  createApplicationKey: call(applicationRefSchema, newKeySchema),
  /** Revokes one key of an application (the workbench's own included); a client using it gets 401 from then on. */
  revokeApplicationKey: call(keyRefSchema, applicationDetailSchema),
  /** The applications and rules as a seed file, each with a new key; the tokens' plaintext only when asked. */
  exportSeed: call(seedExportRequestSchema, seedExportSchema),
  /** Reads a seed file against the vault: what it would create, leave and skip as a conflict; with `apply`, does it. */
  importSeed: call(seedImportRequestSchema, seedReportSchema),
  /** Empties the vault as if new (tokens, transactions, applications and keys) and makes its first applications again. */
  wipeVault: call(wipeRequestSchema, wipeReportSchema),
  /** A new vault's first keys, for the welcome view: answered once, then null. */
  takeWelcome: call(nothing, welcomeSchema),
  /** How the engine is set up: the limits it applies and where they come from. */
  getSettings: call(nothing, engineSettingsSchema),
  /** Changes the proxy's limits: saved in the vault and applied to the next request, unless a start flag set one. */
  changeLimits: call(limitsChangeSchema, engineSettingsSchema),
  /** Changes how much request history is kept: saved in the vault and trimmed to at once, unless a start flag set it. */
  changeRetention: call(retentionChangeSchema, engineSettingsSchema),
  /**
   * Changes whether history keeps the destinations' answers to the proxy (masked, up to a size): saved in the vault
   * and applied to the next request, unless a start flag set it.
   */
  changeHistoryAnswers: call(historyAnswersChangeSchema, engineSettingsSchema),
  /** Removes every request history entry; answers how many there were. */
  clearHistory: call(nothing, z.object({ cleared: z.number().int().nonnegative() })),
  /** A page of the vault's tokens as an application searches them, newest first, with the total (data masked). */
  searchTokens: call(tokenSearchSchema, tokenPageSchema),
  /** One token as an application reads it (data masked), with the tokens that share its fingerprint. */
  getToken: call(tokenQuerySchema, tokenDetailSchema),
  /** What an application (or a draft of its rules) would get of a token, and whether the proxy would use it for it. */
  readTokenAs: call(readAsQuerySchema, readAsSchema),
  /** A token's data in plaintext: only on the user's explicit action, and recorded in history by the token's id. */
  revealToken: call(revealTokenQuerySchema, revealedTokenSchema),
  /** Creates, changes or deletes tokens as an application, through the service's front door. */
  writeToken: call(tokenWriteSchema, tokenWriteResultSchema),
  /** The engine's live event road: new history entries, transaction and token changes, with the status. */
  live: stream(liveEventSchema),
} as const;

type Methods = typeof WORKBENCH_METHODS;
export type MethodName = keyof Methods;
export type CallName = { [K in MethodName]: Methods[K] extends CallRow ? K : never }[MethodName];
export type StreamName = { [K in MethodName]: Methods[K] extends StreamRow ? K : never }[MethodName];

type Row<K extends CallName> = Extract<Methods[K], CallRow>;
type Events<S extends StreamName> = Extract<Methods[S], StreamRow>['event'];

/** A call's request as the page writes it (defaults may be left out) and as the engine reads it (validated). */
export type RequestInput<K extends CallName> = z.input<Row<K>['request']>;
export type Request<K extends CallName> = z.output<Row<K>['request']>;
/** A call's reply as the engine builds it, and as the page reads it (validated, transformed). */
export type SentReply<K extends CallName> = z.input<Row<K>['reply']>;
export type Reply<K extends CallName> = z.output<Row<K>['reply']>;
export type SentEvent<S extends StreamName> = z.input<Events<S>>;
export type StreamEvent<S extends StreamName> = z.output<Events<S>>;

/** What a stream's subscriber hears besides the engine's events: the transport dropped, and whether it retries. */
export interface StreamLost {
  type: 'lost';
  retrying: boolean;
}

export function isCall(name: MethodName): name is CallName {
  return WORKBENCH_METHODS[name].kind === 'call';
}

/** The method a transport was asked for by name, or undefined for any other string (an own key, never the prototype's). */
export function methodNamed(name: string): MethodName | undefined {
  return Object.hasOwn(WORKBENCH_METHODS, name) ? (name as MethodName) : undefined;
}

export const METHOD_NAMES = Object.keys(WORKBENCH_METHODS) as MethodName[];

/**
 * The engine's side: one method per row, over the engine's own objects. Both transports serve this one object. A
 * call is given the page it was made on, which the history entries it causes name; none when the caller said none.
 */
export type WorkbenchModel = { [K in CallName]: (request: Request<K>, page?: PageId) => SentReply<K> | Promise<SentReply<K>> } & {
  [S in StreamName]: (listener: (event: SentEvent<S>) => void) => () => void;
};

/** A call whose every request field is optional may be made with no argument. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- `{} extends T` asks whether every field of T is optional
type CallFunction<K extends CallName> = {} extends RequestInput<K>
  ? (request?: RequestInput<K>) => Promise<Reply<K>>
  : (request: RequestInput<K>) => Promise<Reply<K>>;

/** The page's side: every reply and event validated on arrival; a failed call rejects with a WorkbenchError. */
export type WorkbenchApi = { [K in CallName]: CallFunction<K> } & {
  [S in StreamName]: (listener: (event: StreamEvent<S> | StreamLost) => void) => () => void;
};
