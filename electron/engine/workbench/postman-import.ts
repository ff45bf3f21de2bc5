import type { PostmanImported } from '../../../shared/workbench/postman-contract';
import type { CollectionStore } from '../collections/collection-store';
import type { PostmanPlan } from '../collections/postman-import';
import type { Environments } from '../environments/environments';
import { moveCredentialsAside } from '../secrets/saved-credentials';
import type { SecretStore, SecretWrites } from '../secrets/secret-store';
import { ApiProblem } from '../server/problem';
import { keptVariables } from './environment-settings';

/** How many taken names a refusal lists before it counts the rest. */
const NAMES_LISTED = 5;

/**
 * Writes what a Postman export was read as, all of it or nothing: each request's credentials moved into Secrets, the
 * environment's secret values too, the requests' files and the environment's file. A name already in the folder is a
 * 409 listing them unless `replace`; a write that fails puts back every file written before it, and the secrets are
 * put back after it.
 */
export function applyPostman(plan: PostmanPlan, collections: CollectionStore, environments: Environments, secrets: SecretStore, replace: boolean): Promise<Omit<PostmanImported, 'view'>> {
  const requests = plan.collections.flatMap(({ name: collection, requests }) => requests.map((entry) => ({ collection, ...entry })));
  const envName = plan.environment?.name ?? null;
  if (!replace) {
    const taken = [
      ...requests.filter(({ collection, name }) => collections.has(collection, name)).map(({ collection, name }) => `${collection}/${name}`),
      ...(envName !== null && environments.store.has(envName) ? [`the environment “${envName}”`] : []),
    ];
    if (taken.length > 0) {
      const more = taken.length > NAMES_LISTED ? ` and ${taken.length - NAMES_LISTED} more` : '';
      throw new ApiProblem(409, `The folder holds ${taken.slice(0, NAMES_LISTED).join(', ')}${more} already: import again with Replace, or move them first. Nothing was imported.`);
    }
  }
  const staging = (staged: SecretWrites) => {
    const known = staged.namesByValue();
    const moved: PostmanImported['moved_aside'] = [];
    const saved = requests.map(({ collection, name, request }) => {
      const aside = moveCredentialsAside(request, `${collection}-${name}`, staged, known);
      moved.push(...aside.moved.map(({ header, secret }) => ({ collection, request: name, header, secret })));
      return { collection, name, request: aside.request, sendAs: null };
    });
    const environment = plan.environment && { name: plan.environment.name, before: environments.store.has(plan.environment.name) ? environments.store.read(plan.environment.name) : null };
    const kept = plan.environment && keptVariables(staged, plan.environment.name, plan.environment.variables, environment?.before ?? []);
    return { moved, saved, environment, kept };
  };
  return secrets.atomically(staging, ({ moved, saved, environment: env, kept }) => {
    let environment: PostmanImported['environment'] = null;
    let restoreEnvironment = () => undefined as void;
    if (env && kept) {
      const { name, before } = env;
      environments.store.write(name, kept, replace);
      restoreEnvironment = () => (before ? environments.store.write(name, before, true) : environments.store.delete(name));
      environment = { name, variables: kept.length, secrets: kept.flatMap(({ secret }) => (secret === null ? [] : [secret])) };
    }
    try {
      collections.saveAll(saved, replace);
    } catch (error) {
      restoreEnvironment();
      throw error;
    }
    return {
      collections: plan.collections.map(({ name, requests: inIt }) => ({ name, requests: inIt.map((request) => request.name) })),
      environment,
      not_carried: plan.notCarried,
      notes: plan.notes,
      moved_aside: moved,
    };
  });
}
