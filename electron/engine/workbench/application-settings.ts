import type { ApplicationDetail, PermissionInfo } from '../../../shared/workbench/application-contract';
import type { Request, SentReply } from '../../../shared/workbench/methods';
import { applicationRequest, applicationUpdateRequest } from '../access/application-requests';
import type { Application, ApplicationStore } from '../access/application-store';
import { listPermissions } from '../access/permissions';
import { workbenchCause } from '../people/acting-person';
import { parseWith } from '../server/validation';

/** More applications than a local vault holds: Settings and the pickers list them all. */
export const MAX_APPLICATIONS = 1000;

/**
 * Applications and keys as Settings manages them: the same store and the same validation as the management API
 * (POST and PUT /applications), acting for the workbench's user, so no management key is needed and none can be lost.
 */
export function applicationSettings(applications: ApplicationStore) {
  const detail = (application: Application): ApplicationDetail => {
    const facts = applications.keyFacts(application.id);
    return {
      id: application.id,
      name: application.name,
      type: application.type,
      permissions: application.permissions,
      rules: application.rules,
      keys: application.keys.map(({ id, created_at }) => ({ id, created_at, key_last4: null, kept: null, ...facts.get(id) })),
      created_at: application.created_at,
      modified_at: application.modified_at,
    };
  };

  return {
    list: (): ApplicationDetail[] => applications.page(1, MAX_APPLICATIONS).items.map(detail),
    permissions: (): PermissionInfo[] => listPermissions(),
    async create({ name, type, permissions, rules }: Request<'createApplication'>): Promise<ApplicationDetail> {
      const input = parseWith(applicationRequest, { name, type, permissions, rules, create_key: false });
      return detail((await applications.create(input, null, { create: false }, workbenchCause())).application);
    },
    async update({ id, name, permissions, rules }: Request<'updateApplication'>): Promise<ApplicationDetail> {
      const { type } = applications.require(id);
      const input = parseWith(applicationUpdateRequest(type), { name, permissions, rules });
      return detail(await applications.update(id, input, null, workbenchCause()));
    },
    async remove({ application_id }: Request<'deleteApplication'>): Promise<SentReply<'deleteApplication'>> {
      await applications.delete(application_id, workbenchCause());
      return { deleted: true };
    },
    async createKey({ application_id }: Request<'createApplicationKey'>): Promise<SentReply<'createApplicationKey'>> {
      const { id, created_at, key } = await applications.createKey(application_id, null, workbenchCause());
      return { application: detail(applications.require(application_id)), key: { id, created_at, key } };
    },
    async revokeKey({ application_id, key_id }: Request<'revokeApplicationKey'>): Promise<ApplicationDetail> {
      await applications.deleteKey(application_id, key_id, workbenchCause());
      return detail(applications.require(application_id));
    },
  };
}
