import { isDeepStrictEqual } from 'node:util';
import type { CallName, Request, SentReply, WorkbenchModel } from '../../../shared/workbench/methods';
import type { PageId } from '../../../shared/workbench/pages';
import type { ApplicationStore } from '../access/application-store';
import type { RemoteTargets } from './remote-targets';
import type { ActionRecord, RecordAction } from './workbench-actions';

/** What a change reads of the vault before it runs: names that the change itself may remove. */
export interface ChangeFacts {
  applications: ApplicationStore;
  remoteTargets: RemoteTargets;
}

/** How one change reads in history: its verb, its path and a sentence, given the reply (undefined when it failed). */
interface ChangePlan<N extends CallName> {
  method: string;
  path: (reply: Awaited<SentReply<N>> | undefined) => string;
  summary: (reply: Awaited<SentReply<N>> | undefined) => string;
}

/** null: the call changes nothing (a seed's dry run, a workbench key that does not exist), so nothing is recorded. */
type Describe<N extends CallName> = (request: Request<N>, facts: ChangeFacts) => ChangePlan<N> | null;

const quoted = (name: string) => `“${name}”`;
const counted = (n: number, noun: string, nouns = `${noun}s`) => `${n} ${n === 1 ? noun : nouns}`;
const nameOf = (facts: ChangeFacts, id: string) => {
  const application = facts.applications.get(id);
  return application ? `application ${quoted(application.name)}` : `application ${id}`;
};
/** A settings change as `name 200, other default`: the values the user set, null meaning back to the default. */
const settingsChange = (change: Record<string, unknown>) =>
  Object.entries(change)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => `${key} ${value === null ? 'default' : JSON.stringify(value)}`)
    .join(', ') || 'nothing';

/**
 * Every workbench call that changes the vault or the engine's settings, and how its history entry reads. Keys are
 * never written: a new key's entry names the key by id, its secret stays in the one reply that carries it.
 */
const CHANGES: { [N in CallName]?: Describe<N> } = {
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
      summary: (reply) => (reply ? `Created key ${reply.key.id} for ${what}` : `Could not create a key for ${what}`),
    };
  },
  revokeApplicationKey: ({ application_id, key_id }, facts) => {
    const what = nameOf(facts, application_id);
    return {
      method: 'DELETE',
      path: () => `/applications/${application_id}/keys/${key_id}`,
      summary: (reply) => (reply ? `Revoked key ${key_id} of ${what}` : `Could not revoke key ${key_id} of ${what}`),
    };
  },
  revokeWorkbenchKey: ({ application_id }, facts) => {
    const key = facts.applications.workbenchKeyInfo(application_id);
    if (!key) return null;
    const what = nameOf(facts, application_id);
    return {
      method: 'DELETE',
      path: () => `/applications/${application_id}/keys/${key.id}`,
      summary: (reply) => (reply ? `Revoked the workbench's key for ${what}` : `Could not revoke the workbench's key for ${what}`),
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
  deleteRemoteTarget: ({ id }, facts) => {
    const target = facts.remoteTargets.list().find((candidate) => candidate.id === id);
    const what = target ? `remote target ${quoted(target.name)}` : `remote target ${id}`;
    return {
      method: 'DELETE',
      path: () => `/remote-targets/${id}`,
      summary: (reply) => (!reply ? `Could not delete ${what}` : reply.deleted ? `Deleted ${what}` : `Found no ${what} to delete`),
    };
  },
};

/**
 * The model with each change recorded in history as the workbench's own action (kind `workbench`, the page it was
 * made on), as a client's management request would be: Settings writes the vault directly, not through a request.
 */
export function recordingChanges(record: RecordAction, facts: ChangeFacts, model: WorkbenchModel): WorkbenchModel {
  const recording = { ...model };
  for (const name of Object.keys(CHANGES) as CallName[]) {
    const describe = CHANGES[name] as Describe<CallName>;
    const call = model[name] as (request: unknown, page?: PageId) => unknown;
    (recording as Record<CallName, unknown>)[name] = (request: Request<CallName>, page?: PageId) => {
      const plan = describe(request, facts);
      if (!plan) return call(request, page);
      const entry = (reply: unknown): ActionRecord => ({
        method: plan.method,
        path: plan.path(reply as never),
        details: { change: { action: name, summary: plan.summary(reply as never) } },
      });
      return record(page, () => call(request, page), entry);
    };
  }
  return recording;
}
