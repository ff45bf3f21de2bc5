import { isDeepStrictEqual } from 'node:util';
import type { ProxyDetails } from '../../../shared/workbench/history-contract';
import {
  METHOD_NAMES,
  WORKBENCH_METHODS,
  type CallName,
  type ChangeName,
  type Request,
  type RevealName,
  type SentReply,
  type WorkbenchModel,
} from '../../../shared/workbench/methods';
import type { PageId } from '../../../shared/workbench/pages';
import type { MovedAside } from '../../../shared/workbench/secret-contract';
import type { RevealRecord } from '../../../shared/workbench/token-contract';
import { keyName, lastFour } from '../../../shared/workbench/key-name';
import { type Application, keyLast4, type ApplicationStore, type KeptKeyPurpose } from '../access/application-store';
import type { CallKeyUser, MadeRuntimeKey, RuntimeKeyUser } from '../access/runtime-keys';
import type { SessionStore } from '../access/session-store';
import type { RequestLog } from '../history/request-log';
import type { SecretStore } from '../secrets/secret-store';
import type { ProxySettings } from './proxy-settings';
import type { ReactorSettings } from './reactor-settings';
import type { WebhookSettings } from './webhook-settings';
import type { RemoteTargets } from './remote-targets';
import type { ActionRecord, RecordAction } from './workbench-actions';

/** What a record reads of the engine before its call runs: names the call itself may remove, a proxied request's tokens. */
export interface RecordFacts {
  applications: ApplicationStore;
  remoteTargets: RemoteTargets;
  history: RequestLog;
  secrets: SecretStore;
  proxies: ProxySettings;
  sessions: SessionStore;
  reactors: ReactorSettings;
  webhooks: WebhookSettings;
}

type Outcome<N extends CallName> = Awaited<SentReply<N>> | undefined;

/** How one change reads in history: its verb, its path and a sentence, given the reply (undefined when it failed). */
interface ChangePlan<N extends CallName> {
  method: string;
  path: (reply: Outcome<N>) => string;
  /** null: the reply shows it changed nothing after all (an import that moved no credential), so nothing is recorded. */
  summary: (reply: Outcome<N>) => string | null;
}

/** How one reveal reads in history: where, and what it revealed, given the reply (undefined when it failed). */
interface RevealPlan<N extends CallName> {
  path: (reply: Outcome<N>) => string;
  /** null: it revealed nothing after all (a welcome already taken), so nothing is recorded. */
  reveal: (reply: Outcome<N>) => RevealRecord | null;
  /** The application whose access rules or key the reveal went through. */
  application_id?: string | null;
  transaction_id?: string | null;
}

/**
 * The call's history entry is the request it sends through the service's front door, which history records as any
 * client's, with the page it was sent from (a cancelled request's entry says it was cancelled).
 */
export const SENT_AS_REQUEST = Symbol('recorded as the request it sends');

/** null: this request changes or reveals nothing (a seed's dry run, a snippet without the key): nothing to record. */
type Describe<N extends CallName, Plan> = (request: Request<N>, facts: RecordFacts) => Plan | null | Promise<Plan | null>;

/**
 * The history record of every call that changes or reveals, one per such row of the method table: the type asks for
 * each, and recordingActions refuses to start without one, so a row cannot skip the audit trail.
 */
export type WorkbenchRecords = { [N in ChangeName]: Describe<N, ChangePlan<N> | typeof SENT_AS_REQUEST> | typeof SENT_AS_REQUEST } & {
  [N in RevealName]: Describe<N, RevealPlan<N>>;
};

const quoted = (name: string) => `“${name}”`;
const counted = (n: number, noun: string, nouns = `${noun}s`) => `${n} ${n === 1 ? noun : nouns}`;
const applicationNamed = (applications: ApplicationStore, id: string) => {
  const application = applications.get(id);
  return application ? `application ${quoted(application.name)}` : `application ${id}`;
};
const nameOf = (facts: RecordFacts, id: string) => applicationNamed(facts.applications, id);
/** An application's id for an entry's application_id: only one that exists, so History's filter finds real ones. */
const knownApplication = (facts: RecordFacts, id: string) => (facts.applications.get(id) ? id : null);
/** A settings change as `name 200, other default`: the values the user set, null meaning back to the default. */
const settingsChange = (change: Record<string, unknown>) =>
  Object.entries(change)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key} ${value === null ? 'default' : JSON.stringify(value)}`)
    .join(', ') || 'nothing';
// As named, like every path of these entries: a name the collection refuses (a lone surrogate) still reads.
const savedPath = (place: { collection: string; name: string }) => `/collections/${place.collection}/${place.name}`;
const savedName = (place: { collection: string; name: string }) => `${quoted(place.name)} of collection ${quoted(place.collection)}`;

const secretNames = (moved: readonly MovedAside[]) => [...new Set(moved.map(({ secret }) => secret))].join(', ');
/** What a save moved into Secrets, as the end of its sentence. */
const movedInto = (moved: readonly MovedAside[]) => (moved.length === 0 ? '' : `; moved ${counted(moved.length, 'credential')} into Secrets: ${secretNames(moved)}`);

/** What an export or import into the proxies folder wrote: its reply. */
type FilesWritten = Outcome<'exportProxyToFiles'>;
const collection = { proxy: 'proxies', reactor: 'reactors' } as const;
const movedFrom = (reply: NonNullable<FilesWritten>) => movedInto(reply.moved.map(({ key, secret }) => ({ header: key, secret })));

const exportedToFiles = (noun: 'proxy' | 'reactor', id: string): ChangePlan<'exportProxyToFiles'> => ({
  method: 'EXPORT',
  path: () => `/${collection[noun]}/${id}`,
  summary: (reply) => (reply ? `Exported ${noun} ${id} to ${reply.files.join(', ')}${movedFrom(reply)}` : `Could not export ${noun} ${id} to the proxies folder`),
});

/** `identity`: what an import keeps when it is free here (a proxy's id and key, a reactor's id). */
const importedToFiles = (noun: 'proxy' | 'reactor', identity: string): ChangePlan<'importProxyToFiles'> => ({
  method: 'IMPORT',
  path: () => `/${collection[noun]}`,
  summary: (reply) =>
    reply ? `Imported ${noun} ${reply.id} to ${reply.files.join(', ')}${reply.kept_identity ? ` with its ${identity}` : ` with a new ${identity}`}${movedFrom(reply)}` : `Could not import the ${noun} to the proxies folder`,
});

/** Keys by their last four in a sentence: the first few, then how many more. */
const KEYS_NAMED = 8;
const endings = (keys: { key_last4: string }[]) =>
  keys.length === 0
    ? 'no key'
    : `${keys
        .slice(0, KEYS_NAMED)
        .map((key) => lastFour(key.key_last4))
        .join(', ')}${keys.length > KEYS_NAMED ? ` and ${keys.length - KEYS_NAMED} more` : ''}`;
/** A seed export's record lists the tokens it revealed by id up to this many; beyond, it counts them. */
export const SEED_TOKEN_IDS_LISTED = 20;

const KEPT_KEY_WORDS: Record<KeptKeyPurpose, string> = { workbench: "the workbench's key", export: 'the export key', runtime: 'the runtime key' };

/**
 * The entry for a key Tokenbench made to keep (the workbench's own when it first acts as an application, the export
 * key when a seed file is first exported, the runtime key when code first needs one): a change, by the key's id and
 * last four, caused by `action` (a method of the table, or `invokeProxy`), `why` ending its sentence.
 */
export function keptKeyMade(
  applications: ApplicationStore,
  action: CallName | 'invokeProxy',
  purpose: KeptKeyPurpose,
  key: { application_id: string; key_id: string; key_last4: string },
  why = '',
): ActionRecord {
  return {
    method: 'CREATE',
    path: `/applications/${key.application_id}/keys/${key.key_id}`,
    details: { change: { action, summary: `Made ${KEPT_KEY_WORDS[purpose]} ${lastFour(key.key_last4)} of ${applicationNamed(applications, key.application_id)}${why}` } },
  };
}

/** What the workbench did with a remote target: its status, or why there was none. */
const outcomeWords = ({ outcome }: Awaited<SentReply<'sendRequest'>>) =>
  outcome.kind === 'response' ? `answered ${outcome.status}` : outcome.kind === 'cancelled' ? 'cancelled' : `not reached (${outcome.code ?? outcome.detail})`;

/**
 * The reveal of what a proxied request in the history sent, or got back: by its entry's id and the tokens its body
 * used, as the application it was sent as (whose token:use rules detokenize an outbound body again).
 */
async function proxiedReveal(id: string, facts: RecordFacts, target: 'outbound' | 'answer', what: string): Promise<RevealPlan<'revealOutbound' | 'revealAnswer'>> {
  const entry = await facts.history.get(id);
  const tokenIds = [...((entry?.details as ProxyDetails | undefined)?.expressions?.token_ids ?? [])];
  const tokens = tokenIds.length > 0 ? ` (tokens ${tokenIds.join(', ')})` : '';
  return {
    application_id: entry?.application_id ?? null,
    path: () => entry?.path ?? `/history/${id}`,
    reveal: (reply) => ({ target, entry_id: id, token_ids: tokenIds, summary: `${reply ? 'Revealed' : 'Could not reveal'} ${what}${tokens}` }),
  };
}

/**
 * The records of a named resource's create, update and delete (a proxy, a reactor): by name, and for a rename the name
 * it had, read before the call changes it.
 */
function namedResourceRecords<T extends 'proxy' | 'reactor' | 'webhook', U extends 'Proxy' | 'Reactor' | 'Webhook'>(noun: T, title: U, nameIn: (facts: RecordFacts, id: string) => string | undefined) {
  const path = `/${noun === 'proxy' ? 'proxies' : `${noun}s`}`;
  const create: Describe<`create${U}`, ChangePlan<`create${U}`>> = ({ name }) => ({
    method: 'CREATE',
    path: (reply) => (reply ? `${path}/${reply.id}` : path),
    summary: (reply) => (reply ? `Created ${noun} ${quoted(reply.name)}` : `Could not create ${noun} ${quoted(name)}`),
  });
  const update: Describe<`update${U}`, ChangePlan<`update${U}`>> = ({ id, name }, facts) => {
    const before = nameIn(facts, id);
    return {
      method: 'UPDATE',
      path: () => `${path}/${id}`,
      summary: (reply) =>
        reply ? `Changed ${noun} ${quoted(reply.name)}${before !== undefined && before !== reply.name ? ` (was ${quoted(before)})` : ''}` : `Could not change ${noun} ${quoted(before ?? name)}`,
    };
  };
  const remove: Describe<`delete${U}`, ChangePlan<`delete${U}`>> = ({ id }, facts) => {
    const name = nameIn(facts, id);
    const what = name === undefined ? `${noun} ${id}` : `${noun} ${quoted(name)}`;
    return { method: 'DELETE', path: () => `${path}/${id}`, summary: (reply) => (reply ? `Deleted ${what}` : `Could not delete ${what}`) };
  };
  return { [`create${title}`]: create, [`update${title}`]: update, [`delete${title}`]: remove } as { [K in `create${U}`]: typeof create } & { [K in `update${U}`]: typeof update } & { [K in `delete${U}`]: typeof remove };
}

/**
 * Every workbench call that changes or reveals, and how its history entry reads. Keys are never written: a key is
 * named by its id and last four characters; a token by its id; its data never.
 */
export const WORKBENCH_RECORDS: WorkbenchRecords = {
  // ---- Changes -----------------------------------------------------------------------------------------------------
  // A remote target's history is its own, so this engine records what the workbench sent there, in a sentence.
  sendRequest: async ({ target_id, method, path }, facts) => {
    if (target_id === undefined) return SENT_AS_REQUEST;
    const target = (await facts.remoteTargets.list()).find((candidate) => candidate.id === target_id);
    const what = target ? `remote target ${quoted(target.name)}` : `remote target ${target_id}`;
    return {
      method: 'SEND',
      path: () => `/remote-targets/${target_id}`,
      summary: (reply) => (reply ? `Sent ${method} ${path} to ${what}: ${outcomeWords(reply)}` : `Could not send ${method} ${path} to ${what}`),
    };
  },
  cancelRequest: SENT_AS_REQUEST,
  writeToken: SENT_AS_REQUEST,
  createApplication: (request) => ({
    method: 'CREATE',
    path: (reply) => (reply ? `/applications/${reply.id}` : '/applications'),
    summary: (reply) =>
      reply ? `Created application ${quoted(reply.name)} (${reply.type})` : `Could not create application ${quoted(request.name)}`,
  }),
  updateApplication: (request, facts) => {
    const before = facts.applications.get(request.id);
    const changed = before
      ? [
          before.name !== request.name && `name (was ${quoted(before.name)})`,
          !isDeepStrictEqual(before.permissions, request.permissions) && 'permissions',
          !isDeepStrictEqual(before.rules, request.rules) && 'access rules',
        ].filter((part) => part !== false)
      : [];
    return {
      method: 'UPDATE',
      path: () => `/applications/${request.id}`,
      summary: (reply) =>
        !reply
          ? `Could not change ${nameOf(facts, request.id)}`
          : `${changed.length > 0 ? 'Changed' : 'Saved unchanged'} application ${quoted(reply.name)}${changed.length > 0 ? `: ${changed.join(', ')}` : ''}`,
    };
  },
  deleteApplication: ({ application_id }, facts) => {
    const what = nameOf(facts, application_id);
    return { method: 'DELETE', path: () => `/applications/${application_id}`, summary: (reply) => (reply ? `Deleted ${what}` : `Could not delete ${what}`) };
  },
  createApplicationKey: ({ application_id }, facts) => {
    const what = nameOf(facts, application_id);
    return {
      method: 'CREATE',
      path: (reply) => `/applications/${application_id}/keys${reply ? `/${reply.key.id}` : ''}`,
      summary: (reply) => (reply ? `Created key ${lastFour(keyLast4(reply.key.key))} for ${what}` : `Could not create a key for ${what}`),
    };
  },
  revokeApplicationKey: ({ application_id, key_id }, facts) => {
    const what = nameOf(facts, application_id);
    // Read before the key goes: afterwards nothing tells its last four or what it was kept for.
    const key = knownApplication(facts, application_id) && facts.applications.keyFacts(application_id).get(key_id);
    const named = key ? `${key.kept ? KEPT_KEY_WORDS[key.kept] : 'key'} ${keyName({ id: key_id, ...key })}` : `key ${key_id}`;
    return {
      method: 'DELETE',
      path: () => `/applications/${application_id}/keys/${key_id}`,
      summary: (reply) => (reply ? `Revoked ${named} of ${what}` : `Could not revoke ${named} of ${what}`),
    };
  },
  revokeWorkbenchKey: ({ application_id }, facts) => {
    const key = facts.applications.keptKeyInfo(application_id, 'workbench');
    if (!key) return null;
    const what = nameOf(facts, application_id);
    const named = `${KEPT_KEY_WORDS.workbench} ${keyName(key)}`;
    return {
      method: 'DELETE',
      path: () => `/applications/${application_id}/keys/${key.id}`,
      summary: (reply) => (reply ? `Revoked ${named} of ${what}` : `Could not revoke ${named} of ${what}`),
    };
  },
  importSeed: ({ apply }) =>
    apply
      ? {
          method: 'IMPORT',
          path: () => '/seed',
          summary: (reply) =>
            reply
              ? `Imported a seed file: ${reply.created.length} created, ${reply.unchanged.length} unchanged, ${reply.conflicts.length} in conflict`
              : 'Could not import a seed file: nothing was changed',
        }
      : null,
  wipeVault: () => ({
    method: 'WIPE',
    path: () => '/vault',
    summary: (reply) =>
      reply
        ? `Wiped the vault: ${counted(reply.tokens, 'token')}, ${counted(reply.transactions, 'transaction')} and ${counted(reply.applications, 'application')} removed`
        : 'Could not wipe the vault',
  }),
  changeLimits: (request) => ({
    method: 'UPDATE',
    path: () => '/settings/limits',
    summary: (reply) => `${reply ? 'Changed' : 'Could not change'} the proxy's limits: ${settingsChange(request)}`,
  }),
  changeRetention: (request) => ({
    method: 'UPDATE',
    path: () => '/settings/retention',
    summary: (reply) => `${reply ? 'Changed' : 'Could not change'} how much history is kept: ${settingsChange(request)}`,
  }),
  changeHistoryAnswers: (request) => ({
    method: 'UPDATE',
    path: () => '/settings/history-answers',
    summary: (reply) => `${reply ? 'Changed' : 'Could not change'} whether history keeps the destinations' answers: ${settingsChange(request)}`,
  }),
  changeTokenIntentTtl: (request) => ({
    method: 'UPDATE',
    path: () => '/settings/token-intents',
    summary: (reply) => `${reply ? 'Changed' : 'Could not change'} how long new token intents live: ${settingsChange(request)}`,
  }),
  updateTenant: (request) => ({
    method: 'UPDATE',
    path: () => '/tenants/self',
    summary: (reply) => `${reply ? 'Changed' : 'Could not change'} the tenant: name ${quoted(request.name)}, ${settingsChange(request.settings)}`,
  }),
  changeTenantDelete: (request) => ({
    method: 'UPDATE',
    path: () => '/settings/tenant-delete',
    summary: (reply) => `${reply ? 'Changed' : 'Could not change'} whether DELETE /tenants/self is allowed: ${settingsChange(request)}`,
  }),
  clearHistory: () => ({
    method: 'CLEAR',
    path: () => '/history',
    summary: (reply) => (reply ? `Cleared the history: ${counted(reply.cleared, 'entry', 'entries')}` : 'Could not clear the history'),
  }),
  // The base URL only once the engine has accepted it: a refused one may hold credentials.
  addRemoteTarget: ({ name }) => ({
    method: 'CREATE',
    path: (reply) => (reply ? `/remote-targets/${reply.id}` : '/remote-targets'),
    summary: (reply) => (reply ? `Added remote target ${quoted(reply.name)} at ${reply.base_url}` : `Could not add remote target ${quoted(name)}`),
  }),
  deleteRemoteTarget: async ({ id }, facts) => {
    const target = (await facts.remoteTargets.list()).find((candidate) => candidate.id === id);
    const what = target ? `remote target ${quoted(target.name)}` : `remote target ${id}`;
    return {
      method: 'DELETE',
      path: () => `/remote-targets/${id}`,
      summary: (reply) => (!reply ? `Could not delete ${what}` : reply.deleted ? `Deleted ${what}` : `Found no ${what} to delete`),
    };
  },
  // Its credentials move into Secrets with it, or neither happens: the entry names them.
  saveRequest: ({ collection, name, overwrite }) => ({
    method: 'SAVE',
    path: () => savedPath({ collection, name }),
    summary: (reply) =>
      `${reply ? 'Saved' : 'Could not save'} request ${savedName({ collection, name })}${overwrite ? ', over the one of that name' : ''}${reply ? movedInto(reply.moved_aside) : ''}`,
  }),
  moveRequest: ({ from, to }) => ({
    method: 'MOVE',
    path: (reply) => savedPath(reply ? to : from),
    summary: (reply) => `${reply ? 'Moved' : 'Could not move'} saved request ${savedName(from)} to ${savedName(to)}`,
  }),
  // Reading a paste changes nothing but the credentials it moves into Secrets, in one transaction.
  importRequests: () => ({
    method: 'CREATE',
    path: () => '/secrets',
    summary: (reply) => {
      const moved = reply?.requests.flatMap((imported) => imported.moved_aside) ?? [];
      return moved.length === 0 ? null : `Moved ${counted(moved.length, 'credential')} of imported requests into Secrets: ${secretNames(moved)}`;
    },
  }),
  // By name: a secret's value is never written, not even when setting it fails.
  setSecret: ({ name }, facts) => {
    const replacing = facts.secrets.has(name);
    return {
      method: replacing ? 'UPDATE' : 'CREATE',
      path: () => `/secrets/${name}`,
      summary: (reply) => `${reply ? (replacing ? 'Replaced' : 'Set') : 'Could not set'} secret ${quoted(name)}`,
    };
  },
  deleteSecret: ({ name }) => ({
    method: 'DELETE',
    path: () => `/secrets/${name}`,
    summary: (reply) => (!reply ? `Could not delete secret ${quoted(name)}` : reply.deleted ? `Deleted secret ${quoted(name)}` : `Found no secret ${quoted(name)} to delete`),
  }),
  deleteRequest: (place) => ({
    method: 'DELETE',
    path: () => savedPath(place),
    summary: (reply) => `${reply ? 'Deleted' : 'Could not delete'} saved request ${savedName(place)}`,
  }),

  // The environment's variables by name; a secret one's value is never written, only the secret that keeps it.
  saveEnvironment: ({ name, from, variables }) => {
    const renaming = from !== undefined && from !== name;
    const creating = from === undefined;
    return {
      method: creating ? 'CREATE' : 'UPDATE',
      path: () => `/environments/${name}`,
      summary: (reply) => {
        if (!reply) return `Could not save environment ${quoted(name)}`;
        const kept = reply.environments.find((environment) => environment.name === name)?.variables ?? [];
        const secret = kept.flatMap((variable) => (variable.secret === null ? [] : [variable.secret]));
        const what = `${counted(variables.length, 'variable')}${secret.length > 0 ? `, ${secret.length} kept in Secrets (${secret.join(', ')})` : ''}`;
        const done = creating ? `Created environment ${quoted(name)}` : renaming ? `Renamed environment ${quoted(from)} to ${quoted(name)}` : `Saved environment ${quoted(name)}`;
        return `${done}: ${what}`;
      },
    };
  },
  deleteEnvironment: ({ name }) => ({
    method: 'DELETE',
    path: () => `/environments/${name}`,
    summary: (reply) => (reply ? `Deleted environment ${quoted(name)}` : `Could not delete environment ${quoted(name)}`),
  }),
  setActiveEnvironment: ({ name }) => ({
    method: 'UPDATE',
    path: () => '/environments/active',
    summary: (reply) => `${reply ? 'Chose' : 'Could not choose'} ${name === null ? 'no environment' : `environment ${quoted(name)}`} for the requests sent from the workbench`,
  }),
  setCollectionsFolder: ({ folder }) => ({
    method: 'UPDATE',
    path: () => '/settings/collections-folder',
    summary: (reply) =>
      reply ? `Keeps saved requests and environments in ${reply.collections.folder}${folder === null ? ' (the default)' : ''}` : `Could not keep saved requests in ${folder ?? 'the default folder'}`,
  }),
  setProxiesFolder: ({ folder }) => ({
    method: 'UPDATE',
    path: () => '/settings/proxies-folder',
    summary: (reply) => (reply ? (reply.folder === null ? 'Loads no proxies from a folder' : `Loads proxies from ${reply.folder}`) : `Could not load proxies from ${folder ?? 'no folder'}`),
  }),
  // By the id and the files written; configuration values moved into Secrets by the secrets' names, never a value.
  exportProxyToFiles: ({ id }) => exportedToFiles('proxy', id),
  importProxyToFiles: () => importedToFiles('proxy', 'id and key'),
  exportReactorToFiles: ({ id }) => exportedToFiles('reactor', id),
  importReactorToFiles: () => importedToFiles('reactor', 'id'),
  // By name and count; credentials and secret values moved into Secrets by the secrets' names.
  importPostman: () => ({
    method: 'IMPORT',
    path: () => '/collections',
    summary: (reply) => {
      if (!reply) return 'Could not import from Postman: nothing was imported';
      const requests = reply.collections.reduce((sum, collection) => sum + collection.requests.length, 0);
      const parts = [
        `${counted(requests, 'request')} in ${counted(reply.collections.length, 'collection')}`,
        reply.environment && `environment ${quoted(reply.environment.name)} (${counted(reply.environment.variables, 'variable')})`,
        reply.moved_aside.length > 0 && `${counted(reply.moved_aside.length, 'credential')} moved into Secrets (${secretNames(reply.moved_aside)})`,
        reply.environment && reply.environment.secrets.length > 0 && `secret values kept in Secrets (${reply.environment.secrets.join(', ')})`,
        reply.not_carried.length > 0 && `${counted(reply.not_carried.length, 'thing')} not carried over`,
      ].filter(Boolean);
      return `Imported from Postman: ${parts.join(', ')}`;
    },
  }),

  ...namedResourceRecords('proxy', 'Proxy', (facts, id) => facts.proxies.nameOf(id)),
  // The request itself is the entry, as the proxy records it: with its pipeline trace, and the page it was sent from.
  tryProxy: SENT_AS_REQUEST,
  // By id: a key's halves are never written.
  createClientKey: () => ({
    method: 'CREATE',
    path: (reply) => (reply ? `/keys/${reply.key.key_id}` : '/keys'),
    summary: (reply) => (reply ? `Created client encryption key ${reply.key.key_id}, expiring ${reply.key.expires_at}` : 'Could not create a client encryption key'),
  }),
  deleteClientKey: ({ key_id }) => ({
    method: 'DELETE',
    path: () => `/keys/${key_id}`,
    summary: (reply) => `${reply ? 'Deleted' : 'Could not delete'} client encryption key ${key_id}`,
  }),
  createCredential: ({ name }) => ({
    method: 'CREATE',
    path: (reply) => `/workbench-credentials${reply ? `/${reply.credential.id}` : ''}`,
    summary: (reply) => `${reply ? 'Created' : 'Could not create'} workbench credential ${quoted(name)}`,
  }),
  revokeCredential: ({ name }) => ({
    method: 'DELETE',
    path: () => '/workbench-credentials',
    summary: (reply) => `${reply ? 'Revoked' : 'Could not revoke'} workbench credential ${quoted(name)}; its sessions end at once`,
  }),
  // By id and the public application it belonged to, read before it goes.
  revokeSession: ({ id }, facts) => {
    const applicationId = facts.sessions.applicationOf(id);
    const of = applicationId ? ` of ${nameOf(facts, applicationId)}` : '';
    return {
      method: 'DELETE',
      path: () => `/sessions/${id}`,
      summary: (reply) => `${reply ? 'Revoked' : 'Could not revoke'} session ${id}${of}`,
    };
  },

  ...namedResourceRecords('reactor', 'Reactor', (facts, id) => facts.reactors.nameOf(id)),
  // The react itself is the entry, as the route records it: with its trace, and the page it was sent from.
  tryReactor: SENT_AS_REQUEST,
  tryReactorResult: SENT_AS_REQUEST,

  ...namedResourceRecords('webhook', 'Webhook', (facts, id) => facts.webhooks.nameOf(id)),
  // By the event's type and id and the webhook's name: the body is in the delivery's own record.
  redeliverWebhook: async ({ delivery_id }, facts) => {
    const delivery = await facts.webhooks.deliveryOf(delivery_id);
    const to = delivery ? ` to webhook ${quoted(facts.webhooks.nameOf(delivery.webhook_id) ?? delivery.webhook_id)}` : '';
    return {
      method: 'SEND',
      path: () => (delivery ? `/webhooks/${delivery.webhook_id}` : '/webhooks'),
      summary: (reply) => (reply ? `Queued ${reply.event_type} event ${reply.event_id} again${to}` : `Could not deliver ${delivery_id} again${to}`),
    };
  },
  sendWebhookTest: ({ id }, facts) => {
    const name = facts.webhooks.nameOf(id);
    const what = name === undefined ? `webhook ${id}` : `webhook ${quoted(name)}`;
    return { method: 'SEND', path: () => `/webhooks/${id}`, summary: (reply) => (reply ? `Queued a test event ${reply.event_id} to ${what}` : `Could not send a test event to ${what}`) };
  },
  changeLogRetention: (request) => ({
    method: 'UPDATE',
    path: () => '/settings/logs',
    summary: (reply) => `${reply ? 'Changed' : 'Could not change'} how long log lines are kept: ${settingsChange(request)}`,
  }),

  // ---- Reveals -----------------------------------------------------------------------------------------------------
  revealToken: ({ application_id, token_id, transaction_id }, facts) => {
    const as = nameOf(facts, application_id);
    return {
      application_id: knownApplication(facts, application_id),
      transaction_id: transaction_id ?? null,
      path: () => `/tokens/${token_id}`,
      reveal: (reply) => ({
        target: 'token',
        token_id,
        application_id,
        summary: `${reply ? 'Revealed' : 'Could not reveal'} the data of token ${token_id} as ${as}`,
      }),
    };
  },
  revealOutbound: ({ id }, facts) => proxiedReveal(id, facts, 'outbound', `the body request ${id} sent to its destination`),
  revealAnswer: ({ id }, facts) => proxiedReveal(id, facts, 'answer', `the values in the answer to request ${id}`),
  revealSecret: ({ name }) => ({
    path: () => `/secrets/${name}`,
    reveal: (reply) => ({ target: 'secret', name, summary: `${reply ? 'Revealed' : 'Could not reveal'} the value of secret ${quoted(name)}` }),
  }),
  // Only an application's workbench key is ever written in: a remote target's is refused at the method's boundary.
  requestSnippet: ({ include_key, application_id }, facts) => {
    if (!include_key || application_id === undefined) return null;
    const whose = nameOf(facts, application_id);
    return {
      application_id: knownApplication(facts, application_id),
      path: (reply) => `/applications/${application_id}/keys${reply?.key ? `/${reply.key.key_id}` : ''}`,
      reveal: (reply) => {
        const key = reply?.key;
        return key
          ? { target: 'keys', keys: [{ application_id, ...key }], summary: `Wrote the workbench's key ${lastFour(key.key_last4)} of ${whose} into a snippet` }
          : { target: 'keys', keys: [], summary: `Could not write the workbench's key of ${whose} into a snippet` };
      },
    };
  },
  exportSeed: ({ include_tokens }) => ({
    path: () => '/seed',
    reveal: (reply) => {
      if (!reply) {
        return { target: 'seed', keys: [], token_count: 0, token_ids: [], summary: `Could not export a seed file${include_tokens ? ' with token data' : ''}` };
      }
      const keys = reply.keys.map(({ application_id, key_id, key_last4 }) => ({ application_id, key_id, key_last4 }));
      const tokenIds = ((reply.seed.tokens as { id: string }[] | undefined) ?? []).map((token) => token.id);
      const tokens = include_tokens ? `, and the data of ${counted(reply.tokens, 'token')}` : ', no token data';
      return {
        target: 'seed',
        keys,
        token_count: reply.tokens,
        token_ids: tokenIds.length <= SEED_TOKEN_IDS_LISTED ? tokenIds : null,
        summary: `Exported a seed file: ${counted(reply.applications, 'application')} with their export keys (${endings(keys)})${tokens}`,
      };
    },
  }),
  takeWelcome: (_request, facts) => ({
    path: () => '/applications',
    reveal: (reply) => {
      if (!reply?.keys) return null;
      const shown = [reply.keys.management, reply.keys.private];
      const keys = shown.map(({ application_id, key }) => ({ application_id, key_id: facts.applications.findByKey(key)?.keyId ?? null, key_last4: keyLast4(key) }));
      return {
        target: 'keys',
        keys,
        summary: `Showed the new vault's first keys: ${shown.map(({ application_name, key }) => `${quoted(application_name)}'s ${lastFour(keyLast4(key))}`).join(', and ')}`,
      };
    },
  }),
};

/** One recorded call's entry, given its reply (undefined when it failed): a change's sentence, or what a reveal showed. */
function entryOf(name: CallName, effect: 'change' | 'reveal', plan: ChangePlan<CallName> | RevealPlan<CallName>): (reply: unknown) => ActionRecord | null {
  if (effect === 'change') {
    const change = plan as ChangePlan<CallName>;
    return (reply) => {
      const summary = change.summary(reply as never);
      return summary === null ? null : { method: change.method, path: change.path(reply as never), details: { change: { action: name, summary } } };
    };
  }
  const shown = plan as RevealPlan<CallName>;
  return (reply) => {
    const reveal = shown.reveal(reply as never);
    return reveal && { method: 'REVEAL', path: shown.path(reply as never), details: { reveal }, application_id: shown.application_id, transaction_id: shown.transaction_id };
  };
}

/**
 * The model with every call that changes or reveals recorded in history as the workbench's own action (kind
 * `workbench`, the page it was made on), as a client's request would be: Settings writes the vault directly, and a
 * reveal answers what no request shows. A change or reveal row of the method table without its record is refused here,
 * naming it, so neither a cast nor a JavaScript caller can leave one out.
 */
export function recordingActions(model: WorkbenchModel, record: RecordAction, facts: RecordFacts, records: WorkbenchRecords = WORKBENCH_RECORDS): WorkbenchModel {
  const recording = { ...model };
  const byName = records as Partial<Record<CallName, Describe<CallName, ChangePlan<CallName> | RevealPlan<CallName> | typeof SENT_AS_REQUEST> | typeof SENT_AS_REQUEST>>;
  for (const name of METHOD_NAMES) {
    const row = WORKBENCH_METHODS[name];
    const describe = byName[name as CallName];
    if (row.kind !== 'call' || row.effect === 'read') {
      if (describe !== undefined) throw new Error(`Workbench method ${name} is a ${row.kind === 'call' ? 'read' : 'stream'} in the method table, yet has a history record`);
      continue;
    }
    if (describe === SENT_AS_REQUEST) continue;
    if (typeof describe !== 'function') {
      throw new Error(`Workbench method ${name} ${row.effect === 'change' ? 'changes' : 'reveals'}, but has no history record: add one to WORKBENCH_RECORDS`);
    }
    const call = model[name as CallName] as (request: unknown, page?: PageId) => unknown;
    (recording as Record<CallName, unknown>)[name as CallName] = async (request: Request<CallName>, page?: PageId) => {
      const plan = await describe(request, facts);
      if (plan === null || plan === SENT_AS_REQUEST) return call(request, page);
      return record(page, () => call(request, page), entryOf(name as CallName, row.effect, plan));
    };
  }
  return recording;
}

/** The entry for a runtime key the engine made when a proxy's code first needed one: the application it acts as. */
export function runtimeKeyMade(applications: ApplicationStore, key: MadeRuntimeKey, proxy: RuntimeKeyUser): ActionRecord {
  return { ...keptKeyMade(applications, 'invokeProxy', 'runtime', key, ` for proxy ${quoted(proxy.name)} (${proxy.id})`), application_id: key.application_id };
}

/**
 * The entry for the application the engine keeps for a node22 transform, made or set back to exactly the transform's
 * `runtime.permissions`: once per change of them. The keys made of it for each call are not recorded (two lines a call).
 */
export function callKeyApplicationSet(application: Application, user: CallKeyUser): ActionRecord {
  const held = application.permissions.join(', ') || 'no permissions';
  return {
    method: 'UPDATE',
    path: `/applications/${application.id}`,
    details: { change: { action: 'invokeProxy', summary: `Set ${quoted(application.name)} to hold ${held} for proxy ${quoted(user.name)} (${user.id}) ${user.place}; each call gets a key of it, deleted when the call ends` } },
    application_id: application.id,
  };
}
