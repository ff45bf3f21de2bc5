import { z } from 'zod';
import type { ApplicationChoice } from '../../../shared/workbench/application-contract';
import { HISTORY_PAGE_MAX, type ProxyDetails } from '../../../shared/workbench/history-contract';
import type { EngineStatus } from '../../../shared/workbench/live-contract';
import type { EngineSettings } from '../../../shared/workbench/settings-contract';
import {
  WORKBENCH_METHODS,
  type CallName,
  type ChangeName,
  type RevealName,
  type Request,
  type SentReply,
  type WorkbenchModel,
} from '../../../shared/workbench/methods';
import type { Problem } from '../../../shared/workbench/transport';
import { PAGE_IDS, type PageId } from '../../../shared/workbench/pages';
import { reactRequest } from '../../../shared/workbench/reactor-contract';
import { keyLast4, type Application, type ApplicationStore, type KeptKeyPurpose } from '../access/application-store';
import type { SessionStore } from '../access/session-store';
import type { CollectionStore } from '../collections/collection-store';
import type { ClientKeyStore } from '../encryption-keys/client-key-store';
import { createKeyRequest } from '../encryption-keys/key-routes';
import { readPostman } from '../collections/postman-import';
import { importRequests } from '../collections/request-import';
import type { Environments } from '../environments/environments';
import { resolveReferences } from '../environments/resolve-references';
import type { EngineEvents } from '../engine-events';
import { historyAsHar } from '../history/har-export';
import type { RequestLog, RequestLogEntry } from '../history/request-log';
import { version } from '../../../package.json';
import type { TransactionPanel } from '../transactions/transaction-panel';
import type { ProxyFiles } from '../proxies/files/proxy-files';
import type { ReactorExport } from '../reactors/reactor-export';
import { exportSeed } from '../seed/export-seed';
import { planSeedBetweenRequests } from '../seed/apply-seed';
import { seedFile } from '../seed/seed-file';
import type { AnyUnitRunner } from '../storage/unit';
import type { TokenService } from '../vault/token-service';
import { ApiProblem } from '../server/problem';
import { parseWith } from '../server/validation';
import type { RequestChecks } from '../proxy/proxy-check';
import type { TokenSuggestions } from '../vault/token-suggestions';
import { withPlainTextWarnings } from '../secrets/saved-credentials';
import type { SecretStore } from '../secrets/secret-store';
import { SNIPPET_WRITERS, SnippetError, snippetThroughProxy } from '../../../shared/snippets/request-snippet';
import type { WorkbenchVault } from './acting-as';
import { applicationSettings, MAX_APPLICATIONS } from './application-settings';
import { CheckedDrafts } from './checked-drafts';
import type { FrontDoor, SentExchange } from './front-door';
import type { Welcome } from './welcome';
import { LiveFeed } from './live-feed';
import type { RemoteTargets } from './remote-targets';
import { environmentSettings } from './environment-settings';
import { applyPostman } from './postman-import';
import { checkWithReferences } from './reference-checks';
import { recordedEntry } from './recorded-entry';
import type { ProxySettings } from './proxy-settings';
import type { ReactorSettings } from './reactor-settings';
import type { WebhookSettings } from './webhook-settings';
import { savedSecrets } from './saved-secrets';
import { withSendAs } from './send-as';
import { readTokenAs, revealToken, tokenDetail } from './token-access';
import { searchTokens } from './token-search';
import { writeToken } from './token-writes';
import { actionRecorder } from './workbench-actions';
import { keptKeyMade, recordingActions } from './workbench-records';
import type { TenantStore } from '../tenant/tenant-store';
import type { UsageReport } from '../tenant/tenant-routes';
import { actingPerson, workbenchCause } from '../people/acting-person';
import type { CredentialStore } from '../people/credential-store';

/**
 * How much of the history's JSON one page of an export reads: the engine's thread parses it, fills in the masked
 * outbound bodies and sends it on as HAR, so a page stays far below what would hold up other clients.
 */
const EXPORT_PAGE_CHARACTERS = 1024 * 1024;

/** The ids of a selection still to export: each once, those after `before` when it names one. */
function idsAfter(ids: readonly string[], before: string | undefined): string[] {
  const unique = [...new Set(ids)];
  return before === undefined ? unique : unique.slice(unique.indexOf(before) + 1 || unique.length);
}

/** Whether a results answer says the run goes on: 200 `{"status": "pending"}`, as a client of the route tells it too. */
function isPendingResult({ outcome }: SentExchange): boolean {
  if (outcome.kind !== 'response' || outcome.status !== 200 || outcome.truncated) return false;
  try {
    const body: unknown = JSON.parse(Buffer.from(outcome.body_base64, 'base64').toString('utf8'));
    return typeof body === 'object' && body !== null && Object.keys(body).length === 1 && (body as { status?: unknown }).status === 'pending';
  } catch {
    return false;
  }
}

/** What the workbench model reads and drives: the engine's own objects. */
export interface WorkbenchSources {
  status: () => EngineStatus;
  settings: () => EngineSettings;
  /** The first-start keys waiting for the welcome view. */
  welcome: Welcome;
  /** Empties the vault as if new; the new first keys go to the welcome view. */
  wipe: () => SentReply<'wipeVault'> | Promise<SentReply<'wipeVault'>>;
  /** Saves and applies a change to the proxy's limits. */
  changeLimits: (change: Request<'changeLimits'>) => Promise<unknown>;
  /** Saves and applies a change to how much history is kept. */
  changeRetention: (change: Request<'changeRetention'>) => Promise<unknown>;
  /** Saves and applies a change to whether history keeps answers. */
  changeHistoryAnswers: (change: Request<'changeHistoryAnswers'>) => Promise<unknown>;
  /** Saves and applies a change to how long new token intents live. */
  changeTokenIntentTtl: (change: Request<'changeTokenIntentTtl'>) => Promise<unknown>;
  /** Saves and applies a change to how long log lines are kept. */
  changeLogRetention: (change: Request<'changeLogRetention'>) => Promise<unknown>;
  history: RequestLog;
  events: EngineEvents;
  transactions: TransactionPanel;
  applications: ApplicationStore;
  /** Saved requests, as files in a folder. */
  collections: CollectionStore;
  /** Where composed requests are sent: the service's own address. */
  frontDoor: FrontDoor;
  /** The vault's token side, for seed files. */
  tokens: TokenService<AnyUnitRunner>;
  /** The explicit reveal of a proxied request's outbound body (see revealedOutbound). */
  revealOutbound: (entry: RequestLogEntry | undefined) => string | Promise<string>;
  /** The vault, as the Tokens page reads it as an application. */
  vault: WorkbenchVault;
  /** The proxy's checks of a composed request, and expression previews. */
  checks: RequestChecks<AnyUnitRunner>;
  /** The largest request body the service takes, in bytes (`--max-body`, or Settings): read at each check. */
  bodyLimit: () => number;
  tokenSuggestions: TokenSuggestions;
  tokenIntents: { list(): Promise<SentReply<'listTokenIntents'>> };
  remoteTargets: RemoteTargets;
  /** The credentials saved requests refer to by name. */
  secrets: SecretStore;
  /** The environments beside the saved requests, and the one `${env:…}` references are read from. */
  environments: Environments;
  /** Moves the saved requests and environments to another folder (null: the default), checked and remembered. */
  changeCollectionsFolder: (folder: string | null) => Promise<unknown>;
  /** Pre-configured proxies, as /proxies manages them: the Proxies page's, and those the Composer may send through. */
  proxies: ProxySettings;
  /** The proxies folder: its files' state, and proxies exported or imported into it. */
  proxyFiles: ProxyFiles;
  /** Reactors exported or imported into the proxies folder. */
  reactorExport: ReactorExport;
  /** Client encryption keys and sessions, for Settings to show. */
  clientKeys: ClientKeyStore;
  sessions: SessionStore;
  /** Reactors, as /reactors manages them: the Reactors page's. */
  reactors: ReactorSettings;
  /** Saves and applies whether DELETE /tenants/self is allowed. */
  changeTenantDelete: (change: Request<'changeTenantDelete'>) => Promise<unknown>;
  /** The tenant, which Settings renames and sets up as its owner, and its usage report. */
  tenant: { store: TenantStore; usage: () => Promise<UsageReport> };
  /** Webhooks, as /webhooks manages them, with their deliveries and signing key. */
  webhooks: WebhookSettings;
  /** The named workbench credentials. */
  credentials: CredentialStore;
}

/**
 * The engine's side of the workbench: one method per row of the method table, each given a request its transport
 * has already validated. Electron's IPC handlers and the /_workbench/ routes both serve this one object.
 */
export function createWorkbenchModel(sources: WorkbenchSources): WorkbenchModel {
  const { applications, vault, secrets } = sources;
  const record = actionRecorder(sources.history);
  /** The collections as the page sees them: each file's plain-text credentials named, the application it names found. */
  const shown = (view: Parameters<typeof withPlainTextWarnings>[0]) => withSendAs(withPlainTextWarnings(view), applications);
  const saved = savedSecrets(secrets, sources.collections, shown);
  const feed = new LiveFeed(sources.events, sources.status, () => sources.transactions.counts(), shown);
  const environments = environmentSettings(sources.environments, secrets);
  const settings = applicationSettings(applications);
  const tenantDetail = async () => {
    const { total_tokens, token_report } = await sources.tenant.usage();
    return {
      tenant: sources.tenant.store.view(),
      usage: { total_tokens, monthly_active_tokens: token_report.monthly_active_tokens, metrics_by_type: token_report.metrics_by_type },
    };
  };
  const drafts = new CheckedDrafts(sources.bodyLimit);
  const choice = ({ id, name, type }: Application): ApplicationChoice => {
    const key = applications.keptKeyInfo(id, 'workbench');
    return { id, name, type, workbench_key: key && { id: key.id, created_at: key.created_at, key_last4: key.key_last4 } };
  };
  /** Records a key the workbench made to keep, as the change it is, once the call that made it has committed it. */
  const recordKeyMade = (cause: ChangeName | RevealName, page: PageId | undefined, purpose: KeptKeyPurpose, key: { application_id: string; key_id: string; key_last4: string }) =>
    void record(page, () => key, () => keptKeyMade(applications, cause, purpose, key));
  /** An application's workbench key, made on first use (and recorded then). */
  const workbenchKey = async (applicationId: string, cause: ChangeName | RevealName, page?: PageId) => {
    const kept = await applications.keptKey(applicationId, 'workbench');
    if (kept.made) recordKeyMade(cause, page, 'workbench', { application_id: applicationId, key_id: kept.id, key_last4: keyLast4(kept.key) });
    return kept;
  };
  const { remoteTargets } = sources;
  /**
   * A request through a pre-configured proxy with its key added as it leaves; checked as the ephemeral proxy's request
   * to the same place (the proxy's destination_url as PFX-PROXY-URL), which is where it would go.
   */
  const throughProxy = <R extends { proxy_id?: string; headers: [string, string][] }>(request: R, as: 'key' | 'destination'): R => {
    if (request.proxy_id === undefined) return request;
    const prefix = sources.status().headerPrefix;
    const added: [string, string] =
      as === 'key' ? [`${prefix}-PROXY-KEY`, sources.proxies.keyOf(request.proxy_id)] : [`${prefix}-PROXY-URL`, sources.proxies.get({ id: request.proxy_id }).destination_url];
    return { ...request, headers: [...request.headers, added] };
  };
  /** Where a composed request goes: the service's own address as an application (with its workbench key), or a remote's. */
  const targetOf = async (target: { application_id?: string; target_id?: string }): Promise<{ baseUrl: string } & ({ applicationId: string } | { applicationId: null; apiKey: string })> => {
    if (target.target_id === undefined) return { baseUrl: sources.status().url, applicationId: target.application_id! };
    return { ...(await remoteTargets.connection(target.target_id)), applicationId: null };
  };
  return recordingActions(
    {
    getStatus: () => sources.status(),
    listHistory: ({ limit, before, filter }) => sources.history.list(limit, before, filter),
    async exportHar({ ids, filter, before }) {
      const { entries, next } = ids
        ? await sources.history.pick(idsAfter(ids, before), EXPORT_PAGE_CHARACTERS)
        : await sources.history.page(HISTORY_PAGE_MAX, EXPORT_PAGE_CHARACTERS, before, filter);
      return { ...historyAsHar(entries, sources.status().url, version), next };
    },
    revealOutbound: async ({ id }) => ({ detokenized_body: await sources.revealOutbound(await sources.history.get(id)) }),
    revealAnswer({ id }) {
      const { headers, body } = sources.frontDoor.revealAnswer(id);
      return { headers, body_base64: body.toString('base64') };
    },
    async getHistoryAnswer({ id }) {
      const entry = await sources.history.get(id);
      if (!entry) throw new ApiProblem(404, 'No such request in the history');
      const text = (entry.details as ProxyDetails | undefined)?.response?.body?.text;
      if (entry.kind !== 'proxy' || text === undefined) throw new ApiProblem(409, 'History kept no answer body for this request');
      return { text };
    },
    listTransactions: (query) => sources.transactions.page(query),
    listApplications: () => applications.page(1, MAX_APPLICATIONS).items.map(choice),
    listProxyChoices: () => sources.proxies.list().map(({ id, name, destination_url }) => ({ id, name, destination_url })),
    async sendRequest(request, page) {
      const target = await targetOf(request);
      if (target.applicationId === null) return sources.frontDoor.send(request, { apiKey: target.apiKey, remoteBaseUrl: target.baseUrl, page });
      return sources.frontDoor.send(throughProxy(request, 'key'), { apiKey: (await workbenchKey(target.applicationId, 'sendRequest', page)).key, page });
    },
    cancelRequest: ({ id }) => ({ cancelled: sources.frontDoor.cancel(id) }),
    listCollections: () => saved.view(),
    saveRequest: ({ collection, name, request, overwrite, send_as }) => saved.save({ collection, name }, request, { overwrite, sendAs: send_as }),
    async moveRequest({ from, to }) {
      sources.collections.move(from, to);
      return saved.view();
    },
    async deleteRequest({ collection, name }) {
      sources.collections.delete(collection, name);
      return saved.view();
    },
    async importRequests({ text }) {
      const { url, headerPrefix } = sources.status();
      return saved.imported(await importRequests(text, { serviceUrl: url, headerPrefix }));
    },
    async importPostman({ collection, environment, replace }) {
      const { url, headerPrefix } = sources.status();
      const plan = readPostman(collection, environment, { serviceUrl: url, headerPrefix });
      const applied = await applyPostman(plan, sources.collections, sources.environments, secrets, replace);
      return { ...applied, view: await saved.view() };
    },
    listEnvironments: () => environments.view(),
    saveEnvironment: (change) => environments.save(change),
    deleteEnvironment: (request) => environments.remove(request),
    setActiveEnvironment: (request) => environments.choose(request),
    async setCollectionsFolder({ folder }) {
      await sources.changeCollectionsFolder(folder);
      return sources.settings();
    },
    listProxyFiles: () => sources.proxyFiles.view(),
    setProxiesFolder: ({ folder }) => sources.proxyFiles.changeFolder(folder),
    exportProxyToFiles: async ({ id, file, secret_keys }) => ({ ...(await sources.proxyFiles.exportProxy(id, file, secret_keys)), view: sources.proxyFiles.view() }),
    importProxyToFiles: async ({ json, file, secret_keys }) => ({ ...(await sources.proxyFiles.importProxy(json, file, secret_keys)), view: sources.proxyFiles.view() }),
    exportReactorToFiles: async ({ id, file, secret_keys }) => ({ ...(await sources.reactorExport.exportReactor(id, file, secret_keys)), view: sources.proxyFiles.view() }),
    importReactorToFiles: async ({ json, file, secret_keys }) => ({ ...(await sources.reactorExport.importReactor(json, file, secret_keys)), view: sources.proxyFiles.view() }),
    listSecrets: () => saved.list(),
    setSecret: ({ name, value }) => saved.set(name, value),
    deleteSecret: async ({ name }) => ({ deleted: await secrets.delete(name) }),
    revealSecret: ({ name }) => ({ value: secrets.reveal(name) }),
    async revokeWorkbenchKey({ application_id }) {
      const key = applications.keptKeyInfo(application_id, 'workbench');
      if (key) await applications.deleteKey(application_id, key.id, workbenchCause());
      return choice(applications.require(application_id));
    },
    checkRequest: (request) => checkWithReferences(sources.checks, throughProxy(drafts.resolve(request), 'destination'), sources.environments.variables(), secrets, sources.status().headerPrefix),
    previewExpression: (query) => sources.checks.preview(query),
    suggestTokens: ({ text, limit }) => sources.tokenSuggestions.suggest(text, limit),
    listTokenIntents: () => sources.tokenIntents.list(),
    listRemoteTargets: () => remoteTargets.list(),
    addRemoteTarget: (target) => remoteTargets.add(target),
    deleteRemoteTarget: async ({ id }) => ({ deleted: await remoteTargets.delete(id) }),
    async requestSnippet({ format, include_key, proxy_id, ...request }, page) {
      const target = await targetOf(request);
      // The key is read only to be written out when asked (an application's: the method's schema refuses a remote's);
      // otherwise the snippet reads it from the environment.
      const written = include_key && target.applicationId !== null ? await workbenchKey(target.applicationId, 'requestSnippet', page) : null;
      const key = { header: `${sources.status().headerPrefix}-API-KEY`, value: written?.key ?? null };
      // Variables as their values, a secret one as its secret's reference: the code reads secrets from its environment.
      const { path, headers, body } = resolveReferences(request, sources.environments.variables(), secrets, 'snippet');
      // Through a pre-configured proxy: its key read from the environment as the caller's is, and the proxy named.
      const through = proxy_id === undefined ? { headers } : snippetThroughProxy(sources.proxies.get({ id: proxy_id }), headers, sources.status().headerPrefix);
      try {
        const snippet = SNIPPET_WRITERS[format]({ method: request.method, url: target.baseUrl + path, body, ...through }, key);
        return { snippet, key: written && { key_id: written.id, key_last4: keyLast4(written.key) } };
      } catch (error) {
        if (error instanceof SnippetError) throw new ApiProblem(422, error.message);
        throw error;
      }
    },
    searchTokens: (request) => searchTokens(vault, request),
    getToken: (request) => tokenDetail(vault, request),
    readTokenAs: (request) => readTokenAs(vault, request),
    revealToken: (request) => revealToken(vault, request),
    writeToken: async (request, page) =>
      writeToken(sources.frontDoor, { apiKey: (await workbenchKey(request.application_id, 'writeToken', page)).key, page }, sources.status().headerPrefix, request),
    listProxies: () => sources.proxies.list(),
    getProxy: (request) => sources.proxies.get(request),
    createProxy: (request) => sources.proxies.create(request),
    updateProxy: (request) => sources.proxies.update(request),
    deleteProxy: (request) => sources.proxies.remove(request),
    async tryProxy({ request_id, id, application_id, headers, path, ...wire }, page) {
      const keyHeader = `${sources.status().headerPrefix}-PROXY-KEY`;
      // The proxy's key goes in as the request leaves, in place of any the sample names: the page never holds it.
      const sent = [...headers.filter(([name]) => name.toLowerCase() !== keyHeader.toLowerCase()), [keyHeader, sources.proxies.keyOf(id)] as [string, string]];
      const composed = { id: request_id, application_id, path: `/proxy${path}`, headers: sent, ...wire };
      return sources.frontDoor.send(composed, { apiKey: (await workbenchKey(application_id, 'tryProxy', page)).key, page });
    },
    listReactors: () => sources.reactors.list(),
    createReactor: (request) => sources.reactors.create(request),
    updateReactor: (request) => sources.reactors.update(request),
    deleteReactor: (request) => sources.reactors.remove(request),
    async tryReactor({ request_id, id, application_id, args, async }, page) {
      // The args as the user wrote them, expressions and all: the route detokenizes them as it does any client's.
      const composed = { id: request_id, application_id, ...reactRequest(id, args, async) };
      return sources.frontDoor.send(composed, { apiKey: (await workbenchKey(application_id, 'tryReactor', page)).key, page });
    },
    async tryReactorResult({ request_id, id, application_id, result_id, trace_id }, page) {
      const path = `/reactors/${encodeURIComponent(id)}/results/${encodeURIComponent(result_id)}`;
      const composed = { id: request_id, application_id, method: 'GET' as const, path, headers: [], body: null };
      const exchange = await sources.frontDoor.send(composed, { apiKey: (await workbenchKey(application_id, 'tryReactorResult', page)).key, page });
      const pending = isPendingResult(exchange);
      return { pending, exchange, reacted: pending ? null : await recordedEntry(sources.history, sources.events, trace_id) };
    },
    listWebhooks: () => sources.webhooks.list(),
    createWebhook: (request) => sources.webhooks.create(request),
    updateWebhook: (request) => sources.webhooks.update(request),
    deleteWebhook: (request) => sources.webhooks.remove(request),
    listWebhookDeliveries: (request) => sources.webhooks.deliveries(request),
    redeliverWebhook: (request) => sources.webhooks.redeliver(request),
    sendWebhookTest: (request) => sources.webhooks.sendTest(request),
    webhookSigningKey: () => sources.webhooks.signingKey(),
    async changeLogRetention(change) {
      await sources.changeLogRetention(change);
      return sources.settings();
    },
    listApplicationDetails: () => settings.list(),
    listPermissions: () => settings.permissions(),
    listClientKeys: () => sources.clientKeys.details(),
    listSessions: async () =>
      (await sources.sessions.list()).map(({ permissions, rules, ...session }) => ({
        ...session,
        application_name: applications.get(session.application_id)?.name ?? 'deleted since',
        authorized: permissions !== null,
        permissions: permissions ?? [],
        rules: rules ?? [],
      })),
    createApplication: (request) => settings.create(request),
    updateApplication: (request) => settings.update(request),
    deleteApplication: (request) => settings.remove(request),
    createApplicationKey: (request) => settings.createKey(request),
    revokeApplicationKey: (request) => settings.revokeKey(request),
    async exportSeed({ include_tokens }, page) {
      const { seed, keys } = await exportSeed(applications, sources.tokens, include_tokens);
      for (const { made, ...key } of keys) if (made) recordKeyMade('exportSeed', page, 'export', key);
      return { seed: { ...seed }, applications: seed.applications.length, tokens: seed.tokens?.length ?? 0, keys };
    },
    async importSeed({ seed, apply }) {
      const plan = await planSeedBetweenRequests(parseWith(seedFile, seed, 'seed'), applications, sources.tokens);
      return apply ? plan.apply() : plan.report;
    },
    wipeVault: () => sources.wipe(),
    takeWelcome: () => sources.welcome.take(),
    getSettings: () => sources.settings(),
    async changeLimits(change) {
      await sources.changeLimits(change);
      return sources.settings();
    },
    async changeRetention(change) {
      await sources.changeRetention(change);
      return sources.settings();
    },
    async changeHistoryAnswers(change) {
      await sources.changeHistoryAnswers(change);
      return sources.settings();
    },
    async changeTokenIntentTtl(change) {
      await sources.changeTokenIntentTtl(change);
      return sources.settings();
    },
    getTenant: () => tenantDetail(),
    async updateTenant(change) {
      await sources.tenant.store.update(change, { actor: sources.tenant.store.owner, traceId: null });
      return tenantDetail();
    },
    async changeTenantDelete(change) {
      await sources.changeTenantDelete(change);
      return sources.settings();
    },
    clearHistory: async () => ({ cleared: await sources.history.clear() }),
    // Settings acts for the workbench's user, with POST /keys' checks and no management key; the key's maker is null.
    async createClientKey(request) {
      const { expires_at } = parseWith(createKeyRequest, request);
      const { key_id, public_key_pem } = await sources.clientKeys.create(expires_at, null);
      return { key: (await sources.clientKeys.details()).find((key) => key.key_id === key_id)!, public_key_pem };
    },
    async deleteClientKey({ key_id }) {
      await sources.clientKeys.delete(key_id);
      return { deleted: true };
    },
    getIdentity: () => ({ person: actingPerson() ?? null }),
    listCredentials: () => sources.credentials.list(),
    createCredential: ({ name }) => sources.credentials.create(name),
    async revokeCredential({ name }) {
      if (!(await sources.credentials.revoke(name))) throw new ApiProblem(404, `No workbench credential is named “${name}”`);
      return { revoked: true };
    },
    async revokeSession({ id }) {
      await sources.sessions.revoke(id);
      return { revoked: true };
    },
    live(listener) {
      listener({ type: 'connected', status: sources.status() });
      return feed.subscribe(listener);
    },
    },
    record,
    { applications, remoteTargets, history: sources.history, secrets, proxies: sources.proxies, sessions: sources.sessions, reactors: sources.reactors, webhooks: sources.webhooks },
  );
}

const callPage = z.enum(PAGE_IDS).optional();

/**
 * Answers one call of the method table: its request validated against the table's row and the page it names against
 * the workbench's pages (a 400 naming each field), then the model's method.
 */
export async function callMethod(model: WorkbenchModel, name: CallName, request: unknown, page?: unknown): Promise<unknown> {
  const method = model[name] as (request: unknown, page?: PageId) => unknown;
  const onPage = parseWith(callPage, page, 'page');
  return method(parseWith(WORKBENCH_METHODS[name].request, request), onPage);
}

/** A failed call as both transports carry it: the engine's own problems as they are, anything else as a 500 saying what broke. */
export function problemOf(error: unknown): Problem {
  if (error instanceof ApiProblem) return error.toBody();
  return new ApiProblem(500, `The workbench call failed: ${(error as Error)?.message ?? String(error)}`).toBody();
}
