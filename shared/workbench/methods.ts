import { z } from 'zod';
import {
  applicationChangeSchema,
  applicationChoiceSchema,
  applicationDetailSchema,
  applicationRefSchema,
  clientKeyInfoSchema,
  keyRefSchema,
  newApplicationSchema,
  newKeySchema,
  permissionInfoSchema,
  sessionInfoSchema,
} from './application-contract';
import {
  collectionsViewSchema,
  importedRequestsSchema,
  importRequestSchema,
  requestPlaceSchema,
  savedRequestsSchema,
  savedRequestSchema,
  sendAsSchema,
} from './collection-contract';
import {
  composedRequestSchema,
  exchangeSchema,
  expressionPreviewQuerySchema,
  expressionPreviewSchema,
  newRemoteTargetSchema,
  proxyChoiceSchema,
  remoteTargetSchema,
  requestCheckQuerySchema,
  requestCheckSchema,
  requestSnippetQuerySchema,
  requestSnippetSchema,
  tokenSuggestionQuerySchema,
  tokenSuggestionSchema,
} from './composer-contract';
import {
  harExportSchema,
  harPageSchema,
  historyAnswerSchema,
  historyListSchema,
  historyQuerySchema,
  revealedAnswerSchema,
  revealedOutboundSchema,
  historyEntryQuerySchema,
} from './history-contract';
import { engineStatusSchema, liveEventSchema } from './live-contract';
import { credentialInfoSchema, credentialRefSchema, identitySchema, newCredentialReplySchema, newCredentialSchema } from './people-contract';
import {
  collectionsFolderChangeSchema,
  engineSettingsSchema,
  historyAnswersChangeSchema,
  limitsChangeSchema,
  retentionChangeSchema,
  tokenIntentTtlChangeSchema,
  logRetentionChangeSchema,
} from './settings-contract';
import { tokenIntentListSchema } from './token-intent-contract';
import { transactionPageSchema, transactionQuerySchema } from './transaction-contract';
import {
  seedExportRequestSchema,
  seedExportSchema,
  seedImportRequestSchema,
  seedReportSchema,
  welcomeSchema,
  wipeReportSchema,
  wipeRequestSchema,
} from './vault-contract';
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
import { newSecretSchema, revealedSecretSchema, secretInfoSchema, secretRefSchema } from './secret-contract';
import { activeEnvironmentSchema, environmentChangeSchema, environmentRefSchema, environmentsViewSchema } from './environment-contract';
import { postmanImportedSchema, postmanImportSchema } from './postman-contract';
import { proxiesFolderChangeSchema, proxyExportSchema, proxyFilesViewSchema, proxyFilesWrittenSchema, proxyImportSchema } from './proxy-files-contract';
import { newProxySchema, proxyChangeSchema, proxyRefSchema, proxyTrySchema, proxyViewSchema } from './proxy-contract';
import { clientKeyRefSchema, newClientKeyReplySchema, newClientKeySchema, sessionRefSchema } from './client-access-contract';
import type { PageId } from './pages';
import { newReactorSchema, reactorChangeSchema, reactorResultQuerySchema, reactorResultSchema, reactorTrySchema, reactorViewSchema } from './reactor-contract';
import { tenantChangeSchema, tenantDeleteChangeSchema, tenantDetailSchema } from './tenant-contract';
import {
  deliveryQuerySchema,
  deliveryViewSchema,
  newWebhookSchema,
  redeliverySchema,
  webhookChangeSchema,
  webhookKeySchema,
  webhookListSchema,
  webhookRefSchema,
  webhookViewSchema,
} from './webhook-contract';

/**
 * The workbench's methods, each written once: its name, what it takes and what it answers, or the events it streams.
 * Everything else follows from this table: the IPC channels and HTTP paths (transport.ts), the preload bridge, the
 * main process's handlers, the engine's /_workbench/ routes and the page's clients. Adding a method is a row here
 * (made with read, change or reveal), a method of the engine's workbench model and, for a change or a reveal, its
 * history record (electron/engine/workbench/workbench-records.ts).
 */

/**
 * What a call does, which decides what history must record of it. read: answers what the engine holds, masked, and
 * changes nothing. change: changes the vault, the engine's settings, its saved requests or what it sends elsewhere.
 * reveal: answers a secret (token plaintext, a key) the page does not otherwise see. A change or a reveal leaves a
 * history entry: the engine's model refuses to start with such a row that has no history record.
 */
export type Effect = 'read' | 'change' | 'reveal';

/** A request and its one reply. */
interface CallRow<Request extends z.ZodType = z.ZodType, Reply extends z.ZodType = z.ZodType, E extends Effect = Effect> {
  readonly kind: 'call';
  readonly effect: E;
  readonly request: Request;
  readonly reply: Reply;
}

/** A subscription: events until the subscriber leaves. */
interface StreamRow<Event extends z.ZodType = z.ZodType> {
  readonly kind: 'stream';
  readonly event: Event;
}

const callOf =
  <E extends Effect>(effect: E) =>
  <Request extends z.ZodType, Reply extends z.ZodType>(request: Request, reply: Reply): CallRow<Request, Reply, E> => ({ kind: 'call', effect, request, reply });
/** A call that reads; it changes and reveals nothing. */
const read = callOf('read');
/** A call that changes something: history records it. */
const change = callOf('change');
/** A call that answers a secret: history records what it revealed, by id (a key by its last four), never the value. */
const reveal = callOf('reveal');
const stream = <Event extends z.ZodType>(event: Event): StreamRow<Event> => ({ kind: 'stream', event });

const nothing = z.strictObject({});

export const WORKBENCH_METHODS = {
  /** Where the engine runs and what its vault holds. */
  getStatus: read(nothing, engineStatusSchema),
  /** A page of the request history, newest first. */
  listHistory: read(historyQuerySchema, historyListSchema),
  /** The answer body history kept of a proxied request (masked before it was stored): 404 unknown, 409 none kept. */
  getHistoryAnswer: read(historyEntryQuerySchema, historyAnswerSchema),
  /** Requests from the history as HAR (token data masked, keys cut to a hint), for other tools to import: a page at a time. */
  exportHar: read(harExportSchema, harPageSchema),
  /** A proxied request's outbound body in plaintext: only on the user's explicit action. */
  revealOutbound: reveal(historyEntryQuerySchema, revealedOutboundSchema),
  /** A composed request's answer as received, the values its exchange masked included: only on the user's explicit action. */
  revealAnswer: reveal(historyEntryQuerySchema, revealedAnswerSchema),
  /** A page of the kept transactions, newest first, in one state or all, each with its operations (token data masked), and their counts. */
  listTransactions: read(transactionQuerySchema, transactionPageSchema),
  /** The applications the workbench may act as, each with its workbench key (never the key itself). */
  listApplications: read(nothing, z.array(applicationChoiceSchema)),
  /** The pre-configured proxies the Composer may send through, by name and destination (never their keys). */
  listProxyChoices: read(nothing, z.array(proxyChoiceSchema)),
  /** Sends a composed request to the service's own address as the chosen application, with its workbench key. */
  sendRequest: change(composedRequestSchema, exchangeSchema),
  /** Stops a composed request still in flight; it then answers as cancelled. */
  cancelRequest: change(z.strictObject({ id: z.string().min(1).max(100) }), z.object({ cancelled: z.boolean() })),
  /** Revokes an application's workbench key; the next request sent as it mints a new one. */
  revokeWorkbenchKey: change(z.strictObject({ application_id: z.string().min(1).max(200) }), applicationChoiceSchema),
  /** Flags on a composed request before it is sent: what the proxy would refuse, and what the hosted service would do otherwise. A draft may send its body as a change since its last check (409 when the engine no longer holds that one). */
  checkRequest: read(requestCheckQuerySchema, requestCheckSchema),
  /** The expression at an offset of a body: its token and what it would write, from the token's masked data. */
  previewExpression: read(expressionPreviewQuerySchema, expressionPreviewSchema),
  /** A page of tokens for the editor's completion, found by id, type, container, metadata or masked data. */
  suggestTokens: read(tokenSuggestionQuerySchema, z.array(tokenSuggestionSchema)),
  /** The remote targets the Composer may send to, each with its key's last four characters only. */
  listRemoteTargets: read(nothing, z.array(remoteTargetSchema)),
  /** Keeps a remote target and its API key (sealed; never sent back). */
  addRemoteTarget: change(newRemoteTargetSchema, remoteTargetSchema),
  deleteRemoteTarget: change(z.strictObject({ id: z.string().min(1).max(100) }), z.object({ deleted: z.boolean() })),
  /** A composed request as a cURL command or Node.js script, the key read from $BT_API_KEY unless asked to include it. */
  requestSnippet: reveal(requestSnippetQuerySchema, requestSnippetSchema),
  /** The saved requests: a folder of collections, a file per request. */
  listCollections: read(nothing, collectionsViewSchema),
  /**
   * Saves a request in a collection (made if new); over one of the same name only with `overwrite`. Its credentials
   * move into Secrets first, and the file refers to them by name; the reply says which moved. `send_as` names the
   * application it is sent as, kept in the file by name.
   */
  saveRequest: change(
    requestPlaceSchema.extend({ request: savedRequestSchema, overwrite: z.boolean().default(false), send_as: sendAsSchema.nullable().default(null) }),
    savedRequestsSchema,
  ),
  /** Renames a saved request, or moves it to another collection; never over an existing one. */
  moveRequest: change(z.strictObject({ from: requestPlaceSchema, to: requestPlaceSchema }), collectionsViewSchema),
  deleteRequest: change(requestPlaceSchema, collectionsViewSchema),
  /**
   * Reads a pasted cURL command or HAR into requests the Composer can send (parsed in the engine, as curl would); their
   * credentials move into Secrets, and the reply names them.
   */
  importRequests: change(importRequestSchema, importedRequestsSchema),
  /**
   * Writes a Postman collection (v2.1) and its environment into the folder as collections and an environment, all or
   * nothing; credentials and secret variables move into Secrets; the reply lists what could not be carried over.
   */
  importPostman: change(postmanImportSchema, postmanImportedSchema),
  /** The environments of the collections folder, and the one requests are sent with; a secret variable's value never. */
  listEnvironments: read(nothing, environmentsViewSchema),
  /** Saves an environment's variables (renamed when `from` names another); secret values go to Secrets, never to the file. */
  saveEnvironment: change(environmentChangeSchema, environmentsViewSchema),
  deleteEnvironment: change(environmentRefSchema, environmentsViewSchema),
  /** Chooses the environment `${env:…}` references are read from (null: none), remembered per collections folder. */
  setActiveEnvironment: change(activeEnvironmentSchema, environmentsViewSchema),
  /** Keeps saved requests and environments in another folder from now on (null: the default), unless `--collections` was given. */
  setCollectionsFolder: change(collectionsFolderChangeSchema, engineSettingsSchema),
  /** The proxies folder and each file in it: the proxy it serves, loaded or broken (and why), and when it was read. */
  listProxyFiles: read(nothing, proxyFilesViewSchema),
  /** Loads proxies from another folder from now on (made if new; null: none), unless `--proxies` was given. */
  setProxiesFolder: change(proxiesFolderChangeSchema, proxyFilesViewSchema),
  /** Writes a proxy made through the API into the proxies folder, secrets moved into Secrets; it is the file's proxy from then on, with its id and key. */
  exportProxyToFiles: change(proxyExportSchema, proxyFilesWrittenSchema),
  /** Writes a proxy as the hosted service's GET /proxies/{id} answers it into the proxies folder, keeping its id and key when they are free. */
  importProxyToFiles: change(proxyImportSchema, proxyFilesWrittenSchema),
  /** Writes a reactor made through the API into the proxies folder as a `.reactor.json` file, secrets moved into Secrets; it is the file's reactor from then on, with its id. */
  exportReactorToFiles: change(proxyExportSchema, proxyFilesWrittenSchema),
  /** Writes a reactor as the hosted service's GET /reactors/{id} answers it into the proxies folder, keeping its id when it is free. */
  importReactorToFiles: change(proxyImportSchema, proxyFilesWrittenSchema),
  /** The secrets saved requests refer to as `${secret:NAME}`, by name, with the requests that use each; never a value. */
  listSecrets: read(nothing, z.array(secretInfoSchema)),
  /** Sets a secret, or replaces the value of one of that name (sealed; never sent back but by revealSecret). */
  setSecret: change(newSecretSchema, secretInfoSchema),
  deleteSecret: change(secretRefSchema, z.object({ deleted: z.boolean() })),
  /** A secret's value: only on the user's explicit action, and recorded in history by the secret's name. */
  revealSecret: reveal(secretRefSchema, revealedSecretSchema),
  /** Every application with its permissions, access rules and keys, for Settings. */
  listApplicationDetails: read(nothing, z.array(applicationDetailSchema)),
  /** The permissions each type of application may hold, with what each allows. */
  listPermissions: read(nothing, z.array(permissionInfoSchema)),
  /** Creates an application, validated as POST /applications validates one; it has no key until one is made. */
  createApplication: change(newApplicationSchema, applicationDetailSchema),
  /** Renames an application or changes its permissions and rules, validated as PUT /applications/{id}. */
  updateApplication: change(applicationChangeSchema, applicationDetailSchema),
  /** Deletes an application; its keys stop working at once. */
  deleteApplication: change(applicationRefSchema, z.object({ deleted: z.literal(true) })),
  /** Makes a key for an application: its secret is in this answer only. */
  createApplicationKey: change(applicationRefSchema, newKeySchema),
  /** Revokes one key of an application (the workbench's own included); a client using it gets 401 from then on. */
  revokeApplicationKey: change(keyRefSchema, applicationDetailSchema),
  /** The applications and rules as a seed file, each with a new key; the tokens' plaintext only when asked. */
  exportSeed: reveal(seedExportRequestSchema, seedExportSchema),
  /** Reads a seed file against the vault: what it would create, leave and skip as a conflict; with `apply`, does it. */
  importSeed: change(seedImportRequestSchema, seedReportSchema),
  /** Empties the vault as if new (tokens, transactions, applications and keys) and makes its first applications again. */
  wipeVault: change(wipeRequestSchema, wipeReportSchema),
  /** A new vault's first keys, for the welcome view: answered once, then null. */
  takeWelcome: reveal(nothing, welcomeSchema),
  /** How the engine is set up: the limits it applies and where they come from. */
  getSettings: read(nothing, engineSettingsSchema),
  /** Changes the proxy's limits: saved in the vault and applied to the next request, unless a start flag set one. */
  changeLimits: change(limitsChangeSchema, engineSettingsSchema),
  /** Changes how much request history is kept: saved in the vault and trimmed to at once, unless a start flag set it. */
  changeRetention: change(retentionChangeSchema, engineSettingsSchema),
  /**
   * Changes whether history keeps the destinations' answers to the proxy (masked, up to a size): saved in the vault
   * and applied to the next request, unless a start flag set it.
   */
  changeHistoryAnswers: change(historyAnswersChangeSchema, engineSettingsSchema),
  /** Changes how long new token intents live (existing ones keep their expiry): saved in the vault, unless a start flag set it. */
  changeTokenIntentTtl: change(tokenIntentTtlChangeSchema, engineSettingsSchema),
  /** Removes every request history entry; answers how many there were. */
  clearHistory: change(nothing, z.object({ cleared: z.number().int().nonnegative() })),
  /** The live token intents, newest first, with their expiry (never their data); a page converts one with writeToken. */
  listTokenIntents: read(nothing, tokenIntentListSchema),
  /** A page of the vault's tokens as an application searches them, newest first, with the total (data masked). */
  searchTokens: read(tokenSearchSchema, tokenPageSchema),
  /** One token as an application reads it (data masked), with the tokens that share its fingerprint. */
  getToken: read(tokenQuerySchema, tokenDetailSchema),
  /** What an application (or a draft of its rules) would get of a token, and whether the proxy would use it for it. */
  readTokenAs: read(readAsQuerySchema, readAsSchema),
  /** A token's data in plaintext: only on the user's explicit action, and recorded in history by the token's id. */
  revealToken: reveal(revealTokenQuerySchema, revealedTokenSchema),
  /** Creates, changes or deletes tokens as an application, through the service's front door. */
  writeToken: change(tokenWriteSchema, tokenWriteResultSchema),
  /** The pre-configured proxies, in creation order, each with its key's last four characters only. */
  listProxies: read(nothing, z.array(proxyViewSchema)),
  getProxy: read(proxyRefSchema, proxyViewSchema),
  /** Creates a pre-configured proxy, validated as POST /proxies validates one (a 400 naming each field it refuses). */
  createProxy: change(newProxySchema, proxyViewSchema),
  /** Replaces a proxy's definition, validated as PUT /proxies/{id}; its id and key stay. */
  updateProxy: change(proxyChangeSchema, proxyViewSchema),
  /** Deletes a proxy; its key stops working at once. */
  deleteProxy: change(proxyRefSchema, z.object({ deleted: z.literal(true) })),
  /** Sends a sample request through a proxy as an application: the answer's history entry carries its pipeline trace. */
  tryProxy: change(proxyTrySchema, exchangeSchema),
  /** The live client encryption keys, oldest first, with who made them; never their halves. */
  listClientKeys: read(nothing, z.array(clientKeyInfoSchema)),
  /** The live sessions, oldest first: whose, whether and by whom authorized, with what; never their keys or nonces. */
  listSessions: read(nothing, z.array(sessionInfoSchema)),
  /** Makes a client encryption key, validated as POST /keys: its public half is in this answer only. */
  createClientKey: change(newClientKeySchema, newClientKeyReplySchema),
  /** Deletes a client encryption key: what was encrypted with it can no longer be sent. */
  deleteClientKey: change(clientKeyRefSchema, z.object({ deleted: z.literal(true) })),
  /** Ends a live session at once: its key is refused from the next request. */
  revokeSession: change(sessionRefSchema, z.object({ revoked: z.literal(true) })),
  /** The reactors, in creation order. */
  listReactors: read(nothing, z.array(reactorViewSchema)),
  /** Creates a reactor, validated as POST /reactors validates one (a 400 naming each field it refuses). */
  createReactor: change(newReactorSchema, reactorViewSchema),
  /** Replaces a reactor's definition, validated as PUT /reactors/{id}; its id stays. */
  updateReactor: change(reactorChangeSchema, reactorViewSchema),
  /** Deletes a reactor: reacts to it answer 404 from then on. */
  deleteReactor: change(proxyRefSchema, z.object({ deleted: z.literal(true) })),
  /** Invokes a reactor through POST /reactors/{id}/react (react-async with `async`) as an application: the answer's history entry carries the trace. */
  tryReactor: change(reactorTrySchema, exchangeSchema),
  /** The tenant (its name and settings, as GET /tenants/self answers them) with its usage report. */
  getTenant: read(nothing, tenantDetailSchema),
  /** Renames the tenant and replaces its settings, as PUT /tenants/self does (and raises tenant.updated); they apply to the next request. */
  updateTenant: change(tenantChangeSchema, tenantDetailSchema),
  /** Allows or refuses DELETE /tenants/self: saved in the vault, unless `--allow-tenant-delete` was given. */
  changeTenantDelete: change(tenantDeleteChangeSchema, engineSettingsSchema),
  /** Asks for a react-async Try's result as the application, through GET /reactors/{id}/results/{result_id}; once it is there, with the react's History entry. */
  tryReactorResult: change(reactorResultQuerySchema, reactorResultSchema),
  /** The webhooks in creation order, the event types they may subscribe to, and how many a tenant may have. */
  listWebhooks: read(nothing, webhookListSchema),
  /** Creates a webhook, validated as POST /webhooks (a 400 naming each field; 422 for a sixth). */
  createWebhook: change(newWebhookSchema, webhookViewSchema),
  /** Replaces a webhook, validated as PUT /webhooks/{id}; status enabled re-enables one the service disabled. */
  updateWebhook: change(webhookChangeSchema, webhookViewSchema),
  /** Deletes a webhook, and its deliveries, pending ones too. */
  deleteWebhook: change(webhookRefSchema, z.object({ deleted: z.literal(true) })),
  /** A webhook's deliveries, newest first: event, attempts, last status, latency, error and the body as sent. */
  listWebhookDeliveries: read(deliveryQuerySchema, z.array(deliveryViewSchema)),
  /** Sends a delivery's event to its webhook again, as a new delivery (the same event id), from its first attempt. */
  redeliverWebhook: change(redeliverySchema, deliveryViewSchema),
  /** Sends the webhook a real, signed delivery of an event of type `test`. */
  sendWebhookTest: change(webhookRefSchema, deliveryViewSchema),
  /** The public key that verifies every delivery's signature, as GET /keys/webhooks.v1.key serves it. */
  webhookSigningKey: read(nothing, webhookKeySchema),
  /** Changes how many hours `GET /logs` keeps its lines, trimming older ones at once: saved in the vault, unless a start flag set it. */
  changeLogRetention: change(logRetentionChangeSchema, engineSettingsSchema),
  /** Who this page's workbench acts for: a named person (their credential), or the owner. */
  getIdentity: read(nothing, identitySchema),
  /** The named workbench credentials, oldest first: name, made, last used; never a secret. */
  listCredentials: read(nothing, z.array(credentialInfoSchema)),
  /** Makes a named credential (names unique): its secret is in this answer only, the engine keeps its hash. */
  createCredential: change(newCredentialSchema, newCredentialReplySchema),
  /** Deletes a credential by name: its holder's sessions end at once (404: none has that name). */
  revokeCredential: change(credentialRefSchema, z.object({ revoked: z.literal(true) })),
  /** The engine's live event road: new history entries, transaction and token changes, with the status. */
  live: stream(liveEventSchema),
} as const;

type Methods = typeof WORKBENCH_METHODS;
export type MethodName = keyof Methods;
export type CallName = { [K in MethodName]: Methods[K] extends CallRow ? K : never }[MethodName];
export type StreamName = { [K in MethodName]: Methods[K] extends StreamRow ? K : never }[MethodName];
type CallWith<E extends Effect> = { [K in CallName]: Methods[K] extends CallRow<z.ZodType, z.ZodType, E> ? K : never }[CallName];
/** The calls that change something, and those that reveal a secret: each has its history record in the engine. */
export type ChangeName = CallWith<'change'>;
export type RevealName = CallWith<'reveal'>;

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
